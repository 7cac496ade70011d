package jdbc

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

// testPostgresEnv names the environment variable holding the URL of the PostgreSQL server
// the tests use, e.g. postgres://test:test@127.0.0.1:5432/test?sslmode=disable
// (scripts/postgres.sh start starts one and scripts/postgres.sh url prints its URL).
const testPostgresEnv = "STRAIT_TEST_POSTGRES"

// testDB gives a test its own empty schema in the test database. It skips the test when
// STRAIT_TEST_POSTGRES is unset. It creates a fresh schema named after the test (lowercase,
// made unique with a random suffix), dropped with CASCADE when the test ends, and returns:
//
//   - jdbcURL, the JDBC url to put into a job config's url option:
//     jdbc:postgresql://host:port/database?currentSchema=<schema>&user=<user>&password=<password>.
//     Through currentSchema, unqualified table names in configs resolve to the test's schema;
//     append further properties with '&'.
//   - conn, a connection whose search_path is the test's schema, closed when the test ends.
//
// It takes a testing.TB so that benchmarks can use it too.
func testDB(t testing.TB) (jdbcURL string, conn *pgx.Conn) {
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
	conn, err = pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to %s: %v", testPostgresEnv, err)
	}
	schema := testSchemaName(t.Name())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgwire.QuoteIdent(schema)); err != nil {
		conn.Close(ctx)
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn.IsClosed() {
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
				return
			}
			conn = c
		}
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgwire.QuoteIdent(schema)+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(ctx)
	})
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgwire.QuoteIdent(schema)); err != nil {
		t.Fatalf("set search_path: %v", err)
	}
	q := url.Values{}
	q.Set("currentSchema", schema)
	if cfg.User != "" {
		q.Set("user", cfg.User)
	}
	if cfg.Password != "" {
		q.Set("password", cfg.Password)
	}
	if mode := testSSLMode(dsn); mode != "" {
		q.Set("sslmode", mode)
	}
	host := cfg.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	jdbcURL = "jdbc:postgresql://" + host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + cfg.Database + "?" + q.Encode()
	return jdbcURL, conn
}

// testSSLMode reads sslmode from a URL or keyword/value DSN, "" when it is not set.
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

// testSchemaName makes a schema name from a test name: lowercase letters, digits and
// underscores, short enough for PostgreSQL's 63-byte names, with a random suffix.
func testSchemaName(test string) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if len(name) > 48 {
		name = name[:48]
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	return name + "_" + hex.EncodeToString(suffix[:])
}
