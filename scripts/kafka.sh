#!/usr/bin/env bash
# Starts the Kafka broker the Kafka tests use: kfake (franz-go's in-memory implementation of
# Kafka's wire protocol, with consumer groups and transactions) as a process of its own on
# 127.0.0.1:9092 (STRAIT_KAFKA_PORT), built once into bin/tools/kfake from tools/kfake.
# The host name `kafkaCluster`, which SeaTunnel's Kafka end-to-end configs use, is mapped
# to 127.0.0.1. A broker already answering on the port is used as it is. kfake keeps its
# data in memory: stop clears every topic. STRAIT_KAFKA_HOST makes it listen on (and
# advertise) another address, as the multi-host cluster does.
#
#   scripts/kafka.sh start | stop | addr | build
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${STRAIT_KAFKA_PORT:-9092}
host=${STRAIT_KAFKA_HOST:-127.0.0.1}
addr="$host:$port"
dir=${STRAIT_KAFKA_DIR:-${TMPDIR:-/tmp}/strait-kafka-$port}
bin="$root/bin/tools/kfake"
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

build() {
	if [ -x "$bin" ] && [ -z "$(find "$root/tools/kfake" "$root/go.mod" -newer "$bin" -print -quit)" ]; then
		return
	fi
	mkdir -p "$(dirname "$bin")"
	(cd "$root" && GOTOOLCHAIN=local go build -o "$bin" ./tools/kfake)
}

answers() { "$bin" -ping "$addr" >/dev/null 2>&1; }

start() {
	build
	# SeaTunnel's configs reach the broker as host `kafkaCluster`
	map_host kafkaCluster
	answers && return
	mkdir -p "$dir"
	refuse_running "$dir/pid" "$dir" "$addr" kafka
	nohup "$bin" -host "$host" -port "$port" >"$dir/server.log" 2>&1 &
	echo $! >"$dir/pid"
	await_answer "$dir/pid" 100 "kafka: the broker did not answer on $addr" "$dir/server.log"
}

stop() { stop_pid "$dir/pid" 50; }

case "${1:-start}" in
start) start ;;
stop) stop ;;
addr) echo "$addr" ;;
build) build ;;
*) echo "usage: $0 start|stop|addr|build" >&2; exit 2 ;;
esac
