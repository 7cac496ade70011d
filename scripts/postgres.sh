#!/usr/bin/env bash
# Starts the PostgreSQL the JDBC tests use, as SeaTunnel's JDBC end-to-end test expects it:
# database `test`, user `test` with password `test`, on 127.0.0.1:5432 (STRAIT_PG_PORT), the
# host name `postgresql` mapped to 127.0.0.1, logical decoding and prepared transactions on.
# Installs Debian's postgresql package when no server binaries are found, and its PostGIS
# package when the extension is missing. STRAIT_PG_LISTEN adds addresses to listen on (and
# lets clients of their networks log in with a password), as the multi-host cluster does. A server already
# answering on the port is used as it is if user test can log in to database test.
#
#   scripts/postgres.sh start | stop | url | install
set -euo pipefail

port=${STRAIT_PG_PORT:-5432}
dir=${STRAIT_PG_DIR:-${TMPDIR:-/tmp}/strait-postgres-$port}
url="postgres://test:test@127.0.0.1:$port/test?sslmode=disable"
listen=${STRAIT_PG_LISTEN:-}
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

# as root the server runs as the postgres user (PostgreSQL refuses to run as root)
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install() {
	[ -n "$(bindir)" ] && return
	echo "postgres: installing Debian's postgresql package" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
	[ -n "$(bindir)" ] || { echo "postgres: no server binaries after installing postgresql" >&2; exit 1; }
}

# SeaTunnel's PostgreSQL tests read and write PostGIS geometries
install_postgis() {
	local ver
	ver=$(basename "$(dirname "$(bindir)")")
	[ -f "/usr/share/postgresql/$ver/extension/postgis.control" ] && return
	echo "postgres: installing Debian's postgresql-$ver-postgis-3 package" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "postgresql-$ver-postgis-3" >/dev/null
}

can_login() {
	PGPASSWORD=test PGCONNECT_TIMEOUT=3 "$(bindir)/psql" -X -q -h 127.0.0.1 -p "$port" -U test -d test -c 'select 1' >/dev/null 2>&1
}

start() {
	install
	install_postgis
	local bin
	bin=$(bindir)
	if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
		if can_login; then
			map_host
			forget_stale
			return
		fi
		if [ ! -f "$dir/postmaster.pid" ]; then
			stop_debian_cluster
			if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
				echo "postgres: a server on 127.0.0.1:$port does not let user test log in to database test; stop it or set STRAIT_PG_PORT" >&2
				exit 1
			fi
		fi
	fi
	if [ ! -f "$dir/PG_VERSION" ]; then
		mkdir -p "$dir"
		[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
		chmod 700 "$dir"
		as_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
		cat >>"$dir/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1${listen:+,$listen}'
port = $port
unix_socket_directories = '$dir'
wal_level = logical
max_replication_slots = 16
max_wal_senders = 16
max_prepared_transactions = 64
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
		echo "host replication all 127.0.0.1/32 trust" >>"$dir/pg_hba.conf"
		[ -z "$listen" ] || echo "host all all samenet scram-sha-256" >>"$dir/pg_hba.conf"
	fi
	if ! "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
		as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null ||
			{ echo "postgres: the server did not start; its log:" >&2; tail -n 20 "$dir/server.log" >&2; exit 1; }
	fi
	local psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres)
	if [ -z "$("${psql[@]}" -tAc "select 1 from pg_roles where rolname = 'test'")" ]; then
		"${psql[@]}" -c "create role test login superuser replication password 'test'"
	fi
	if [ -z "$("${psql[@]}" -tAc "select 1 from pg_database where datname = 'test'")" ]; then
		"${psql[@]}" -c "create database test owner test"
	fi
	map_host
	forget_stale
}

# A test process killed between a prepare and its commit leaves its transaction prepared,
# and a prepared transaction stops every logical replication slot's creation on the server
# until it ends. Those older than any test run (the suite's limit is 40 minutes) are rolled
# back, each named.
forget_stale() {
	local psql=("$(bindir)/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U test -d test)
	local gid
	PGPASSWORD=test "${psql[@]}" -tAc "select gid from pg_prepared_xacts where database = 'test' and prepared < now() - interval '1 hour'" |
		while read -r gid; do
			[ -n "$gid" ] || continue
			echo "postgres: rolling back transaction '$gid', left prepared by an earlier run" >&2
			PGPASSWORD=test "${psql[@]}" -c "rollback prepared '${gid//\'/\'\'}'" >/dev/null || true
		done
}

# Debian's own cluster (started by the package's install on some machines) takes port 5432
# without the test user, logical decoding or prepared transactions: the tests stop it
stop_debian_cluster() {
	command -v pg_lsclusters >/dev/null 2>&1 || return 0
	pg_lsclusters -h 2>/dev/null | while read -r ver name cport status _; do
		if [ "$cport" = "$port" ] && [ "$status" = online ]; then
			echo "postgres: stopping Debian's cluster $ver/$name, which holds port $port" >&2
			$sudo pg_ctlcluster "$ver" "$name" stop || true
		fi
	done
}

# SeaTunnel's configs reach the database as host `postgresql`
map_host() {
	if ! getent hosts postgresql >/dev/null 2>&1; then
		echo "127.0.0.1 postgresql" | $sudo tee -a /etc/hosts >/dev/null
	fi
}

stop() {
	local bin
	bin=$(bindir)
	[ -n "$bin" ] && [ -f "$dir/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$dir" -w -m fast stop >/dev/null
	return 0
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
url) echo "$url" ;;
install) install; install_postgis ;;
*) echo "usage: $0 start|stop|url|install" >&2; exit 2 ;;
esac
