#!/usr/bin/env bash
# Starts the MariaDB the MySQL tests use, as SeaTunnel's MySQL end-to-end tests expect it: on
# 127.0.0.1:3306 (STRAIT_MYSQL_PORT), the row-based binary log on with full row images and a
# server id (what MySQL-CDC reads), user `test` with password `test` allowed everything
# (REPLICATION SLAVE and REPLICATION CLIENT among it), SeaTunnel's own users st_user_source,
# st_user_sink and mysqluser (password mysqlpw) with the privileges its tests grant them, the
# databases its tests use, and the host names `mysql`, `mysql-e2e` and `mysql_cdc_e2e` mapped
# to 127.0.0.1. Installs Debian's mariadb-server package when no server binary is found. The
# server has its own data folder under the temporary directory and runs as the user that
# owns it (mysql when started as root). A server already answering on the port is used as it
# is if user test can log in.
#
#   scripts/mariadb.sh start | stop | url
set -euo pipefail

port=${STRAIT_MYSQL_PORT:-3306}
dir=${STRAIT_MYSQL_DIR:-${TMPDIR:-/tmp}/strait-mariadb-$port}
data=$dir/data
sock=$dir/mariadb.sock
url="test:test@tcp(127.0.0.1:$port)/"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

# the databases SeaTunnel's MySQL tests create their tables in (connector-cdc-mysql-e2e's
# ddl files and setup.sql, connector-jdbc-e2e's JdbcMysqlIT)
databases=(test mysql_cdc mysql_cdc2 shop emptydb inventory seatunnel)

install() {
	command -v mariadbd >/dev/null 2>&1 && command -v mariadb-install-db >/dev/null 2>&1 && return
	echo "mariadb: installing Debian's mariadb-server package" >&2
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq mariadb-server >/dev/null
	command -v mariadbd >/dev/null 2>&1 || { echo "mariadb: no mariadbd after installing mariadb-server" >&2; exit 1; }
}

# as root the server runs as the mysql user, which owns the data folder
owner_args() {
	if [ "$(id -u)" -eq 0 ]; then echo "--user=mysql"; fi
}

answers() {
	mariadb-admin --no-defaults -h 127.0.0.1 -P "$port" --protocol=tcp -u test -ptest --connect-timeout=3 ping >/dev/null 2>&1
}

# the server answers at all (any user, even one refused)
listening() {
	mariadb-admin --no-defaults -h 127.0.0.1 -P "$port" --protocol=tcp -u nobody --connect-timeout=3 ping 2>&1 | grep -qv "Can't connect"
}

admin_sql() {
	mariadb --no-defaults --socket="$sock" -u root -N -B -e "$1"
}

start() {
	install
	if answers; then
		map_hosts
		return
	fi
	if listening && [ ! -f "$dir/mariadb.pid" ]; then
		stop_debian_service
		if listening; then
			echo "mariadb: a server on 127.0.0.1:$port does not let user test log in; stop it or set STRAIT_MYSQL_PORT" >&2
			exit 1
		fi
	fi
	if [ ! -d "$data/mysql" ]; then
		mkdir -p "$data"
		[ "$(id -u)" -eq 0 ] && chown -R mysql: "$dir"
		chmod 700 "$dir"
		mariadb-install-db --no-defaults $(owner_args) --datadir="$data" --auth-root-authentication-method=normal \
			--skip-test-db >"$dir/install.log" 2>&1 ||
			{ echo "mariadb: mariadb-install-db failed; its log:" >&2; tail -n 20 "$dir/install.log" >&2; exit 1; }
	fi
	if ! answers; then
		launch
	fi
	provision
	map_hosts
}

# launch starts mariadbd in the background and waits until it answers on its socket.
launch() {
	# shellcheck disable=SC2046
	setsid mariadbd --no-defaults $(owner_args) --datadir="$data" --port="$port" --bind-address=127.0.0.1 \
		--socket="$sock" --pid-file="$dir/mariadb.pid" --log-error="$dir/server.log" \
		--log-bin="$data/binlog" --binlog-format=ROW --binlog-row-image=FULL --server-id=1 \
		--log-slave-updates --skip-name-resolve --default-time-zone=+00:00 \
		--character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
		--max-connections=500 --innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=2 \
		--sync-binlog=0 --max-allowed-packet=64M </dev/null >/dev/null 2>&1 &
	local i
	for i in $(seq 1 120); do
		if mariadb-admin --no-defaults --socket="$sock" -u root ping >/dev/null 2>&1; then
			return
		fi
		sleep 0.5
	done
	echo "mariadb: the server did not start; its log:" >&2
	tail -n 20 "$dir/server.log" >&2
	exit 1
}

# provision creates the users and databases the tests log in with (each statement is
# idempotent).
provision() {
	local db sql=""
	for db in "${databases[@]}"; do
		sql+="CREATE DATABASE IF NOT EXISTS \`$db\`;"
	done
	sql+="CREATE USER IF NOT EXISTS 'test'@'%' IDENTIFIED BY 'test';"
	sql+="GRANT ALL PRIVILEGES ON *.* TO 'test'@'%' WITH GRANT OPTION;"
	sql+="CREATE USER IF NOT EXISTS 'mysqluser'@'%' IDENTIFIED BY 'mysqlpw';"
	sql+="GRANT ALL PRIVILEGES ON *.* TO 'mysqluser'@'%';"
	sql+="CREATE USER IF NOT EXISTS 'st_user_source'@'%' IDENTIFIED BY 'mysqlpw';"
	sql+="GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, DROP, LOCK TABLES ON *.* TO 'st_user_source'@'%';"
	sql+="CREATE USER IF NOT EXISTS 'st_user_sink'@'%' IDENTIFIED BY 'mysqlpw';"
	sql+="GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON *.* TO 'st_user_sink'@'%';"
	if ! admin_sql "$sql" >/dev/null; then
		echo "mariadb: could not create the test users and databases (is this server ours? $dir)" >&2
		exit 1
	fi
	answers || { echo "mariadb: user test cannot log in on 127.0.0.1:$port after provisioning" >&2; exit 1; }
}

# Debian's own service (started by the package's install on some machines) takes port 3306
# without the binary log or the test user: the tests stop it
stop_debian_service() {
	if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet mariadb 2>/dev/null; then
		echo "mariadb: stopping Debian's mariadb service, which holds port $port" >&2
		$sudo systemctl stop mariadb || true
	elif [ -x /etc/init.d/mariadb ]; then
		$sudo /etc/init.d/mariadb stop >/dev/null 2>&1 || true
	fi
}

# SeaTunnel's configs reach the database as host mysql (JDBC docs), mysql-e2e (JdbcMysqlIT)
# and mysql_cdc_e2e (MysqlCDCIT)
map_hosts() {
	local h
	for h in mysql mysql-e2e mysql_cdc_e2e; do
		if ! getent hosts "$h" >/dev/null 2>&1; then
			echo "127.0.0.1 $h" | $sudo tee -a /etc/hosts >/dev/null
		fi
	done
}

stop() {
	[ -f "$dir/mariadb.pid" ] || return 0
	local pid
	pid=$(cat "$dir/mariadb.pid")
	mariadb-admin --no-defaults --socket="$sock" -u root shutdown >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
	local i
	for i in $(seq 1 120); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.5
	done
	echo "mariadb: the server (pid $pid) did not stop" >&2
	exit 1
}

case "${1:-start}" in
start) start ;;
stop) stop ;;
url) echo "$url" ;;
*) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
