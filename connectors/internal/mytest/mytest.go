// Package mytest gives the tests of the MySQL connectors (Jdbc's MySQL driver, MySQL-CDC) a
// database of their own on the test server STRAIT_TEST_MYSQL names, which `make test`
// starts (scripts/mariadb.sh) and sets. Without the variable a test fails, naming the make
// target that starts the server.
package mytest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Env names the environment variable holding the test server's DSN, e.g.
// test:test@tcp(127.0.0.1:3306)/.
const Env = "STRAIT_TEST_MYSQL"

// DB is a test's database and a handle on it (multiple statements allowed in one Exec).
type DB struct {
	*sql.DB
	Name string // the database
	Addr string // host:port
	User string
	Pass string
}

// Server is the configuration of a connection to the test server, as Env gives it; a
// variable not set or not a DSN fails the test.
func Server(t testing.TB) *mysql.Config {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Fatalf("%s is not set: make mariadb starts the test server (make test sets %s=test:test@tcp(127.0.0.1:3306)/)", Env, Env)
	}
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	return mc
}

// New creates a database named <prefix>_<the test's name>_<random>, dropped when the test
// ends; params are the session variables of its connections (time_zone...).
func New(t testing.TB, prefix string, params map[string]string) *DB {
	t.Helper()
	mc := Server(t)
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	name := strings.ToLower(strings.NewReplacer("/", "_", " ", "_", "-", "_").Replace(t.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	name = prefix + "_" + name + "_" + hex.EncodeToString(suffix)
	mc.MultiStatements = true
	admin, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + Quote(name)); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	admin.Close()
	mc.DBName = name
	mc.Params = params
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE " + Quote(name)); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		db.Close()
	})
	return &DB{DB: db, Name: name, Addr: mc.Addr, User: mc.User, Pass: mc.Passwd}
}

// Run executes the statements in order, failing the test at the first that fails.
func (d *DB) Run(t testing.TB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := d.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// Quote quotes a MySQL identifier.
func Quote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// LogEnd is the end of the test server's binary log (file and position), where the next
// transaction goes, as db reads it.
func LogEnd(t testing.TB, db *sql.DB) (string, uint32) {
	t.Helper()
	rows, err := db.Query("SHOW MASTER STATUS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		t.Fatal("SHOW MASTER STATUS is empty: the test server writes no binary log")
	}
	var file string
	var pos uint32
	rest := make([]any, len(cols)-2)
	for i := range rest {
		rest[i] = new(any)
	}
	if err := rows.Scan(append([]any{&file, &pos}, rest...)...); err != nil {
		t.Fatal(err)
	}
	return file, pos
}
