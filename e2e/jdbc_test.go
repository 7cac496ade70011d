package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgres connects to the database of SeaTunnel's JDBC test (STRAIT_TEST_POSTGRES, which
// `make test` sets once scripts/postgres.sh has started it).
func postgres(t *testing.T) *pgx.Conn {
	t.Helper()
	dsn := testServer(t, "STRAIT_TEST_POSTGRES", "PostgreSQL (scripts/postgres.sh)")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	// SeaTunnel's configs name tables of the public schema (public.sink) that the Jdbc
	// package's tests of SeaTunnel's configs use too; the packages' tests run at the same
	// time, so each holds this lock (pgtest.PublicLock) while it uses them
	lctx, lcancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer lcancel()
	if _, err := conn.Exec(lctx, "SELECT pg_advisory_lock($1)", publicSchemaLock); err != nil {
		t.Fatalf("lock the public schema's test tables: %v", err)
	}
	return conn
}

// publicSchemaLock is pgtest.PublicLock (an internal package e2e cannot import).
const publicSchemaLock = 7_315_001

// tableRows reads a query's rows of an id, a name and a score, as "(id,name,score)" each
// (NULL for a null) one after the other.
func tableRows(t *testing.T, conn *pgx.Conn, query string) string {
	t.Helper()
	return strings.Join(pgTriples(t, conn, query), " ")
}

// pgTriples reads a query's rows of three columns, an integer, a text and an integer, as
// triplesOf prints them.
func pgTriples(t *testing.T, conn *pgx.Conn, query string) []string {
	t.Helper()
	rows := pgQuery(t, conn, query)
	defer rows.Close()
	return triplesOf(t, rows)
}

// pgQuery runs a query in PostgreSQL's simple protocol, every value sent as its text.
func pgQuery(t *testing.T, conn *pgx.Conn, query string) pgx.Rows {
	t.Helper()
	rows, err := conn.Query(context.Background(), query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return rows
}

// resultRows is a query's result as both pgx and database/sql give it.
type resultRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// triplesOf reads rows of three columns, an integer, a text and an integer (as an id, a name
// and a score), each as "(id,name,score)" with NULL for a null.
func triplesOf(t *testing.T, rows resultRows) []string {
	t.Helper()
	var out []string
	for rows.Next() {
		var id int64
		var name *string
		var score *int32
		if err := rows.Scan(&id, &name, &score); err != nil {
			t.Fatal(err)
		}
		n, sc := "NULL", "NULL"
		if name != nil {
			n = *name
		}
		if score != nil {
			sc = fmt.Sprint(*score)
		}
		out = append(out, fmt.Sprintf("(%d,%s,%s)", id, n, sc))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSeaTunnelJdbcChangelog runs SeaTunnel's jdbc_sink_cdc_changelog.conf unchanged: a
// changelog (inserts, an update, a delete) written to PostgreSQL by primary key, reached as
// host `postgresql`. The table must end holding exactly (1, 'A_1', 100) and (3, 'C', 100).
func TestSeaTunnelJdbcChangelog(t *testing.T) {
	conn := postgres(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS public.sink;
CREATE TABLE public.sink (pk_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(255), score INT);
INSERT INTO public.sink VALUES (2, 'old', 1)`); err != nil {
		t.Fatal(err)
	}
	code, out := run(t, "run", seatunnel("jdbc", "jdbc_sink_cdc_changelog.conf"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got, want := tableRows(t, conn, "SELECT pk_id, name, score FROM public.sink ORDER BY pk_id"), "(1,A_1,100) (3,C,100)"; got != want {
		t.Fatalf("public.sink holds %s, want %s\n%s", got, want, out)
	}
	// read back by the Jdbc source, split over two readers, and checked by Assert
	check := writeFile(t, "read.conf", `env { parallelism = 2, job.mode = BATCH }
source {
  Jdbc {
    url = "jdbc:postgresql://postgresql:5432/test"
    user = test
    password = test
    table_path = "test.public.sink"
    split.size = 1
  }
}
sink {
  Assert {
    rules {
      row_rules = [{ rule_type = MAX_ROW, rule_value = 2 }, { rule_type = MIN_ROW, rule_value = 2 }]
      field_rules = [
        { field_name = pk_id, field_type = bigint, field_value = [{ rule_type = NOT_NULL }, { rule_type = MIN, rule_value = 1 }, { rule_type = MAX, rule_value = 3 }] },
        { field_name = name, field_type = string, field_value = [{ rule_type = NOT_NULL }] },
        { field_name = score, field_type = int, field_value = [{ equals_to = 100 }] }
      ]
    }
  }
}
`)
	if code, out := run(t, "run", check); code != 0 {
		t.Fatalf("read back: exit %d\n%s", code, out)
	}

	// without the table the default save mode creates it
	if _, err := conn.Exec(ctx, `DROP TABLE public.sink`); err != nil {
		t.Fatal(err)
	}
	if code, out := run(t, "run", seatunnel("jdbc", "jdbc_sink_cdc_changelog.conf")); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got, want := tableRows(t, conn, "SELECT pk_id, name, score FROM public.sink ORDER BY pk_id"), "(1,A_1,100) (3,C,100)"; got != want {
		t.Fatalf("created public.sink holds %s, want %s", got, want)
	}
}

// TestJdbcExactlyOnce: the same changelog with is_exactly_once, so the rows reach the table
// through a prepared transaction that the job's final checkpoint commits, and none is left
// prepared.
func TestJdbcExactlyOnce(t *testing.T) {
	conn := postgres(t)
	ctx := context.Background()
	src, err := os.ReadFile(seatunnel("jdbc", "jdbc_sink_cdc_changelog.conf"))
	if err != nil {
		t.Fatal(err)
	}
	conf := strings.Replace(string(src), "table = public.sink", "table = public.sink_xa\n        is_exactly_once = true\n        batch_size = 2", 1)
	if conf == string(src) {
		t.Fatal("config not rewritten")
	}
	file := writeFile(t, "xa.conf", conf)
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS public.sink_xa`); err != nil {
		t.Fatal(err)
	}
	job := strconv.FormatInt(time.Now().UnixNano()/1000, 10)
	if code, out := run(t, "run", "--job-id", job, file); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got, want := tableRows(t, conn, "SELECT pk_id, name, score FROM public.sink_xa ORDER BY pk_id"), "(1,A_1,100) (3,C,100)"; got != want {
		t.Fatalf("public.sink_xa holds %s, want %s", got, want)
	}
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, $1)", "strait-"+job+"-").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d prepared transactions left", left)
	}
}
