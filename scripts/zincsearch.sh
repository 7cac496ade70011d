#!/usr/bin/env bash
# Starts the search server the Elasticsearch tests use: ZincSearch (Apache-2.0), which serves
# an Elasticsearch-compatible API (bulk, documents, _search, index creation and mappings)
# under /es/, on 127.0.0.1:4080 (STRAIT_ZINC_PORT) with the admin user admin and password
# strait-test-secret (STRAIT_TEST_ZINC_PASSWORD). Its binary is built once from the Go
# module proxy into bin/tools/zincsearch: its module lacks the web/dist folder its web UI
# embeds and starts a profiler whose library no longer builds with this Go, so the build
# copies the module under bin/tools/zincsearch-src, puts an empty page there and leaves the
# profiler out. A server already answering on the port is used as it is if the admin can
# log in. The data lives in a temporary folder.
#
#   scripts/zincsearch.sh start | stop | url | build
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${STRAIT_ZINC_PORT:-4080}
user=admin
password=${STRAIT_TEST_ZINC_PASSWORD:-strait-test-secret}
dir=${STRAIT_ZINC_DIR:-${TMPDIR:-/tmp}/strait-zincsearch-$port}
tools="$root/bin/tools"
bin="$tools/zincsearch"
src="$tools/zincsearch-src"
module=github.com/zincsearch/zincsearch
version=v0.4.10
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

build() {
	[ -x "$bin" ] && return
	echo "zincsearch: building ZincSearch $version into $bin (once; a few minutes)" >&2
	export GOTOOLCHAIN=local GOFLAGS=-mod=mod
	modsrc=$(cd "$root" && go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$modsrc" ] || { echo "zincsearch: module $module@$version not found" >&2; exit 1; }
	rm -rf "$src"
	cp -r "$modsrc" "$src"
	chmod -R u+w "$src"
	mkdir -p "$src/web/dist"
	echo '<!doctype html><title>ZincSearch</title><p>The web UI is not built here; the API is at /es/.' >"$src/web/dist/index.html"
	# the profiler: its import and the call that starts it
	sed -i '/"github.com\/pyroscope-io\/client\/pyroscope"/d' "$src/cmd/zincsearch/main.go"
	perl -0pi -e 's/_, err := pyroscope\.Start\(pyroscope\.Config\{.*?\n\t\}\)\n\tif err != nil \{\n\t\tlog\.Print\("pyroscope\.Start: ", err\.Error\(\)\)\n\t\}/_ = ProfileID/s' "$src/cmd/zincsearch/main.go"
	(cd "$src" && go build -o "$bin.partial" ./cmd/zincsearch)
	mv "$bin.partial" "$bin"
}

url() { echo "http://$user:$password@127.0.0.1:$port/es"; }

answers() {
	curl -fsS -o /dev/null --max-time 3 -u "$user:$password" "http://127.0.0.1:$port/es/" 2>/dev/null
}

listening() {
	curl -sS -o /dev/null --max-time 3 "http://127.0.0.1:$port/" 2>/dev/null
}

start() {
	# SeaTunnel's Elasticsearch configs reach the server as host `elasticsearch` (its tests
	# put a TLS front on port 9200 there)
	map_host elasticsearch
	if answers; then
		return
	fi
	if listening; then
		echo "zincsearch: something else answers on 127.0.0.1:$port (set STRAIT_ZINC_PORT)" >&2
		exit 1
	fi
	build
	mkdir -p "$dir/data"
	(
		cd "$dir"
		ZINC_FIRST_ADMIN_USER=$user ZINC_FIRST_ADMIN_PASSWORD=$password ZINC_DATA_PATH="$dir/data" \
			ZINC_SERVER_ADDRESS=127.0.0.1 ZINC_SERVER_PORT=$port ZINC_TELEMETRY=false ZINC_PROFILER=false \
			ZINC_SENTRY=false ZINC_PROMETHEUS_ENABLE=false \
			nohup "$bin" >"$dir/zincsearch.log" 2>&1 &
		echo $! >"$dir/pid"
	)
	for _ in $(seq 1 150); do
		if answers; then
			return
		fi
		sleep 0.2
	done
	echo "zincsearch: no answer on 127.0.0.1:$port; its log:" >&2
	tail -20 "$dir/zincsearch.log" >&2
	exit 1
}

stop() {
	if [ -f "$dir/pid" ]; then
		kill "$(cat "$dir/pid")" 2>/dev/null || true
		rm -f "$dir/pid"
	fi
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) url ;;
build) build ;;
*)
	echo "usage: $0 start | stop | url | build" >&2
	exit 2
	;;
esac
