#!/usr/bin/env bash
# Starts the S3 server the S3 tests use: SeaweedFS (Apache-2.0) in its all-in-one `weed mini`
# mode, answering S3 on 127.0.0.1:8333 (STRAIT_S3_PORT) with one identity, access key
# strait-test and secret strait-test-secret (STRAIT_TEST_S3_ACCESS_KEY,
# STRAIT_TEST_S3_SECRET_KEY), and the bucket strait-test created. Its binary is built once
# from the Go module proxy into bin/tools/weed (in a scratch module under
# bin/tools/weed-src; several minutes on two cores), so later runs skip the build. A server
# already answering on the port is used as it is if the identity can list its buckets. The
# data lives in a temporary folder: stop keeps it, a start after a reboot begins empty.
# STRAIT_S3_BIND makes its S3 port listen on another address too (0.0.0.0: every one), as
# the multi-host cluster does.
#
#   scripts/s3.sh start | stop | addr | build
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${STRAIT_S3_PORT:-8333}
addr="127.0.0.1:$port"
url="http://$addr"
bind=${STRAIT_S3_BIND:-127.0.0.1}
dir=${STRAIT_S3_DIR:-${TMPDIR:-/tmp}/strait-s3-$port}
key=${STRAIT_TEST_S3_ACCESS_KEY:-strait-test}
secret=${STRAIT_TEST_S3_SECRET_KEY:-strait-test-secret}
bucket=strait-test
tools="$root/bin/tools"
bin="$tools/weed"
module=github.com/seaweedfs/seaweedfs/weed
version=v0.0.0-20261109003541-7506e5f91cd6
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

build() {
	[ -x "$bin" ] && return
	echo "s3: building SeaweedFS $version into $bin (once; several minutes)" >&2
	mkdir -p "$tools/weed-src"
	(
		cd "$tools/weed-src"
		export GOTOOLCHAIN=local
		[ -f go.mod ] || go mod init x >/dev/null 2>&1
		go get "$module@$version"
		go build -o "$bin.partial" "$module"
	)
	mv "$bin.partial" "$bin"
}

# answers says whether an S3 server on the port accepts the identity (a signed ListBuckets)
answers() {
	curl -fsS -o /dev/null --max-time 3 --aws-sigv4 "aws:amz:us-east-1:s3" -u "$key:$secret" "$url/" 2>/dev/null
}

# listening says whether anything answers HTTP on the port
listening() {
	curl -sS -o /dev/null --max-time 3 "$url/" 2>/dev/null
}

identities() {
	cat <<JSON
{
  "identities": [
    {
      "name": "strait-test",
      "credentials": [{ "accessKey": "$key", "secretKey": "$secret" }],
      "actions": ["Admin", "Read", "List", "Tagging", "Write"]
    }
  ]
}
JSON
}

start() {
	if answers; then
		make_bucket
		return
	fi
	if listening; then
		echo "s3: a server on $addr does not accept access key $key; stop it or set STRAIT_S3_PORT" >&2
		exit 1
	fi
	build
	mkdir -p "$dir/data"
	refuse_running "$dir/pid" "$dir" "$addr" s3
	identities >"$dir/s3.json"
	# SeaweedFS names the unix sockets of its internal gRPC ports after the port alone, in
	# /tmp: a second server on this machine (another network namespace, as the multi-host
	# cluster's data host) moves its internal ports by STRAIT_S3_PORT_OFFSET, or it would
	# take over the first one's sockets
	local o=${STRAIT_S3_PORT_OFFSET:-0} ports=()
	if [ "$o" -ne 0 ]; then
		ports=(-master.port=$((9333 + o)) -volume.port=$((9340 + o)) -filer.port=$((8888 + o))
			-s3.port.grpc=$((18333 + o)) -admin.port=$((12535 + o)) -admin.port.legacy=0)
	fi
	# the gateways and consoles the tests do not use are off, so they hold no ports
	nohup "$bin" mini -dir="$dir/data" -ip=127.0.0.1 -ip.bind="$bind" -s3.port="$port" "${ports[@]}" \
		-s3.config="$dir/s3.json" -bucket="$bucket" -webdav=false -admin.ui=false \
		-s3.port.iceberg=0 -s3.port.lance=0 -master.telemetry=false \
		>"$dir/server.log" 2>&1 </dev/null &
	echo $! >"$dir/pid"
	await_answer "$dir/pid" 600 "s3: SeaweedFS did not answer on $addr" "$dir/server.log"
	make_bucket
}

# make_bucket creates the test bucket when it is missing (a server started before)
make_bucket() {
	local code
	code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 --aws-sigv4 "aws:amz:us-east-1:s3" -u "$key:$secret" -I "$url/$bucket" || true)
	[ "$code" = 200 ] && return
	curl -fsS -o /dev/null --max-time 10 --aws-sigv4 "aws:amz:us-east-1:s3" -u "$key:$secret" -X PUT "$url/$bucket" ||
		{ echo "s3: could not create bucket $bucket at $url" >&2; exit 1; }
}

stop() { stop_pid "$dir/pid" 100; }

case "${1:-start}" in
start) start ;;
stop) stop ;;
addr) echo "$url" ;;
build) build ;;
*) echo "usage: $0 start|stop|addr|build" >&2; exit 2 ;;
esac
