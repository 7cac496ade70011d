package postgrescdc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// testPostgresEnv names the environment variable holding the URL of the PostgreSQL server
// the tests use, e.g. postgres://test:test@127.0.0.1:5432/test?sslmode=disable. The server
// needs wal_level = logical and a user allowed to replicate.
const testPostgresEnv = "STRAIT_TEST_POSTGRES"

// testDB is a test's own schema in the test database, and a replication slot and
// publication name of its own.
type testDB struct {
	url      string // base-url: jdbc:postgresql://host:port/database
	user     string
	password string
	database string
	schema   string
	slot     string // also the prefix of the publication, <slot>_publication
	conn     *pgx.Conn
	cfg      *pgx.ConnConfig
}

// newTestDB skips the test when STRAIT_TEST_POSTGRES is unset. It creates a schema named
// after the test, dropped with CASCADE when the test ends, and drops the test's slot and
// publication then too (a slot left behind keeps the server's log forever).
func newTestDB(t testing.TB) *testDB {
	t.Helper()
	dsn := os.Getenv(testPostgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: start PostgreSQL with scripts/postgres.sh start and set %s to its URL, e.g. postgres://test:test@127.0.0.1:5432/test?sslmode=disable",
			testPostgresEnv, testPostgresEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("%s: %v", testPostgresEnv, err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to %s: %v", testPostgresEnv, err)
	}
	name := testName(t.Name())
	db := &testDB{user: cfg.User, password: cfg.Password, database: cfg.Database, schema: name, slot: name, conn: conn, cfg: cfg}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgwire.QuoteIdent(name)); err != nil {
		conn.Close(ctx)
		t.Fatalf("create schema %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn.IsClosed() {
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Errorf("clean up: %v", err)
				return
			}
			conn = c
		}
		db.conn = conn
		db.dropSlot(t)
		if _, err := conn.Exec(ctx, "DROP PUBLICATION IF EXISTS "+pgwire.QuoteIdent(name+"_publication")); err != nil {
			t.Errorf("drop publication: %v", err)
		}
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgwire.QuoteIdent(name)+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
		conn.Close(ctx)
	})
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgwire.QuoteIdent(name)); err != nil {
		t.Fatalf("set search_path: %v", err)
	}
	host := cfg.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	q := url.Values{}
	if mode := testSSLMode(dsn); mode != "" {
		q.Set("sslmode", mode)
	}
	db.url = "jdbc:postgresql://" + host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + cfg.Database
	if len(q) > 0 {
		db.url += "?" + q.Encode()
	}
	return db
}

// dropSlot drops the test's replication slot, ending the connection that streams from it.
func (db *testDB) dropSlot(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for attempt := 0; ; attempt++ {
		_, err := db.conn.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, db.slot)
		if err == nil {
			_, err = db.conn.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, db.slot)
		}
		if err == nil {
			return
		}
		if attempt == 50 {
			t.Errorf("drop replication slot %s: %v", db.slot, err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exec runs statements in the test's schema.
func (db *testDB) exec(t testing.TB, sql string) {
	t.Helper()
	if _, err := db.conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// table is the name table-names takes for a table of the test's schema.
func (db *testDB) table(name string) string {
	return db.database + "." + db.schema + "." + name
}

// options are the options of a source capturing tables, plus extra lines.
func (db *testDB) options(tables []string, extra string) string {
	var names []string
	for _, n := range tables {
		names = append(names, strconv.Quote(db.table(n)))
	}
	return "base-url = " + strconv.Quote(db.url) + "\nusername = " + strconv.Quote(db.user) + "\npassword = " + strconv.Quote(db.password) +
		"\ndatabase-names = [" + strconv.Quote(db.database) + "]\nschema-names = [" + strconv.Quote(db.schema) + "]" +
		"\ntable-names = [" + strings.Join(names, ", ") + "]\nslot.name = " + strconv.Quote(db.slot) +
		"\ndecoding.plugin.name = \"decoderbufs\"\n" + extra + "\n"
}

// confirmedFlush reads the slot's confirmed_flush_lsn ("" when there is no slot).
func (db *testDB) confirmedFlush(t testing.TB) string {
	t.Helper()
	var lsn *string
	err := db.conn.QueryRow(context.Background(), "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", db.slot).Scan(&lsn)
	if errors.Is(err, pgx.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if lsn == nil {
		return ""
	}
	return *lsn
}

func testSSLMode(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		return u.Query().Get("sslmode")
	}
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "sslmode="); ok {
			return strings.Trim(v, "'")
		}
	}
	return ""
}

// testName makes a schema and slot name from a test name: lowercase letters, digits and
// underscores, short enough for PostgreSQL's names, with a random suffix.
func testName(test string) string {
	var b strings.Builder
	b.WriteString("cdc_")
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > 36 {
		name = name[:36]
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	return name + "_" + hex.EncodeToString(suffix[:])
}
