// Package pgtest gives the tests of the PostgreSQL connectors a schema of their own in the
// test database: the server STRAIT_TEST_POSTGRES names, which `make test` starts
// (scripts/postgres.sh) and sets. Without the variable the tests skip.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// Env names the environment variable holding the test server's URL, e.g.
// postgres://test:test@127.0.0.1:5432/test?sslmode=disable.
const Env = "STRAIT_TEST_POSTGRES"

// DB is a test's schema and a connection whose search_path is that schema.
type DB struct {
	Conn   *pgx.Conn
	Config *pgx.ConnConfig
	Schema string
	dsn    string
}

// New connects, creates a schema named prefix + the test's name (lowercase, at most
// maxName bytes before a random suffix) and sets the connection's search_path to it. When
// the test ends, cleanup (if any) runs on a live connection, then the schema is dropped
// with CASCADE and the connection closed.
func New(t testing.TB, prefix string, maxName int, cleanup func(conn *pgx.Conn)) *DB {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Skipf("%s is not set: start PostgreSQL with scripts/postgres.sh start and set %s to its URL, e.g. postgres://test:test@127.0.0.1:5432/test?sslmode=disable", Env, Env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to %s: %v", Env, err)
	}
	db := &DB{Conn: conn, Config: cfg, Schema: Name(prefix, t.Name(), maxName), dsn: dsn}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgwire.QuoteIdent(db.Schema)); err != nil {
		conn.Close(ctx)
		t.Fatalf("create schema %s: %v", db.Schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if db.Conn.IsClosed() {
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Errorf("clean up schema %s: %v", db.Schema, err)
				return
			}
			db.Conn = c
		}
		if cleanup != nil {
			cleanup(db.Conn)
		}
		if _, err := db.Conn.Exec(ctx, "DROP SCHEMA "+pgwire.QuoteIdent(db.Schema)+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", db.Schema, err)
		}
		db.Conn.Close(ctx)
	})
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgwire.QuoteIdent(db.Schema)); err != nil {
		t.Fatalf("set search_path: %v", err)
	}
	return db
}

// JDBCURL is the server's JDBC url, jdbc:postgresql://host:port/database, with the DSN's
// sslmode and the given properties.
func (db *DB) JDBCURL(props url.Values) string {
	q := url.Values{}
	for k, v := range props {
		q[k] = v
	}
	if mode := sslMode(db.dsn); mode != "" {
		q.Set("sslmode", mode)
	}
	host := db.Config.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	u := "jdbc:postgresql://" + host + ":" + strconv.Itoa(int(db.Config.Port)) + "/" + db.Config.Database
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// sslMode reads sslmode from a URL or keyword/value DSN, "" when it is not set.
func sslMode(dsn string) string {
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

// Name makes a name for a schema (or a replication slot) from a test's name: prefix, then
// lowercase letters, digits and underscores, cut to maxName bytes, then a random suffix.
func Name(prefix, test string, maxName int) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > maxName {
		name = name[:maxName]
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	return name + "_" + hex.EncodeToString(suffix[:])
}

// PublicLock is the advisory lock a test holds while it uses tables of the test database's
// public schema: SeaTunnel's configs name them (public.sink), and the tests of several
// packages (connectors/jdbc, e2e) run them at the same time.
const PublicLock = 7_315_001

// LockPublic takes PublicLock on the test's connection, waiting for another test process to
// release it; it is held until the connection closes.
func LockPublic(t testing.TB, conn *pgx.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", PublicLock); err != nil {
		t.Fatalf("lock the public schema's test tables: %v", err)
	}
}
