# Functions the server scripts share; they source it after setting `set -euo pipefail`.

# stop_pid stops the process whose id the file $1 holds, waits up to $2 tenths of a second
# for it to exit, and removes the file
stop_pid() {
	local file=$1 tries=$2
	[ -f "$file" ] || return 0
	local pid
	pid=$(cat "$file")
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for _ in $(seq 1 "$tries"); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -f "$file"
}

# map_host maps the host name $1 to 127.0.0.1 in /etc/hosts when it does not resolve
map_host() {
	if ! getent hosts "$1" >/dev/null 2>&1; then
		local sudo=
		[ "$(id -u)" -eq 0 ] || sudo=sudo
		echo "127.0.0.1 $1" | $sudo tee -a /etc/hosts >/dev/null
	fi
}

# refuse_running exits when the process whose id the file $1 holds runs: it holds the
# folder $2 but its server does not answer on $3; $4 names the server in the message
refuse_running() {
	if [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; then
		echo "$4: process $(cat "$1") holds $2 but does not answer on $3" >&2
		exit 1
	fi
}

# await_answer waits up to $2 tenths of a second for the script's `answers` while the
# process whose id the file $1 holds runs; when it does not answer, it prints the message
# $3 and the tail of the log $4 and exits
await_answer() {
	local pidfile=$1 tries=$2 what=$3 log=$4
	for _ in $(seq 1 "$tries"); do
		answers && return 0
		kill -0 "$(cat "$pidfile")" 2>/dev/null || break
		sleep 0.1
	done
	echo "$what; its log:" >&2
	tail -n 20 "$log" >&2
	exit 1
}
