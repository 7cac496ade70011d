package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// mariadbFlags are the server settings scripts/mariadb.sh starts the shared test server
// with (its launch function), less the port, folders and binary log, which a private
// server sets itself: keep the two in step.
var mariadbFlags = []string{
	"--bind-address=127.0.0.1", "--skip-name-resolve", "--default-time-zone=+00:00",
	"--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
	"--max-connections=500", "--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=2",
	"--sync-binlog=0", "--max-allowed-packet=64M",
}

// mariadbLogFlags are scripts/mariadb.sh's binary log settings, which MySQL-CDC needs.
var mariadbLogFlags = []string{"--binlog-format=ROW", "--binlog-row-image=FULL", "--server-id=1", "--log-slave-updates"}

// privateMariaDB is a MariaDB server of one test's own, in a folder under t.TempDir() and
// on a free port, so that a test may stop and start it while other tests use the shared
// server on 3306. User test (password test) may do everything.
type privateMariaDB struct {
	dir, sock string
	port      int
	logBin    bool
	cmd       *exec.Cmd
	exited    chan struct{}
}

// startPrivateMariaDB initialises a data folder and starts a server on it: with the
// row-based binary log as scripts/mariadb.sh starts the shared one when logBin is set,
// without any binary log when it is not. It is stopped when the test ends.
func startPrivateMariaDB(t *testing.T, logBin bool) *privateMariaDB {
	t.Helper()
	if _, err := exec.LookPath("mariadbd"); err != nil {
		t.Fatalf("mariadbd is not installed (scripts/mariadb.sh start installs Debian's mariadb-server): %v", err)
	}
	m := &privateMariaDB{dir: t.TempDir(), port: freePort(t), logBin: logBin}
	m.sock = filepath.Join(m.dir, "mariadb.sock")
	install := exec.Command("mariadb-install-db", "--no-defaults", "--user="+osUser(), "--datadir="+m.data(),
		"--auth-root-authentication-method=normal", "--skip-test-db")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, tail(string(out), 20))
	}
	m.start(t)
	m.admin(t, "CREATE USER 'test'@'%' IDENTIFIED BY 'test'; GRANT ALL PRIVILEGES ON *.* TO 'test'@'%' WITH GRANT OPTION")
	t.Cleanup(func() { m.stop(t) })
	return m
}

// osUser is the user the server runs as: the one running the test (root included, which
// mariadbd accepts only when told so).
func osUser() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return strconv.Itoa(os.Geteuid())
}

func (m *privateMariaDB) data() string { return filepath.Join(m.dir, "data") }

// dsn is go-sql-driver's DSN for user test, without a database.
func (m *privateMariaDB) dsn() string { return fmt.Sprintf("test:test@tcp(127.0.0.1:%d)/", m.port) }

// hostPort is where the server listens.
func (m *privateMariaDB) hostPort() string { return fmt.Sprintf("127.0.0.1:%d", m.port) }

// start launches the server on its data folder and waits until it answers on its socket.
func (m *privateMariaDB) start(t *testing.T) {
	t.Helper()
	args := append([]string{"--no-defaults", "--user=" + osUser(), "--datadir=" + m.data(), "--port=" + strconv.Itoa(m.port),
		"--socket=" + m.sock, "--pid-file=" + filepath.Join(m.dir, "mariadb.pid"), "--log-error=" + filepath.Join(m.dir, "server.log")},
		mariadbFlags...)
	if m.logBin {
		args = append(append(args, "--log-bin="+filepath.Join(m.data(), "binlog")), mariadbLogFlags...)
	} else {
		args = append(args, "--skip-log-bin")
	}
	m.cmd = exec.Command("mariadbd", args...)
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("start mariadbd: %v", err)
	}
	m.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) { _ = cmd.Wait(); close(exited) }(m.cmd, m.exited)
	eventually(t, 60*time.Second, "the private MariaDB answers", func() bool {
		select {
		case <-m.exited:
			t.Fatalf("mariadbd exited; its log:\n%s", m.log())
		default:
		}
		return exec.Command("mariadb-admin", "--no-defaults", "--socket="+m.sock, "-u", "root", "ping").Run() == nil
	})
}

// stop shuts the server down cleanly and waits until its process is gone.
func (m *privateMariaDB) stop(t *testing.T) {
	t.Helper()
	if m.cmd == nil {
		return
	}
	select {
	case <-m.exited:
	default:
		if err := exec.Command("mariadb-admin", "--no-defaults", "--socket="+m.sock, "-u", "root", "shutdown").Run(); err != nil {
			_ = m.cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case <-m.exited:
		case <-time.After(60 * time.Second):
			_ = m.cmd.Process.Kill()
			<-m.exited
			t.Errorf("the private MariaDB did not stop within 60 s; killed")
		}
	}
	m.cmd = nil
}

func (m *privateMariaDB) log() string {
	b, _ := os.ReadFile(filepath.Join(m.dir, "server.log"))
	return tail(string(b), 20)
}

// admin runs statements as root on the socket.
func (m *privateMariaDB) admin(t *testing.T, sql string) {
	t.Helper()
	out, err := exec.Command("mariadb", "--no-defaults", "--socket="+m.sock, "-u", "root", "-e", sql).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", sql, err, out)
	}
}

// mysqlDatabase is a database of a test's own on a MariaDB server (dsn without a database),
// dropped when the test ends.
type mysqlDatabase struct {
	*sql.DB
	name, hostPort string
}

// sharedMariaDB is the DSN of the shared test server (STRAIT_TEST_MYSQL, which make test
// sets once scripts/mariadb.sh has started it).
func sharedMariaDB(t *testing.T) string {
	t.Helper()
	return testServer(t, "STRAIT_TEST_MYSQL", "MariaDB (scripts/mariadb.sh)")
}

// newMySQLDatabase creates a database named name on the server of dsn.
func newMySQLDatabase(t *testing.T, dsn, name string) *mysqlDatabase {
	t.Helper()
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("mysql dsn %q: %v", dsn, err)
	}
	mc.DBName, mc.MultiStatements = "", true
	admin, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`; CREATE DATABASE `"+name+"`"); err != nil {
		t.Fatalf("create database %s on %s: %v", name, mc.Addr, err)
	}
	mc.DBName = name
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	d := &mysqlDatabase{DB: db, name: name, hostPort: mc.Addr}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
		db.Close()
	})
	return d
}

// exec runs statements, failing the test on an error.
func (d *mysqlDatabase) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := d.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// jdbcURL is the database's JDBC url.
func (d *mysqlDatabase) jdbcURL() string { return "jdbc:mysql://" + d.hostPort + "/" + d.name }

// script runs a file of SQL statements as root, as the mysql client runs it, with the
// replacements of a strings.Replacer made in the text it runs.
func (m *privateMariaDB) script(t *testing.T, path string, r *strings.Replacer) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("mariadb", "--no-defaults", "--socket="+m.sock, "-u", "root")
	cmd.Stdin = strings.NewReader(r.Replace(string(b)))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, out)
	}
}

// mysqlQueryRows reads a query's rows, each as its values' text joined by "|" (NULL for null), for
// comparing a sink table with its source row by row.
func mysqlQueryRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = "NULL"
			if v != nil {
				parts[i] = fmt.Sprintf("%q", v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
