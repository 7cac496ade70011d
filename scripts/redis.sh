#!/usr/bin/env bash
# Starts the Redis the Redis connector's tests use, as SeaTunnel's Redis end-to-end tests
# expect it (connector-redis-e2e: `redis-server --requirepass SeaTunnel`, reached as host
# redis-e2e): on 127.0.0.1:6379 (STRAIT_REDIS_PORT) with password SeaTunnel, the host name
# redis-e2e mapped to 127.0.0.1, nothing saved to disk. Installs Debian's redis-server
# package when no server binary is found. The server keeps its files in a folder of its own
# under the temporary directory. A server already answering on the port with that password
# is used as it is.
#
# start-cluster starts a Redis Cluster of three masters (no replicas) from the same binary,
# on 127.0.0.1:7379-7381 (STRAIT_REDIS_CLUSTER_PORT, the first of three), each with
# cluster-enabled yes and the same password, joined with `redis-cli --cluster create`; a
# cluster already answering there with every slot served is used as it is.
#
#   scripts/redis.sh start | start-cluster | stop | url | cluster-nodes
set -euo pipefail

port=${STRAIT_REDIS_PORT:-6379}
cport=${STRAIT_REDIS_CLUSTER_PORT:-7379}
password=SeaTunnel
base=${STRAIT_REDIS_DIR:-${TMPDIR:-/tmp}/strait-redis}
url="redis://:$password@127.0.0.1:$port/0"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

cluster_ports() { echo "$cport" "$((cport + 1))" "$((cport + 2))"; }

install() {
	command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 && return
	echo "redis: installing Debian's redis-server package" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
	command -v redis-server >/dev/null 2>&1 || { echo "redis: no redis-server after installing redis-server" >&2; exit 1; }
}

cli() {
	local p=$1
	shift
	REDISCLI_AUTH=$password redis-cli -h 127.0.0.1 -p "$p" "$@"
}

# the server on the port takes the password
answers() { [ "$(cli "$1" ping 2>/dev/null)" = PONG ]; }

# something answers on the port at all (a refusal of the password too)
listening() { redis-cli -h 127.0.0.1 -p "$1" ping >/dev/null 2>&1; }

# launch starts one server in the background and waits until it answers.
launch() {
	local p=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	redis-server --bind 127.0.0.1 --port "$p" --dir "$dir" --requirepass "$password" --masterauth "$password" \
		--daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/server.log" --save "" --appendonly no "$@" \
		</dev/null >/dev/null
	local i
	for i in $(seq 1 100); do
		answers "$p" && return
		sleep 0.1
	done
	echo "redis: the server on port $p did not start; its log:" >&2
	tail -n 20 "$dir/server.log" >&2
	exit 1
}

# Debian's own service (started by the package's install on some machines) takes port 6379
# without the password: the tests stop it
stop_debian_service() {
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet redis-server 2>/dev/null; then
		echo "redis: stopping Debian's redis-server service, which holds port $port" >&2
		$sudo systemctl stop redis-server || true
	elif [ -x /etc/init.d/redis-server ]; then
		$sudo /etc/init.d/redis-server stop >/dev/null 2>&1 || true
	fi
}

# SeaTunnel's configs reach the server as host redis-e2e
map_hosts() {
	if ! getent hosts redis-e2e >/dev/null 2>&1; then
		echo "127.0.0.1 redis-e2e" | $sudo tee -a /etc/hosts >/dev/null
	fi
}

start() {
	install
	map_hosts
	answers "$port" && return
	local dir=$base-$port
	if listening "$port" && [ ! -f "$dir/redis.pid" ]; then
		stop_debian_service
		if listening "$port"; then
			echo "redis: a server on 127.0.0.1:$port does not take password $password; stop it or set STRAIT_REDIS_PORT" >&2
			exit 1
		fi
	fi
	launch "$port" "$dir"
}

cluster_ok() { cli "$cport" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }

# every node of the cluster sees every slot served (the nodes agree a moment after the create)
all_nodes_ok() {
	local p
	for p in $(cluster_ports); do
		cli "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1
	done
}

start_cluster() {
	install
	all_nodes_ok && return
	local p nodes=()
	for p in $(cluster_ports); do
		local dir=$base-cluster-$p
		if ! answers "$p"; then
			if listening "$p"; then
				echo "redis: a server on 127.0.0.1:$p does not take password $password; stop it or set STRAIT_REDIS_CLUSTER_PORT" >&2
				exit 1
			fi
			rm -f "$dir/nodes.conf" # a cluster that was stopped is made anew
			launch "$p" "$dir" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000
		fi
		nodes+=("127.0.0.1:$p")
	done
	if [ "$(cli "$cport" cluster info | grep '^cluster_known_nodes:' | tr -d '\r' | cut -d: -f2)" = 1 ]; then
		cli "$cport" --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$base-cluster-$cport/create.log" 2>&1 ||
			{ echo "redis: redis-cli --cluster create failed:" >&2; tail -n 20 "$base-cluster-$cport/create.log" >&2; exit 1; }
	fi
	local i
	for i in $(seq 1 300); do
		all_nodes_ok && return
		sleep 0.1
	done
	echo "redis: the cluster on ports $(cluster_ports) is not ok:" >&2
	cli "$cport" cluster info >&2 || true
	exit 1
}

stop_one() {
	local p=$1 dir=$2
	[ -f "$dir/redis.pid" ] || return 0
	local pid
	pid=$(cat "$dir/redis.pid")
	cli "$p" shutdown nosave >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
	local i
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || { rm -f "$dir/redis.pid"; return 0; }
		sleep 0.1
	done
	echo "redis: the server on port $p (pid $pid) did not stop" >&2
	exit 1
}

stop() {
	stop_one "$port" "$base-$port"
	local p
	for p in $(cluster_ports); do
		stop_one "$p" "$base-cluster-$p"
	done
}

case "${1:-start}" in
start) start ;;
start-cluster) start_cluster ;;
stop) stop ;;
url) echo "$url" ;;
cluster-nodes) cluster_ports | tr ' ' '\n' | sed 's/^/127.0.0.1:/' | paste -sd, ;;
*) echo "usage: $0 start|start-cluster|stop|url|cluster-nodes" >&2; exit 2 ;;
esac
