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

// New creates a database named <prefix>_<the test's name>_<random>, dropped when the test
// ends; params are the session variables of its connections (time_zone...).
func New(t testing.TB, prefix string, params map[string]string) *DB {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Fatalf("%s is not set: make mariadb starts the test server (make test sets %s=test:test@tcp(127.0.0.1:3306)/)", Env, Env)
	}
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
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
