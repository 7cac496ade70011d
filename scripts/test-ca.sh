#!/usr/bin/env bash
# Makes a test certificate authority and one runner certificate per host, for trying out
# mTLS on the data exchange between runners. Each runner certificate is valid for its host
# (a DNS name or an IP address) and serves both sides of the exchange (extended key usage
# serverAuth and clientAuth); all are signed by the CA, which every runner is given as
# --exchange-tls-ca. Installs Debian's openssl package when openssl is missing. An existing
# CA in <dir> is kept, so hosts can be added later; an existing host's certificate is made
# again.
#
#   scripts/test-ca.sh <dir> <host>...
#
# writes <dir>/ca.pem, <dir>/ca-key.pem and, per host, <dir>/<host>.pem and <dir>/<host>-key.pem:
#
#   strait runner --listen :7600 --advertise <host>:7600 \
#     --exchange-tls-cert <dir>/<host>.pem --exchange-tls-key <dir>/<host>-key.pem \
#     --exchange-tls-ca <dir>/ca.pem
#
# For tests and trials only: the CA key lies beside the certificates, unencrypted.
set -euo pipefail

days=${STRAIT_TEST_CA_DAYS:-30}

usage() {
	echo "usage: scripts/test-ca.sh <dir> <host>..." >&2
	exit 2
}

install() {
	command -v openssl >/dev/null && return
	local sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "test-ca: installing Debian's openssl package" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq openssl >/dev/null
	command -v openssl >/dev/null || { echo "test-ca: no openssl after installing it" >&2; exit 1; }
}

make_ca() {
	[ -f "$dir/ca.pem" ] && [ -f "$dir/ca-key.pem" ] && return
	openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$dir/ca-key.pem" -out "$dir/ca.pem" -days "$days" \
		-subj "/CN=strait test CA" \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
	chmod 644 "$dir/ca.pem"
	echo "test-ca: CA $dir/ca.pem" >&2
}

# san is the subjectAltName of a host: an IP address or a DNS name
san() {
	if [[ $1 =~ ^[0-9.]+$ || $1 == *:* ]]; then echo "IP:$1"; else echo "DNS:$1"; fi
}

make_runner() {
	local host=$1 ext
	ext=$(mktemp)
	trap 'rm -f "$ext"' RETURN
	cat >"$ext" <<EOF
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=$(san "$host")
EOF
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$dir/$host-key.pem" -subj "/CN=$host" 2>/dev/null |
		openssl x509 -req -CA "$dir/ca.pem" -CAkey "$dir/ca-key.pem" -CAcreateserial \
			-days "$days" -extfile "$ext" -out "$dir/$host.pem" 2>/dev/null
	chmod 600 "$dir/$host-key.pem"
	chmod 644 "$dir/$host.pem"
	openssl verify -CAfile "$dir/ca.pem" -purpose sslserver "$dir/$host.pem" >/dev/null
	openssl verify -CAfile "$dir/ca.pem" -purpose sslclient "$dir/$host.pem" >/dev/null
	echo "test-ca: runner $host: $dir/$host.pem, $dir/$host-key.pem" >&2
}

[ $# -ge 2 ] || usage
dir=$1
shift
install
mkdir -p "$dir"
umask 077
make_ca
for host in "$@"; do
	[[ $host =~ ^[A-Za-z0-9.:-]+$ ]] || { echo "test-ca: $host: not a host name or IP address" >&2; exit 2; }
	make_runner "$host"
done
