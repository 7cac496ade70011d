#!/usr/bin/env bash
# Strait's images and the test of a whole cluster in containers, with podman.
#
#   scripts/containers.sh install   podman, podman-compose and runc from Debian when missing
#   scripts/containers.sh image     static binaries (CGO_ENABLED=0) and the images strait and
#                                   strait-dev (docker/Dockerfile), tagged <version> and latest
#   scripts/containers.sh test      the images, then docker/compose.test.yaml (Temporal, two
#                                   workers, three runners, the gateway) on a network of its
#                                   own: a job submitted through the gateway with curl, the
#                                   container of the runner hosting it killed (SIGKILL), every
#                                   row checked once; then everything it made is removed
#   scripts/containers.sh config    docker/compose.yaml and docker/compose.test.yaml validated,
#                                   the Grafana dashboard's metric names checked
#
# podman reads docker/containers.conf (CONTAINERS_CONF): runc, no default ulimits, cgroupfs.
# Nothing is pulled: the images are FROM scratch with files copied from this host.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
export CONTAINERS_CONF=${CONTAINERS_CONF:-$root/docker/containers.conf}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
GO=${GO:-go}
ctx=$root/bin/image
version=${STRAIT_VERSION:-$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo dev)}
# image tags: podman names local images localhost/<name>
image=${STRAIT_IMAGE:-strait}
dev_image=${STRAIT_DEV_IMAGE:-strait-dev}
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

say() { echo "containers: $*" >&2; }
fail() {
	say "FAILED: $*"
	exit 1
}

install() {
	local missing=()
	command -v podman >/dev/null 2>&1 || missing+=(podman)
	command -v podman-compose >/dev/null 2>&1 || missing+=(podman-compose)
	command -v runc >/dev/null 2>&1 || [ -x /usr/sbin/runc ] || missing+=(runc)
	command -v curl >/dev/null 2>&1 || missing+=(curl)
	[ ${#missing[@]} -eq 0 ] && return
	say "installing Debian's ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# stage fills bin/image: the two binaries and the root file system both images share.
stage() {
	rm -rf "$ctx"
	mkdir -p "$ctx/rootfs/etc/ssl/certs" "$ctx/rootfs/usr/share" "$ctx/rootfs/tmp" "$ctx/data"
	local ldflags="-s -w -X main.version=$version"
	say "building the static binaries ($version)"
	(cd "$root" && CGO_ENABLED=0 $GO build -trimpath -tags noembed -ldflags "$ldflags" -o "$ctx/strait" ./cmd/strait)
	(cd "$root" && CGO_ENABLED=0 $GO build -trimpath -ldflags "$ldflags" -o "$ctx/strait-dev" ./cmd/strait)
	[ -f /etc/ssl/certs/ca-certificates.crt ] || fail "no /etc/ssl/certs/ca-certificates.crt on this host (Debian's ca-certificates)"
	[ -d /usr/share/zoneinfo ] || fail "no /usr/share/zoneinfo on this host (Debian's tzdata)"
	cp /etc/ssl/certs/ca-certificates.crt "$ctx/rootfs/etc/ssl/certs/"
	cp -a /usr/share/zoneinfo "$ctx/rootfs/usr/share/"
	rm -rf "$ctx/rootfs/usr/share/zoneinfo/right" # leap-second variants no Go program reads
	printf 'root:x:0:0:root:/root:/sbin/nologin\nstrait:x:10001:10001:Strait:/var/lib/strait:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
	printf 'root:x:0:\nstrait:x:10001:\n' >"$ctx/rootfs/etc/group"
	chmod 1777 "$ctx/rootfs/tmp"
	touch "$ctx/data/.keep"
}

build_image() { # target name
	podman build --quiet --layers=false --format docker -f "$root/docker/Dockerfile" --target "$1" \
		--build-arg VERSION="$version" \
		--build-arg REVISION="$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)" \
		--build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		-t "$2:$version" -t "$2:latest" "$ctx" >/dev/null
}

# forget_old_images removes the tags of earlier builds (each commit is a version) and the
# images a rebuild left without a tag, so that rebuilding in a loop does not fill the disk;
# STRAIT_KEEP_IMAGES=1 keeps them.
forget_old_images() {
	[ "${STRAIT_KEEP_IMAGES:-}" = 1 ] && return
	local ref
	for ref in $(podman images --format '{{.Repository}}:{{.Tag}}' --filter "reference=localhost/$image" --filter "reference=localhost/$dev_image"); do
		case $ref in *":$version" | *":latest" | "<none>"*) continue ;; esac
		podman rmi "$ref" >/dev/null 2>&1 || true
	done
	podman image prune -f --filter label=org.opencontainers.image.vendor=Strait >/dev/null
}

images() {
	install
	stage
	say "building $image:$version and $dev_image:$version with podman"
	build_image strait "$image"
	build_image strait-dev "$dev_image"
	forget_old_images
	podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E "/($image|$dev_image):$version " >&2
}

# validate checks a compose file as a compose implementation reads it: `podman-compose
# config` where podman-compose has it (1.1 and later), else Debian's docker-compose, whose
# `config` needs no engine and checks the compose schema (podman-compose 1.0, Debian 12's,
# has no config command), and a dry run of podman-compose 1.0.
validate() { # file
	if podman-compose --help 2>/dev/null | grep -qw config; then
		(cd "$root/docker" && podman-compose -f "$1" config >/dev/null)
		return
	fi
	if ! command -v docker-compose >/dev/null 2>&1; then
		say "installing Debian's docker-compose to validate compose files"
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq docker-compose >/dev/null
	fi
	(cd "$root/docker" && docker-compose -f "$1" config -q) || return 1
	# and podman-compose 1.0 reads it (a dry run runs nothing)
	(cd "$root/docker" && podman-compose --dry-run -f "$1" ps >/dev/null)
}

# dashboard_metrics checks that every Strait metric the Grafana dashboard and the alert rules
# query is one Strait exports (a misspelt name is an empty panel, not an error): the
# monitoring package's tests read the names from the collectors themselves.
dashboard_metrics() {
	(cd "$root" && GOTOOLCHAIN=local go test -count=1 -run 'TestDashboardReadsExportedMetrics|TestAlertRules' ./monitoring/ >/dev/null)
}

config() {
	install
	validate compose.yaml || fail "docker/compose.yaml does not validate"
	validate compose.test.yaml || fail "docker/compose.test.yaml does not validate"
	[ -f "$root/monitoring/prometheus/alerts.yaml" ] || fail "no monitoring/prometheus/alerts.yaml (compose.yaml mounts it into Prometheus)"
	dashboard_metrics || fail "the Grafana dashboard queries metrics Strait does not export"
	say "docker/compose.yaml and docker/compose.test.yaml validate; the dashboard's metrics exist"
}

# ---- the cluster test -------------------------------------------------------------------

compose_file=$root/docker/compose.test.yaml
project=strait-ct-$$
shared=
rows_per_reader=3000
readers=2

compose() {
	(cd "$root/docker" && STRAIT_VERSION=$version STRAIT_SHARED=$shared STRAIT_TEMPORAL_PORT=$temporal_port \
		STRAIT_GATEWAY_PORT=$gateway_port podman-compose -p "$project" -f "$compose_file" "$@")
}

container() { echo "${project}_$1_1"; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# json_get reads a value of JSON on stdin with a Python expression over j.
json_get() { python3 -c "import json,sys; j=json.load(sys.stdin); print($1)" 2>/dev/null; }

# in_cluster runs a strait client command inside the gateway's container, on the network.
in_cluster() { podman exec "$(container gateway)" strait "$@" --address temporal:7233; }

# eventually polls cond (a command) every half second until it succeeds or the deadline.
eventually() { # seconds what cond...
	local within=$1 what=$2
	shift 2
	local deadline=$((SECONDS + within))
	until "$@"; do
		[ $SECONDS -lt $deadline ] || fail "$what: not within ${within}s"
		sleep 0.5
	done
}

cleanup() {
	local rc=$?
	if [ $rc -ne 0 ] && [ -n "${temporal_port:-}" ]; then
		for svc in temporal worker-1 worker-2 runner-1 runner-2 runner-3 gateway; do
			echo "--- $svc (last lines)" >&2
			podman logs --tail 30 "$(container "$svc")" >&2 2>&1 || true
		done
		[ -n "${job:-}" ] && { echo "--- job $job" >&2; in_cluster job status "$job" >&2 || true; }
		[ -n "$shared" ] && { echo "--- output files (rows)" >&2; wc -l "$shared"/out/* >&2 2>&1 || true; }
	fi
	say "removing the containers, network and volumes of $project"
	compose down -v >/dev/null 2>&1 || true
	podman ps -aq --filter "label=io.podman.compose.project=$project" | xargs -r podman rm -f >/dev/null 2>&1 || true
	podman network rm -f "${project}_default" >/dev/null 2>&1 || true
	podman volume ls -q --filter "label=io.podman.compose.project=$project" | xargs -r podman volume rm -f >/dev/null 2>&1 || true
	[ -n "$shared" ] && rm -rf "$shared"
	exit $rc
}

healthy() { podman healthcheck run "$(container "$1")" >/dev/null 2>&1; }

alive_runners() {
	local n
	n=$(in_cluster cluster status --json 2>/dev/null | json_get 'sum(1 for r in j.get("runners") or [] if r["state"]=="ALIVE")') || return 1
	[ "$n" -eq 3 ]
}

# the job config: FakeSource's random 32-letter strings make every row a distinct line;
# 30 splits a second apart per reader keep the job running for half a minute
job_config() {
	cat <<CONF
env {
  job.mode = "BATCH"
  job.name = "containers-kill-test"
  parallelism = $readers
  checkpoint.interval = 2000
}
source {
  FakeSource {
    plugin_output = "fake"
    row.num = $rows_per_reader
    split.num = 30
    split.read-interval = 1000
    string.length = 32
    schema = { fields { id = string, n = bigint } }
  }
}
sink {
  LocalFile {
    plugin_input = "fake"
    path = "/var/lib/strait/shared/out"
    tmp_path = "/var/lib/strait/shared/staging"
    file_format_type = "text"
    field_delimiter = ","
    is_enable_transaction = true
  }
}
CONF
}

status_json() { in_cluster job status "$job" --json 2>/dev/null; }

# rows prints the output's rows, one a line (awk also ends a file's last row that has no
# row delimiter after it).
rows() { awk '{ print }' "$shared"/out/* 2>/dev/null; }

committed_lines() { rows | wc -l; }

running_with_rows() {
	local st
	st=$(status_json | json_get 'j["state"]') || return 1
	case $st in
	RUNNING) [ "$(committed_lines)" -gt 0 ] ;;
	FINISHED | FAILED | CANCELED) fail "job $job ended $st before a runner could be killed" ;;
	*) return 1 ;;
	esac
}

job_over() {
	local st
	st=$(status_json | json_get 'j["state"]') || return 1
	case $st in
	FINISHED) return 0 ;;
	FAILED | CANCELED) fail "job $job ended $st: $(status_json | json_get 'j.get("error","")')" ;;
	*) return 1 ;;
	esac
}

cluster_test() {
	local started=$SECONDS
	shared=$(mktemp -d "${TMPDIR:-/tmp}/strait-containers.XXXXXX")
	chmod 0777 "$shared" # written by the containers' strait user
	temporal_port=$(free_port)
	gateway_port=$(free_port)
	trap cleanup EXIT
	config
	say "starting $project: Temporal, two workers, three runners, the gateway"
	compose up -d >/dev/null 2>&1 || fail "podman-compose up"
	for svc in temporal worker-1 worker-2 runner-1 runner-2 runner-3 gateway; do
		eventually 180 "$svc healthy (strait health)" healthy "$svc"
	done
	eventually 120 "three runners ALIVE in the cluster status" alive_runners
	admin_setup_twice
	say "cluster up in $((SECONDS - started))s; submitting through the gateway on 127.0.0.1:$gateway_port"

	local resp
	resp=$(job_config | curl -sS --fail-with-body -X POST -H 'Content-Type: text/plain' --data-binary @- \
		"http://127.0.0.1:$gateway_port/submit-job?format=hocon") || fail "submit-job: $resp"
	job=$(echo "$resp" | json_get 'j["jobId"]') || fail "submit-job answered $resp"
	say "job $job submitted"
	eventually 180 "job $job RUNNING with committed rows" running_with_rows
	local victim
	victim=$(status_json | json_get '",".join(sorted({r for p in j["pipelines"] for r in p.get("runners") or []}))')
	case $victim in
	runner-1 | runner-2 | runner-3) ;;
	*) fail "job $job runs on '$victim', want one of the three runners" ;;
	esac
	# rows committed mean a completed checkpoint, in the store strait.yaml names
	find "$shared/checkpoints" -name manifest.json 2>/dev/null | grep -q . ||
		fail "no checkpoint manifest under the shared checkpoints folder (docker/strait.yaml's storage.root)"
	say "job $job runs on $victim with $(committed_lines) rows committed: podman kill -s KILL $(container "$victim")"
	podman kill -s KILL "$(container "$victim")" >/dev/null || fail "podman kill $(container "$victim")"
	eventually 600 "job $job FINISHED after $victim was killed" job_over

	local final restarts now_on
	final=$(status_json)
	restarts=$(echo "$final" | json_get 'sum(p.get("restarts",0) for p in j["pipelines"])')
	now_on=$(echo "$final" | json_get '",".join(sorted({r for p in j["pipelines"] for r in p.get("runners") or []}))')
	[ "$restarts" -ge 1 ] || fail "job $job FINISHED without restarting its pipeline after $victim was killed"
	case ",$now_on," in *",$victim,"*) fail "job $job finished on $now_on, the killed $victim among them" ;; esac
	check_rows
	say "PASSED in $((SECONDS - started))s: job $job ran on $victim, was restored ($restarts restart) on $now_on, every one of $((readers * rows_per_reader)) rows once"
}

# admin_setup_twice runs `strait admin setup` of a new namespace in the cluster twice: the
# first creates it and registers the search attributes, the second changes nothing.
admin_setup_twice() {
	local ns=strait-containers out
	out=$(podman exec "$(container gateway)" strait admin setup --address temporal:7233 --namespace $ns --retention 3d 2>&1) ||
		fail "strait admin setup: $out"
	case $out in *"namespace $ns: created, retention 72h0m0s"*"search attributes added: "*) ;; *) fail "first strait admin setup: $out" ;; esac
	out=$(podman exec "$(container gateway)" strait admin setup --address temporal:7233 --namespace $ns --retention 3d 2>&1) ||
		fail "second strait admin setup: $out"
	case $out in *"namespace $ns: in place"*"search attributes: in place"*) ;; *) fail "second strait admin setup changed something: $out" ;; esac
	say "strait admin setup of namespace $ns: created, then in place"
}

# check_rows: every row the readers emitted is in the output once, and nothing is left staged.
check_rows() {
	local want=$((readers * rows_per_reader)) total distinct staged
	total=$(rows | wc -l)
	distinct=$(rows | sort -u | wc -l)
	[ "$total" -eq "$want" ] || fail "$total rows in the output, want $want"
	[ "$distinct" -eq "$want" ] || fail "$((total - distinct)) rows written more than once"
	if ! awk -F, -v n=0 'NF != 2 || length($1) != 32 { bad++ } END { exit bad > 0 }' "$shared"/out/*; then
		fail "rows in the output that are not <32 letters>,<number>"
	fi
	staged=$(find "$shared/staging" -type f 2>/dev/null | wc -l)
	[ "$staged" -eq 0 ] || fail "the FINISHED job left $staged staged files"
}

case "${1:-}" in
install) install ;;
image) images ;;
config) config ;;
test)
	images
	cluster_test
	;;
*)
	echo "usage: $0 install|image|config|test" >&2
	exit 2
	;;
esac
