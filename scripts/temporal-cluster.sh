#!/usr/bin/env bash
# A Temporal cluster as users deploy one, and hosts for Strait around it, on this machine:
# every host is a network namespace of its own with its own address on a bridge, so the
# processes of one host reach the others' only over the network, as on separate machines.
#
#   temporal-db    PostgreSQL holding Temporal's history and (advanced) visibility databases,
#                  their schemas created and migrated by Temporal's SQL tool
#   frontend-1/2   Temporal's frontend service, each a process of Temporal's own server
#   history-1/2    history (4 shards between them)
#   matching-1     matching
#   tworker-1      Temporal's internal worker service
#   data           what the jobs read and write: PostgreSQL, a Kafka broker (kfake), S3
#                  (SeaweedFS)
#   strait-1/2/3   empty hosts for Strait's workers and runners (the tests start them)
#   client         an empty host for clients (the CLI)
#
# The Temporal services all run Temporal's server binary (go.temporal.io/server/cmd/server
# at the version in go.mod, built once into bin/tools) from temporal-config/cluster.yaml.
# In each namespace the name temporal-frontend has an address for each frontend, so a client
# given dns:///temporal-frontend:7233 balances between them and rides out the loss of one.
# Needs root (namespaces, the bridge). The state lives under STRAIT_CLUSTER_DIR.
#
#   scripts/temporal-cluster.sh up         build what is missing, start everything missing
#   scripts/temporal-cluster.sh down       stop every process, remove the network and the state
#   scripts/temporal-cluster.sh kill HOST  SIGKILL every process of a host
#   scripts/temporal-cluster.sh start HOST start the services of a host (after a kill)
#   scripts/temporal-cluster.sh exec HOST CMD...   run a command on a host
#   scripts/temporal-cluster.sh hosts      each host's name and address
#   scripts/temporal-cluster.sh env        the addresses, as shell variables
#   scripts/temporal-cluster.sh status     which hosts have processes
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${STRAIT_CLUSTER_DIR:-${TMPDIR:-/tmp}/strait-cluster}
net=${STRAIT_CLUSTER_NET:-10.213.7}
bridge=strait-br0
tools="$root/bin/tools"
server="$tools/temporal-server"
sqltool="$tools/temporal-sql-tool"
namespace=${STRAIT_CLUSTER_NAMESPACE:-default}
export GOTOOLCHAIN=local

# host name → last byte of its address
declare -A ip=(
	[temporal-db]=10
	[frontend-1]=11 [frontend-2]=12
	[history-1]=13 [history-2]=14
	[matching-1]=15
	[tworker-1]=16
	[data]=20
	[strait-1]=31 [strait-2]=32 [strait-3]=33
	[client]=40
)
order=(temporal-db data history-1 history-2 matching-1 frontend-1 frontend-2 tworker-1 strait-1 strait-2 strait-3 client)

addr() { echo "$net.${ip[$1]}"; }
ns() { echo "strait-$1"; }

known() {
	[ -n "${ip[$1]:-}" ] || { echo "temporal-cluster: no host $1 (hosts: ${order[*]})" >&2; exit 2; }
}

# service of a Temporal host: frontend-1 → frontend; tworker-1 → worker
service() {
	case $1 in
	frontend-*) echo frontend ;; history-*) echo history ;; matching-*) echo matching ;;
	tworker-*) echo worker ;; *) echo "" ;;
	esac
}

need_root() {
	[ "$(id -u)" -eq 0 ] || { echo "temporal-cluster: needs root for network namespaces" >&2; exit 1; }
}

# build brings Temporal's server and SQL tool (the go.mod's version), kfake and SeaweedFS
build() {
	local mod
	mod=$(cd "$root" && go list -m -f '{{.Version}}' go.temporal.io/server)
	mkdir -p "$tools"
	if [ ! -x "$server" ] || [ "$(cat "$tools/temporal-server.version" 2>/dev/null)" != "$mod" ]; then
		echo "temporal-cluster: building Temporal's server $mod into $server" >&2
		(cd "$root" && go build -o "$server" go.temporal.io/server/cmd/server)
		(cd "$root" && go build -o "$sqltool" go.temporal.io/server/cmd/tools/sql)
		echo "$mod" >"$tools/temporal-server.version"
	fi
}

schema_dir() {
	echo "$(cd "$root" && go list -m -f '{{.Dir}}' go.temporal.io/server)/schema/postgresql/v12"
}

hosts_file() {
	local h
	echo "127.0.0.1 localhost"
	for h in "${order[@]}"; do
		echo "$(addr "$h") $h"
	done
	echo "$(addr frontend-1) temporal-frontend"
	echo "$(addr frontend-2) temporal-frontend"
}

network_up() {
	if ! ip link show "$bridge" >/dev/null 2>&1; then
		ip link add "$bridge" type bridge
		ip addr add "$net.1/24" dev "$bridge"
		ip link set "$bridge" up
	fi
	# frames between namespaces on the bridge are not the host firewall's business
	[ -w /proc/sys/net/bridge/bridge-nf-call-iptables ] && echo 0 >/proc/sys/net/bridge/bridge-nf-call-iptables
	local h n v
	for h in "${order[@]}"; do
		n=$(ns "$h")
		v="stv${ip[$h]}"
		mkdir -p "/etc/netns/$n"
		hosts_file >"/etc/netns/$n/hosts"
		ip netns list | grep -qw "^$n" && continue
		ip netns add "$n"
		ip link add "$v" type veth peer name "${v}p"
		ip link set "${v}p" netns "$n"
		ip link set "$v" master "$bridge" up
		ip -n "$n" link set lo up
		ip -n "$n" link set "${v}p" name eth0
		ip -n "$n" addr add "$(addr "$h")/24" dev eth0
		ip -n "$n" link set eth0 up
	done
}

network_down() {
	local h n
	for h in "${order[@]}"; do
		n=$(ns "$h")
		ip netns list | grep -qw "^$n" && ip netns del "$n"
		rm -rf "/etc/netns/$n"
		ip link del "stv${ip[$h]}" 2>/dev/null || true
	done
	ip link del "$bridge" 2>/dev/null || true
}

pids() { ip netns pids "$(ns "$1")" 2>/dev/null || true; }

on() {
	local h=$1
	shift
	ip netns exec "$(ns "$h")" "$@"
}

# stale_lock removes the lock file a killed PostgreSQL left, when no process of the host is
# alive: its pid may belong to another process by now, and PostgreSQL would not start
stale_lock() {
	[ -z "$(pids "$1")" ] && rm -f "$2/postmaster.pid" "$2"/.s.PGSQL.*.lock
	return 0
}

# durable makes a host's PostgreSQL return from a commit only once it is in the WAL on
# disk, as a production server does: the test server's synchronous_commit = off loses the
# last commits when PostgreSQL is killed, which Temporal's history cannot survive (its
# records would go back in time under a running shard)
durable() {
	on "$1" psql -X -q -h 127.0.0.1 -p 5432 -U postgres -d postgres \
		-c "alter system set synchronous_commit = on" -c "select pg_reload_conf()" >/dev/null
}

temporal_db() {
	stale_lock temporal-db "$dir/temporal-db"
	on temporal-db env STRAIT_PG_PORT=5432 STRAIT_PG_DIR="$dir/temporal-db" STRAIT_PG_LISTEN="$(addr temporal-db)" \
		"$root/scripts/postgres.sh" start >/dev/null
	local psql=(on temporal-db psql -X -q -h 127.0.0.1 -p 5432 -U postgres -d postgres)
	durable temporal-db
	if [ -z "$("${psql[@]}" -tAc "select 1 from pg_roles where rolname = 'temporal'")" ]; then
		"${psql[@]}" -c "create role temporal login createdb password 'temporal'"
	fi
	local db sub schema
	schema=$(schema_dir)
	for db in temporal temporal_visibility; do
		sub=temporal
		[ "$db" = temporal_visibility ] && sub=visibility
		local sql=("$sqltool" --plugin postgres12 --ep "$(addr temporal-db)" -p 5432 -u temporal --pw temporal --db "$db")
		if [ -z "$("${psql[@]}" -tAc "select 1 from pg_database where datname = '$db'")" ]; then
			"${sql[@]}" create-database >>"$dir/schema.log" 2>&1
			"${sql[@]}" setup-schema -v 0.0 >>"$dir/schema.log" 2>&1
		fi
		# brings the schema to the server's version; a no-op when it is there
		"${sql[@]}" update-schema -d "$schema/$sub/versioned" >>"$dir/schema.log" 2>&1 ||
			{ echo "temporal-cluster: the schema of $db failed; $dir/schema.log:" >&2; tail -n 20 "$dir/schema.log" >&2; exit 1; }
	done
}

# start_temporal starts the service of a Temporal host unless it runs
start_temporal() {
	local h=$1 svc
	svc=$(service "$h")
	[ -n "$(pids "$h")" ] && return
	mkdir -p "$dir/$h"
	TEMPORAL_IP=$(addr "$h") TEMPORAL_DB_HOST=$(addr temporal-db) \
		TEMPORAL_DYNAMIC_CONFIG="$root/temporal-config/dynamicconfig.yaml" \
		nohup ip netns exec "$(ns "$h")" "$server" --config-file "$root/temporal-config/cluster.yaml" \
		--allow-no-auth start --service "$svc" >>"$dir/$h/server.log" 2>&1 </dev/null &
}

# await_port waits until a host's port takes connections
await_port() {
	for _ in $(seq 1 600); do
		on client bash -c "exec 3<>/dev/tcp/$(addr "$1")/$2" 2>/dev/null && return
		[ -n "$(pids "$1")" ] || break
		sleep 0.1
	done
	echo "temporal-cluster: $1 does not listen on $2; $dir/$1/server.log:" >&2
	tail -n 5 "$dir/$1/server.log" >&2
	exit 1
}

await_frontends() {
	await_port frontend-1 7233
	await_port frontend-2 7233
	# the namespace and Strait's search attributes, as a user sets them up
	on client "$root/bin/strait" admin setup --address "$(addr frontend-1):7233" --namespace "$namespace" \
		--retention 1d --wait 2m >/dev/null || {
		echo "temporal-cluster: the frontends did not serve; their logs:" >&2
		tail -n 20 "$dir"/frontend-*/server.log >&2
		exit 1
	}
}

data_services() {
	local a
	a=$(addr data)
	stale_lock data "$dir/data-postgres"
	on data env STRAIT_PG_PORT=5432 STRAIT_PG_DIR="$dir/data-postgres" STRAIT_PG_LISTEN="$a" \
		"$root/scripts/postgres.sh" start >/dev/null
	durable data
	on data env STRAIT_KAFKA_HOST="$a" STRAIT_KAFKA_PORT=9092 STRAIT_KAFKA_DIR="$dir/data-kafka" \
		"$root/scripts/kafka.sh" start >/dev/null
	on data env STRAIT_S3_PORT=8333 STRAIT_S3_PORT_OFFSET=100 STRAIT_S3_DIR="$dir/data-s3" STRAIT_S3_BIND=0.0.0.0 \
		"$root/scripts/s3.sh" start >/dev/null
}

start_host() {
	local h=$1
	case $h in
	temporal-db) temporal_db ;;
	data) data_services ;;
	frontend-* | history-* | matching-* | tworker-*) start_temporal "$h" ;;
	*) ;; # Strait's hosts and the client: their processes are the caller's
	esac
}

up() {
	need_root
	build
	[ -x "$root/bin/strait" ] || (cd "$root" && go build -o bin/strait ./cmd/strait)
	# packages and programs are installed and built from here: the hosts have no way out
	"$root/scripts/postgres.sh" install
	"$root/scripts/kafka.sh" build
	"$root/scripts/s3.sh" build
	mkdir -p "$dir"
	network_up
	temporal_db
	data_services
	# one service first: a new cluster's first process writes its metadata, which the others
	# then read
	start_temporal history-1
	await_port history-1 7234
	local h
	for h in history-2 matching-1 frontend-1 frontend-2 tworker-1; do
		start_temporal "$h"
	done
	await_frontends
}

kill_host() {
	local p
	p=$(pids "$1")
	[ -z "$p" ] && return
	# shellcheck disable=SC2086
	kill -KILL $p 2>/dev/null || true
	for _ in $(seq 1 100); do
		[ -z "$(pids "$1")" ] && return
		sleep 0.05
	done
}

down() {
	need_root
	local h
	for h in "${order[@]}"; do
		ip netns list | grep -qw "^$(ns "$h")" && kill_host "$h"
	done
	network_down
	# the Temporal services' logs are kept where STRAIT_CLUSTER_LOGS says
	if [ -n "${STRAIT_CLUSTER_LOGS:-}" ] && [ -d "$dir" ]; then
		mkdir -p "$STRAIT_CLUSTER_LOGS"
		for h in "$dir"/*/; do
			[ -f "$h/server.log" ] && cp "$h/server.log" "$STRAIT_CLUSTER_LOGS/$(basename "$h").log"
		done
	fi
	# the databases, the broker's topics and the buckets go with the hosts
	rm -rf "$dir"
}

status() {
	local h
	for h in "${order[@]}"; do
		printf '%-12s %-14s %s\n' "$h" "$(addr "$h")" "$(pids "$h" | wc -l) processes"
	done
}

case "${1:-}" in
up) up ;;
down) down ;;
kill) known "${2:-}"; kill_host "$2" ;;
start) known "${2:-}"; start_host "$2"; case $2 in frontend-*) await_frontends ;; esac ;;
exec) known "${2:-}"; h=$2; shift 2; exec ip netns exec "$(ns "$h")" "$@" ;;
hosts) for h in "${order[@]}"; do echo "$h $(addr "$h")"; done ;;
env)
	echo "STRAIT_CLUSTER_TEMPORAL=dns:///temporal-frontend:7233"
	echo "STRAIT_CLUSTER_DATA=$(addr data)"
	echo "STRAIT_CLUSTER_NAMESPACE=$namespace"
	;;
status) status ;;
*) echo "usage: $0 up|down|kill HOST|start HOST|exec HOST CMD...|hosts|env|status" >&2; exit 2 ;;
esac
