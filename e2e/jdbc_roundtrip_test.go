package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The Jdbc round trips: PostgreSQL tables with a column per type copied by `strait run` from
// a Jdbc source to a Jdbc sink, then compared with the source column by column in SQL.

// roundTripScalars has a column per scalar type SeaTunnel's PostgresTypeConverter maps
// (and a few it does not, which Strait reads as strings), rows of typical values, NULLs
// and edge values.
const roundTripScalars = `
CREATE TYPE rt_mood AS ENUM ('sad', 'happy');
CREATE TABLE rt_scalars (
	id int PRIMARY KEY,
	b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
	n numeric(10,2), nu numeric, n0 numeric(20,0), m money,
	c char(5), bc bpchar, vc varchar(20), t text, nm name,
	j json, jb jsonb, x xml, u uuid, ip inet, ci cidr, mac macaddr,
	by bytea, d date, tm time, tm3 time(3), ttz timetz,
	ts timestamp, ts3 timestamp(3), tstz timestamptz,
	iv interval, pt point, e rt_mood
);
INSERT INTO rt_scalars VALUES
(1, true, 10, 100, 1000, 3.14, 3.14159265,
	10.55, 8.8888, 12345678901234567890, '1234.56',
	'Test', 'x', 'Testing', 'Hello World', 'name1',
	'{"key":"test"}', '{"key":"test"}', '<XX:NewSize>test</XX:NewSize>', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
	'192.168.1.1', '10.0.0.0/8', '08:00:2b:01:02:03',
	'\x0102ff', '2023-05-07', '14:30:00', '14:30:00.123', '14:30:00+02',
	'2023-05-07 14:30:00', '2023-05-07 14:30:00.123', '2023-05-07 14:30:00.123456+02',
	'1 year 2 mons 3 days 04:05:06.5', '(1,2)', 'happy'),
(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
(3, false, -32768, 2147483647, -9223372036854775808, 'Infinity', -1.7976931348623157e308,
	-99999999.99, 500, -99999999999999999999, '-92233720368547758.08',
	'', ' ', '', '', '',
	'[1, "two", null, {"a": []}]', '"a string"', '', '00000000-0000-0000-0000-000000000000',
	'::1', '2001:db8::/32', 'ff:ff:ff:ff:ff:ff',
	'\x', '1900-01-01', '00:00:00', '23:59:59.999', '23:59:59.999999-14:00',
	'1970-01-01 00:00:00', '2262-04-11 23:47:16.854', '1677-09-21 00:12:44+00',
	'-1 days -00:00:01', '(-1.5,0)', 'sad'),
(4, true, 32767, -2147483648, 9223372036854775807, '-3.4028235e38', 'NaN',
	0.01, 1.50, 0, '0',
	'héllo', 'é', 'ünïcödé ✓ 🎉', e'quote '' "double" \\ back\nnew line', 'x',
	'{"k": "ü ✓", "n": 1.50}', '{"nested": {"k": [1, 2.5]}, "e": ""}', '<a b="1">ü &amp; <c/></a>', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
	'10.0.0.1/24', '0.0.0.0/0', '00:00:00:00:00:00',
	'\x00', '2999-12-31', '12:00:00.000001', '00:00:00.001', '00:00:00.000001+05:30',
	'2262-04-11 23:47:16.854775', '1999-12-31 23:59:59.999', '2000-01-01 00:00:00.000001-08',
	'0', '(0,0)', 'happy'),
(5, false, 0, 0, 0, 1e-45, 5e-324,
	-0.01, -123456789012345678901234567890.123456789012345678901234567890, 1, '0.01',
	'a', 'b', 'tab	here', 'ends with space ', 'n',
	'{}', '[]', '<r/>', '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
	'255.255.255.255', '192.168.0.0/16', '01:23:45:67:89:ab',
	'\xdeadbeef', '2024-02-29', '23:59:59.999999', '12:00:00.5', '12:00:00-00',
	'2024-02-29 12:00:00', '2024-02-29 12:00:00', '2024-02-29 12:00:00+00',
	'00:00:00.000001', '(1e10,-1e-10)', 'sad');
`

// roundTripArrays has a column per array type SeaTunnel maps (and the arrays Strait reads
// as arrays besides).
const roundTripArrays = `
CREATE TABLE rt_arrays (
	id int PRIMARY KEY,
	ab bool[], ai2 int2[], ai4 int4[], ai8 int8[], af4 float4[], af8 float8[],
	at text[], avc varchar(10)[], abc char(3)[],
	an numeric[], an2 numeric(6,2)[], ad date[], ats timestamp[], au uuid[], aj json[], ajb jsonb[], ax xml[]
);
INSERT INTO rt_arrays VALUES
(1, '{t,f}', '{1,2}', '{1,NULL,3}', '{9223372036854775807}', '{1.5,-2.25}', '{3.14159265}',
	'{"a","b c",NULL,"","{}","\"q\""}', '{"x","ü"}', '{"ab","abc"}',
	'{1.50,500,-0.001}', '{1.5,-2.25}', '{2024-01-01,NULL}', '{"2024-01-01 00:00:00.5"}',
	'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', ARRAY['{"k": 1}'::json], ARRAY['{"k": [2]}'::jsonb, NULL], ARRAY['<a>1</a>'::xml]),
(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
(3, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}'),
(4, '{NULL}', '{-32768,32767}', '{-2147483648,2147483647}', '{-9223372036854775808}', '{NaN,Infinity}', '{-Infinity,0}',
	'{"ünïcödé ✓","with,comma","back\\slash"}', '{""}', '{NULL}',
	'{123456789012345678901234567890.12345678901234567890}', '{NULL,0}', '{1900-01-01}', '{"1970-01-01 00:00:00"}',
	'{NULL}', ARRAY['"s"'::json, 'null'::json], ARRAY['[]'::jsonb], ARRAY[NULL::xml]);
`

// writePaths are the sink's ways of writing: generated statements by key (upsert, and
// insert-or-update), plain inserts of a table without a key (binary COPY where every column
// has a binary encoding), use_copy_statement, a prepared transaction per checkpoint, and a
// configured query.
var writePaths = []struct{ name, opts string }{
	{"upsert", "generate_sink_sql = true\nprimary_keys = [id]"},
	{"insert or update", "generate_sink_sql = true\nprimary_keys = [id]\nenable_upsert = false\nbatch_size = 2"},
	{"insert", "generate_sink_sql = true\nprimary_keys = []"},
	{"copy", "generate_sink_sql = true\nprimary_keys = [id]\nuse_copy_statement = true"},
	{"exactly once", "generate_sink_sql = true\nprimary_keys = [id]\nis_exactly_once = true\nxa_data_source_class_name = org.postgresql.xa.PGXADataSource"},
	{"query", "query = \"INSERT INTO %s (%s) VALUES (%s)\""},
}

// pgSchema gives a test its own empty schema in the test database (STRAIT_TEST_POSTGRES),
// dropped when the test ends. It returns the JDBC url for a job config, whose currentSchema
// makes unqualified table names resolve to the schema, and a connection whose search_path is
// the schema.
func pgSchema(t *testing.T) (jdbcURL string, conn *pgx.Conn) {
	t.Helper()
	dsn := testServer(t, "STRAIT_TEST_POSTGRES", "PostgreSQL (scripts/postgres.sh)")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("STRAIT_TEST_POSTGRES: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err = pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to %s: %v", dsn, err)
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	schema := "e2e_rt_" + hex.EncodeToString(suffix[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema+"; SET search_path TO "+schema); err != nil {
		conn.Close(ctx)
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(ctx)
	})
	q := url.Values{"currentSchema": {schema}, "user": {cfg.User}, "password": {cfg.Password}}
	if u, err := url.Parse(dsn); err == nil && u.Query().Get("sslmode") != "" {
		q.Set("sslmode", u.Query().Get("sslmode"))
	}
	host := cfg.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("jdbc:postgresql://%s:%d/%s?%s", host, cfg.Port, cfg.Database, q.Encode()), conn
}

func pgExec(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
}

// runJobText writes a job config and runs it with strait run, failing the test unless the job
// finishes.
func runJobText(t *testing.T, conf string) {
	t.Helper()
	code, out := run(t, "run", writeJob(t, conf))
	checkRun(t, "job", code, out, 0)
}

// TestJdbcRoundTripTypes copies tables with a column per PostgreSQL type from a Jdbc source
// to a Jdbc sink on every write path, then compares the copy with the source column by column
// in SQL. A timetz value arrives in UTC (SeaTunnel reads it as a time of day, dropping the
// zone), so it is compared at UTC; every other value must arrive unchanged.
func TestJdbcRoundTripTypes(t *testing.T) {
	url, conn := pgSchema(t)
	pgExec(t, conn, roundTripScalars+roundTripArrays)
	for _, table := range []string{"rt_scalars", "rt_arrays"} {
		cols := tableColumns(t, conn, table)
		for _, p := range writePaths {
			t.Run(table+"/"+p.name, func(t *testing.T) {
				pgExec(t, conn, "DROP TABLE IF EXISTS rt_copy; CREATE TABLE rt_copy (LIKE "+table+" INCLUDING ALL)")
				opts := p.opts
				if strings.HasPrefix(opts, "query") {
					marks := strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")
					opts = fmt.Sprintf(opts, "rt_copy", strings.Join(quoteAll(cols), ", "), marks)
				}
				runJobText(t, fmt.Sprintf(`env { job.mode = BATCH, parallelism = 2 }
source { Jdbc { url = %q, table_path = %q, split.size = 2 } }
sink { Jdbc { url = %q
database = test
table = rt_copy
%s } }`, url, table, url, opts))
				compareTables(t, conn, table, "rt_copy", cols)
			})
		}
	}
}

// TestJdbcRoundTripCreatedTable: a table the sink's save mode creates from a PostgreSQL source
// has the source's column types (as SeaTunnel creates them), so every value arrives as in
// TestJdbcRoundTripTypes, an unbounded numeric with its own scale.
func TestJdbcRoundTripCreatedTable(t *testing.T) {
	url, conn := pgSchema(t)
	pgExec(t, conn, roundTripScalars+roundTripArrays)
	for _, table := range []string{"rt_scalars", "rt_arrays"} {
		t.Run(table, func(t *testing.T) {
			pgExec(t, conn, "DROP TABLE IF EXISTS rt_made")
			runJobText(t, fmt.Sprintf(`env { job.mode = BATCH }
source { Jdbc { url = %q, table_path = %q } }
sink { Jdbc { url = %q
generate_sink_sql = true
database = test
table = rt_made } }`, url, table, url))
			cols := tableColumns(t, conn, table)
			for _, c := range cols {
				if a, b := typeOf(t, conn, table, c), typeOf(t, conn, "rt_made", c); a != b {
					t.Errorf("column %s created as %s, the source's is %s", c, b, a)
				}
			}
			compareTables(t, conn, table, "rt_made", cols)
		})
	}
}

func tableColumns(t *testing.T, conn *pgx.Conn, table string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT attname::text FROM pg_attribute
		WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, table)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(cols) == 0 {
		t.Fatalf("columns of %s: %v %v", table, cols, err)
	}
	return cols
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = `"` + n + `"`
	}
	return out
}

// compareTables checks that copy holds the rows of src, column by column by their text,
// naming every value that differs. Rows are matched by id.
func compareTables(t *testing.T, conn *pgx.Conn, src, copy string, cols []string) {
	t.Helper()
	ctx := context.Background()
	var want, got int
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM "+src+"), (SELECT count(*) FROM "+copy+")").Scan(&want, &got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("%s holds %d rows, %s %d", copy, got, src, want)
	}
	for _, c := range cols {
		expr := func(alias string) string {
			e := alias + `."` + c + `"`
			if typeOf(t, conn, src, c) == "time with time zone" {
				e = "(" + e + " AT TIME ZONE 'UTC')"
			}
			return e + "::text"
		}
		rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT coalesce(s.id, d.id), %s, %s FROM %s s FULL JOIN %s d ON s.id = d.id
			WHERE %s IS DISTINCT FROM %s ORDER BY 1`, expr("s"), expr("d"), src, copy, expr("s"), expr("d")))
		if err != nil {
			t.Fatalf("compare %s: %v", c, err)
		}
		for rows.Next() {
			var id int
			var s, d *string
			if err := rows.Scan(&id, &s, &d); err != nil {
				t.Fatal(err)
			}
			t.Errorf("row %d column %s: source %s, copy %s", id, c, show(s), show(d))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

func typeOf(t *testing.T, conn *pgx.Conn, table, col string) string {
	t.Helper()
	var typ string
	if err := conn.QueryRow(context.Background(), `SELECT format_type(atttypid, -1) FROM pg_attribute
		WHERE attrelid = $1::regclass AND attname = $2`, table, col).Scan(&typ); err != nil {
		t.Fatal(err)
	}
	return typ
}

func show(s *string) string {
	if s == nil {
		return "NULL"
	}
	return fmt.Sprintf("%q", *s)
}
