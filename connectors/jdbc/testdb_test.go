package jdbc

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgtest"
)

// testDB gives a test its own empty schema in the test database (pgtest.New: it skips the
// test when STRAIT_TEST_POSTGRES is unset, and drops the schema when the test ends). It
// returns:
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
	db := pgtest.New(t, "t_", 48, nil)
	q := url.Values{}
	q.Set("currentSchema", db.Schema)
	if db.Config.User != "" {
		q.Set("user", db.Config.User)
	}
	if db.Config.Password != "" {
		q.Set("password", db.Config.Password)
	}
	return db.JDBCURL(q), db.Conn
}

// mustExec runs a statement on conn, failing the test when it fails.
func mustExec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
