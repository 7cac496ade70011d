package mysqlcdc

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// testEnv names the variable holding the test server's DSN (make test sets it; see
// scripts/mariadb.sh).
const testEnv = "STRAIT_TEST_MYSQL"

// testDB is a database of the test's own on the test server.
type testDB struct {
	*sql.DB
	name string
	addr string
	user string
	pass string
}

// newTestDB creates a database named after the test (dropped when it ends); without the
// variable the test skips.
func newTestDB(t testing.TB) *testDB {
	t.Helper()
	dsn := os.Getenv(testEnv)
	if dsn == "" {
		t.Fatalf("%s is not set: make mariadb starts the test server (make test sets %s=test:test@tcp(127.0.0.1:3306)/)", testEnv, testEnv)
	}
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("%s: %v", testEnv, err)
	}
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	name := strings.ToLower(strings.NewReplacer("/", "_", " ", "_", "-", "_").Replace(t.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	name = "cdc_" + name + "_" + hex.EncodeToString(suffix)
	admin, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("CREATE DATABASE " + quoteIdent(name)); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	admin.Close()
	mc.DBName = name
	mc.MultiStatements = true
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE " + quoteIdent(name)); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		db.Close()
	})
	return &testDB{DB: db, name: name, addr: mc.Addr, user: mc.User, pass: mc.Passwd}
}

func (d *testDB) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := d.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// conf is a MySQL-CDC block reading the test database's tables, with extra options.
func (d *testDB) conf(tables string, extra string) string {
	var names []string
	for _, t := range strings.Split(tables, ",") {
		names = append(names, `"`+d.name+"."+strings.TrimSpace(t)+`"`)
	}
	return `base-url = "jdbc:mysql://` + d.addr + `/` + d.name + `"
username = "` + d.user + `"
password = "` + d.pass + `"
table-names = [` + strings.Join(names, ", ") + `]
` + extra
}

func newTestSource(t testing.TB, conf string, mode connector.JobMode) (*Source, error) {
	t.Helper()
	return newTestSourceP(t, conf, mode, 1)
}

// newTestSourceP builds a source of a job of parallelism p.
func newTestSourceP(t testing.TB, conf string, mode connector.JobMode, p int) (*Source, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(conf), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse %q: %v", conf, err)
	}
	o := config.New(root, "source[0] MySQL-CDC")
	build, _, ok := connector.LookupSource("MySQL-CDC")
	if !ok {
		t.Fatal("MySQL-CDC is not registered")
	}
	s, err := build(&connector.SourceContext{Context: context.Background(), Options: o, Job: connector.Job{ID: 1, Mode: mode}, Parallelism: p})
	if err != nil {
		return nil, err
	}
	return s.(*Source), nil
}

func mustSource(t testing.TB, conf string, mode connector.JobMode) *Source {
	t.Helper()
	s, err := newTestSource(t, conf, mode)
	if err != nil {
		t.Fatalf("NewSource: %v", err)
	}
	return s
}

// newHarness steps the source's enumerator and p readers in the test's goroutine
// (conntest.Harness), 64 rows a poll.
func newHarness(t *testing.T, src *Source, p int, enumState []byte, readerStates [][]connector.Split) *conntest.Harness {
	t.Helper()
	return conntest.NewHarness(t, src, p, 64, enumState, readerStates)
}

// show formats rows as kind and fields, for comparisons.
func show(rows []row.Row) []string {
	var out []string
	for _, r := range rows {
		var f []string
		for _, v := range r.Fields {
			f = append(f, v.String())
		}
		out = append(out, r.Kind.Short()+" "+strings.Join(f, ","))
	}
	return out
}
