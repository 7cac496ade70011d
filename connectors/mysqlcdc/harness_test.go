package mysqlcdc

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

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
		t.Skipf("%s is not set: start MariaDB with scripts/mariadb.sh start and set %s=test:test@tcp(127.0.0.1:3306)/", testEnv, testEnv)
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

// harness runs a source's enumerator and readers in the test's goroutine, as the task
// runner does.
type harness struct {
	t         *testing.T
	src       *Source
	ec        *conntest.EnumContext
	en        connector.Enumerator
	readers   []connector.Reader
	delivered []int
	noMore    []bool
	done      []bool
	requests  []int
	batch     int
	rows      []row.Row
	// changes are the schema changes the readers passed on, each with the number of rows
	// read before it
	changes []seenChange
}

// seenChange is a schema change and how many rows came before it.
type seenChange struct {
	after int
	c     *connector.SchemaChange
}

func newHarness(t *testing.T, src *Source, p int, enumState []byte, readerStates [][]connector.Split) *harness {
	t.Helper()
	h := &harness{t: t, src: src, ec: conntest.NewEnumContext(p), batch: 64,
		delivered: make([]int, p), noMore: make([]bool, p), done: make([]bool, p)}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	en, err := src.CreateEnumerator(h.ec, enumState)
	if err != nil {
		t.Fatal(err)
	}
	h.en = en
	for i := 0; i < p; i++ {
		r, err := src.CreateReader(connector.ReaderContext{Index: i, Parallelism: p, Job: connector.Job{ID: 1},
			RequestSplit: func() { h.requests = append(h.requests, i) }})
		if err != nil {
			t.Fatal(err)
		}
		if readerStates != nil && len(readerStates[i]) > 0 {
			r.AddSplits(readerStates[i])
		}
		h.readers = append(h.readers, r)
	}
	t.Cleanup(h.close)
	if err := en.Run(ctx); err != nil {
		t.Fatalf("enumerator: %v", err)
	}
	return h
}

func (h *harness) close() {
	for _, r := range h.readers {
		r.Close()
	}
	h.readers = nil
}

func (h *harness) step(ctx context.Context) error {
	for _, r := range h.requests {
		if err := h.en.HandleSplitRequest(r); err != nil {
			return err
		}
	}
	h.requests = nil
	for i, r := range h.readers {
		if a := h.ec.Assigned[i]; len(a) > h.delivered[i] {
			r.AddSplits(a[h.delivered[i]:])
			h.delivered[i] = len(a)
		}
		if h.ec.NoMore[i] && !h.noMore[i] {
			h.noMore[i] = true
			r.NoMoreSplits()
		}
		if h.done[i] {
			continue
		}
		b := row.NewBatch(h.batch)
		done, err := r.PollNext(ctx, b)
		for j := range b.Rows {
			h.rows = append(h.rows, b.Rows[j].Clone())
		}
		b.Release()
		if sc, ok := r.(connector.SchemaChangeReader); ok {
			for _, c := range sc.SchemaChanges() {
				h.changes = append(h.changes, seenChange{after: len(h.rows), c: c})
			}
		}
		if err != nil {
			return err
		}
		h.done[i] = done
	}
	return nil
}

func (h *harness) until(what string, timeout time.Duration, cond func() bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for !cond() {
		if err := h.step(ctx); err != nil {
			h.t.Fatalf("%s: %v", what, err)
		}
		if ctx.Err() != nil {
			h.t.Fatalf("%s: not within %s (%d rows)", what, timeout, len(h.rows))
		}
	}
}

func (h *harness) untilErr(timeout time.Duration) error {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for ctx.Err() == nil {
		if err := h.step(ctx); err != nil {
			return err
		}
	}
	h.t.Fatalf("no error within %s", timeout)
	return nil
}

func (h *harness) allDone() bool {
	for _, d := range h.done {
		if !d {
			return false
		}
	}
	return true
}

func (h *harness) checkpoint(id int64) ([]byte, [][]connector.Split) {
	h.t.Helper()
	var states [][]connector.Split
	for _, r := range h.readers {
		st, err := r.SnapshotState(id)
		if err != nil {
			h.t.Fatal(err)
		}
		states = append(states, st)
	}
	es, err := h.en.Snapshot(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return es, states
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
