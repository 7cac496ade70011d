package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// SeaTunnel's own Jdbc end-to-end configs for PostgreSQL (connector-jdbc-e2e), kept
// unchanged in connectors/jdbc/testdata/seatunnel, run by strait run against the tables and
// data their Java tests prepare, with the checks their Java tests make. They reach the
// database as host `postgresql` (scripts/postgres.sh maps it) and use its public schema, as
// SeaTunnel's tests do; PostGIS must be installed (scripts/postgres.sh installs it).

// postgis is postgres (the test database, its public tables locked for the test) with PostGIS,
// which SeaTunnel's tables need.
func postgis(t *testing.T) *pgx.Conn {
	t.Helper()
	conn := postgres(t)
	ctx := context.Background()
	var have bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis')").Scan(&have); err != nil {
		t.Fatal(err)
	}
	if !have {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS postgis"); err != nil {
			t.Fatalf("PostGIS, which SeaTunnel's tables need (scripts/postgres.sh installs it): %v", err)
		}
	}
	return conn
}

// runJdbcSeaTunnel runs one of the Jdbc package's SeaTunnel configs; the job must finish.
func runJdbcSeaTunnel(t *testing.T, name string) {
	t.Helper()
	code, out := run(t, "run", connectorSuite("jdbc", name))
	checkRun(t, name, code, out, 0)
}

// textRows reads a query's rows with every value as its text (NULL for null).
func textRows(t *testing.T, conn *pgx.Conn, sql string) []string {
	t.Helper()
	rows := pgQuery(t, conn, sql)
	defer rows.Close()
	var out []string
	for rows.Next() {
		raw := rows.RawValues()
		parts := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				parts[i] = "NULL"
			} else {
				parts[i] = string(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameRows checks that two queries return the same rows, in order.
func sameRows(t *testing.T, conn *pgx.Conn, wantSQL, gotSQL string) {
	t.Helper()
	want, got := textRows(t, conn, wantSQL), textRows(t, conn, gotSQL)
	if len(want) == 0 {
		t.Fatalf("the source holds no rows")
	}
	if len(got) != len(want) {
		t.Fatalf("the sink holds %d rows, the source %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d differs:\nsource %s\nsink   %s", i+1, want[i], got[i])
		}
	}
}

// pgE2EGeometries are the values of the geometry and geography columns (point to geog) of
// the rows JdbcPostgresIT inserts.
const pgE2EGeometries = `  ST_GeomFromText('POINT(-122.3452 47.5925)', 4326),
  ST_GeomFromText('LINESTRING(-122.3451 47.5924, -122.3449 47.5923)', 4326),
  ST_GeomFromText('POLYGON((-122.3453 47.5922, -122.3453 47.5926, -122.3448 47.5926, -122.3448 47.5922, -122.3453 47.5922))', 4326),
  ST_GeomFromText('MULTIPOINT(-122.3459 47.5927, -122.3445 47.5918)', 4326),
  ST_GeomFromText('MULTILINESTRING((-122.3463 47.5920, -122.3461 47.5919),(-122.3459 47.5924, -122.3457 47.5923))', 4326),
  ST_GeomFromText('MULTIPOLYGON(((-122.3458 47.5925, -122.3458 47.5928, -122.3454 47.5928, -122.3454 47.5925, -122.3458 47.5925)),((-122.3453 47.5921, -122.3453 47.5924, -122.3448 47.5924, -122.3448 47.5921, -122.3453 47.5921)))', 4326),
  ST_GeomFromText('GEOMETRYCOLLECTION(POINT(-122.3462 47.5921), LINESTRING(-122.3460 47.5924, -122.3457 47.5924))', 4326),
  ST_GeographyFromText('POINT(-122.3452 47.5925)')`

// The tables of JdbcPostgresIT: a source of every column type its configs copy, with the
// 1000 rows it inserts, and a sink whose geometry columns are varchar.
const pgE2ESourceDDL = `DROP TABLE IF EXISTS public.pg_e2e_source_table, public.pg_e2e_sink_table;
CREATE TABLE public.pg_e2e_source_table (
  gid SERIAL PRIMARY KEY, uuid_col UUID, text_col TEXT, varchar_col VARCHAR(255), char_col CHAR(10),
  boolean_col bool, smallint_col int2, integer_col int4, bigint_col BIGINT, decimal_col DECIMAL(10, 2),
  numeric_col NUMERIC(8, 4), real_col float4, double_precision_col float8, smallserial_col SMALLSERIAL,
  serial_col SERIAL, bigserial_col BIGSERIAL, date_col DATE, timestamp_col TIMESTAMP, bpchar_col BPCHAR(10),
  age INT NOT null, name VARCHAR(255) NOT null,
  point geometry(POINT, 4326), linestring geometry(LINESTRING, 4326), polygon_colums geometry(POLYGON, 4326),
  multipoint geometry(MULTIPOINT, 4326), multilinestring geometry(MULTILINESTRING, 4326),
  multipolygon geometry(MULTIPOLYGON, 4326), geometrycollection geometry(GEOMETRYCOLLECTION, 4326),
  geog geography(POINT, 4326), json_col json NOT NULL, jsonb_col jsonb NOT NULL, xml_col xml NOT NULL
);
COMMENT ON COLUMN public.pg_e2e_source_table.uuid_col IS '"#¥%……&*（）;;'',,.\.` + "``````" + `//''@特殊注释''\\''"';
CREATE TABLE public.pg_e2e_sink_table (
  gid SERIAL PRIMARY KEY, uuid_col UUID, text_col TEXT, varchar_col VARCHAR(255), char_col CHAR(10),
  boolean_col bool, smallint_col int2, integer_col int4, bigint_col BIGINT, decimal_col DECIMAL(10, 2),
  numeric_col NUMERIC(8, 4), real_col float4, double_precision_col float8, smallserial_col SMALLSERIAL,
  serial_col SERIAL, bigserial_col BIGSERIAL, date_col DATE, timestamp_col TIMESTAMP, bpchar_col BPCHAR(10),
  age int4 NOT NULL, name varchar(255) NOT NULL,
  point varchar(2000) NULL, linestring varchar(2000) NULL, polygon_colums varchar(2000) NULL,
  multipoint varchar(2000) NULL, multilinestring varchar(2000) NULL, multipolygon varchar(2000) NULL,
  geometrycollection varchar(2000) NULL, geog varchar(2000) NULL,
  json_col json NOT NULL, jsonb_col jsonb NOT NULL, xml_col xml NOT NULL
);
INSERT INTO public.pg_e2e_source_table (gid, uuid_col, text_col, varchar_col, char_col, boolean_col, smallint_col,
  integer_col, bigint_col, decimal_col, numeric_col, real_col, double_precision_col, smallserial_col, serial_col,
  bigserial_col, date_col, timestamp_col, bpchar_col, age, name, point, linestring, polygon_colums, multipoint,
  multilinestring, multipolygon, geometrycollection, geog, json_col, jsonb_col, xml_col)
SELECT i, gen_random_uuid(), 'Hello World', 'Test', 'Testing', true, 10, 100, 1000, 10.55, 8.8888, 3.14, 3.14159265,
  1, 100, 10000, '2023-05-07', '2023-05-07 14:30:00', 'Testing', 21, 'Leblanc',
` + pgE2EGeometries + `,
  '{"key":"test"}', '{"key":"test"}', '<XX:NewSize>test</XX:NewSize>'
FROM generate_series(1, 1000) i;
`

// JdbcPostgresIT's SOURCE_SQL and SINK_SQL, each value as its text, in gid order.
const (
	pgE2ESourceSQL = `SELECT gid, uuid_col, text_col, varchar_col, char_col, boolean_col, smallint_col, integer_col,
  bigint_col, decimal_col, numeric_col, real_col, double_precision_col, smallserial_col, serial_col, bigserial_col,
  date_col, timestamp_col, bpchar_col, age, name, point, linestring, polygon_colums, multipoint, multilinestring,
  multipolygon, geometrycollection, geog, json_col, jsonb_col, cast(xml_col as varchar)
FROM public.pg_e2e_source_table ORDER BY gid`
	pgE2ESinkSQL = `SELECT gid, uuid_col, text_col, varchar_col, char_col, boolean_col, smallint_col, integer_col,
  bigint_col, decimal_col, numeric_col, real_col, double_precision_col, smallserial_col, serial_col, bigserial_col,
  date_col, timestamp_col, bpchar_col, age, name, cast(point as geometry), cast(linestring as geometry),
  cast(polygon_colums as geometry), cast(multipoint as geometry), cast(multilinestring as geometry),
  cast(multipolygon as geometry), cast(geometrycollection as geometry), cast(geog as geography),
  json_col, jsonb_col, cast(xml_col as varchar)
FROM public.pg_e2e_sink_table ORDER BY gid`
)

// TestSeaTunnelJdbcPostgresIT runs JdbcPostgresIT's configs: each copies the 1000 rows of
// every type (uuid, json, jsonb, xml and PostGIS geometries among them) with another
// sink write path and source split, and the sink must then hold what the source holds.
func TestSeaTunnelJdbcPostgresIT(t *testing.T) {
	conn := postgis(t)
	pgExec(t, conn, pgE2ESourceDDL)
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), "DROP TABLE IF EXISTS public.pg_e2e_source_table, public.pg_e2e_sink_table")
	})
	for _, conf := range []string{
		"jdbc_postgres_source_and_sink.conf",
		"jdbc_postgres_source_and_sink_copy_stmt.conf",
		"jdbc_postgres_source_and_sink_parallel.conf",
		"jdbc_postgres_source_and_sink_parallel_upper_lower.conf",
		"jdbc_postgres_source_and_sink_xa.conf",
	} {
		t.Run(strings.TrimSuffix(conf, ".conf"), func(t *testing.T) {
			defer pgExec(t, conn, "TRUNCATE public.pg_e2e_sink_table")
			runJdbcSeaTunnel(t, conf)
			sameRows(t, conn, pgE2ESourceSQL, pgE2ESinkSQL)
		})
	}
}

// TestSeaTunnelJdbcPostgresIdentifierIT runs jdbc_postgres_ide_source_and_sink.conf: with
// field_ide = UPPERCASE the rows reach "PG_IDE_SINK_TABLE" in schema public, whose columns
// are upper-case.
func TestSeaTunnelJdbcPostgresIdentifierIT(t *testing.T) {
	conn := postgis(t)
	pgExec(t, conn, `DROP TABLE IF EXISTS public.pg_ide_source_table, public."PG_IDE_SINK_TABLE";
CREATE TABLE public.pg_ide_source_table (
  gid SERIAL PRIMARY KEY, text_col TEXT, varchar_col VARCHAR(255), char_col CHAR(10), boolean_col bool,
  smallint_col int2, integer_col int4, bigint_col BIGINT, decimal_col DECIMAL(10, 2), numeric_col NUMERIC(8, 4),
  real_col float4, double_precision_col float8, smallserial_col SMALLSERIAL, serial_col SERIAL,
  bigserial_col BIGSERIAL, date_col DATE, timestamp_col TIMESTAMP, bpchar_col BPCHAR(10), age INT NOT null,
  name VARCHAR(255) NOT null, point geometry(POINT, 4326), linestring geometry(LINESTRING, 4326),
  polygon_colums geometry(POLYGON, 4326), multipoint geometry(MULTIPOINT, 4326),
  multilinestring geometry(MULTILINESTRING, 4326), multipolygon geometry(MULTIPOLYGON, 4326),
  geometrycollection geometry(GEOMETRYCOLLECTION, 4326), geog geography(POINT, 4326), inet_col INET
);
CREATE TABLE test.public."PG_IDE_SINK_TABLE" (
  "GID" SERIAL PRIMARY KEY, "TEXT_COL" TEXT, "VARCHAR_COL" VARCHAR(255), "CHAR_COL" CHAR(10), "BOOLEAN_COL" bool,
  "SMALLINT_COL" int2, "INTEGER_COL" int4, "BIGINT_COL" BIGINT, "DECIMAL_COL" DECIMAL(10, 2),
  "NUMERIC_COL" NUMERIC(8, 4), "REAL_COL" float4, "DOUBLE_PRECISION_COL" float8, "SMALLSERIAL_COL" SMALLSERIAL,
  "SERIAL_COL" SERIAL, "BIGSERIAL_COL" BIGSERIAL, "DATE_COL" DATE, "TIMESTAMP_COL" TIMESTAMP,
  "BPCHAR_COL" BPCHAR(10), "AGE" int4 NOT NULL, "NAME" varchar(255) NOT NULL, "POINT" varchar(2000) NULL,
  "LINESTRING" varchar(2000) NULL, "POLYGON_COLUMS" varchar(2000) NULL, "MULTIPOINT" varchar(2000) NULL,
  "MULTILINESTRING" varchar(2000) NULL, "MULTIPOLYGON" varchar(2000) NULL, "GEOMETRYCOLLECTION" varchar(2000) NULL,
  "GEOG" varchar(2000) NULL, "INET_COL" INET NULL
);
INSERT INTO public.pg_ide_source_table (gid, text_col, varchar_col, char_col, boolean_col, smallint_col, integer_col,
  bigint_col, decimal_col, numeric_col, real_col, double_precision_col, smallserial_col, serial_col, bigserial_col,
  date_col, timestamp_col, bpchar_col, age, name, point, linestring, polygon_colums, multipoint, multilinestring,
  multipolygon, geometrycollection, geog, inet_col)
SELECT i, 'Hello World', 'Test', 'Testing', true, 10, 100, 1000, 10.55, 8.8888, 3.14, 3.14159265, 1, 100, 10000,
  '2023-05-07', '2023-05-07 14:30:00', 'Testing', 21, 'Leblanc',
`+pgE2EGeometries+`, '192.168.1.1'
FROM generate_series(1, 10) i`)
	t.Cleanup(func() {
		_, _ = conn.Exec(context.Background(), `DROP TABLE IF EXISTS public.pg_ide_source_table, public."PG_IDE_SINK_TABLE"`)
	})
	runJdbcSeaTunnel(t, "jdbc_postgres_ide_source_and_sink.conf")
	sameRows(t, conn, `SELECT gid, text_col, varchar_col, char_col, boolean_col, smallint_col, integer_col, bigint_col,
  decimal_col, numeric_col, real_col, double_precision_col, smallserial_col, serial_col, bigserial_col, date_col,
  timestamp_col, bpchar_col, age, name, point, linestring, polygon_colums, multipoint, multilinestring, multipolygon,
  geometrycollection, geog, inet_col FROM public.pg_ide_source_table ORDER BY gid`,
		`SELECT "GID", "TEXT_COL", "VARCHAR_COL", "CHAR_COL", "BOOLEAN_COL", "SMALLINT_COL", "INTEGER_COL", "BIGINT_COL",
  "DECIMAL_COL", "NUMERIC_COL", "REAL_COL", "DOUBLE_PRECISION_COL", "SMALLSERIAL_COL", "SERIAL_COL", "BIGSERIAL_COL",
  "DATE_COL", "TIMESTAMP_COL", "BPCHAR_COL", "AGE", "NAME", CAST("POINT" AS GEOMETRY), CAST("LINESTRING" AS GEOMETRY),
  CAST("POLYGON_COLUMS" AS GEOMETRY), CAST("MULTIPOINT" AS GEOMETRY), CAST("MULTILINESTRING" AS GEOMETRY),
  CAST("MULTIPOLYGON" AS GEOMETRY), CAST("GEOMETRYCOLLECTION" AS GEOMETRY), CAST("GEOG" AS GEOGRAPHY), "INET_COL"
FROM public."PG_IDE_SINK_TABLE" ORDER BY "GID"`)
	if got := textRows(t, conn, "SELECT count(*) FROM pg_namespace WHERE nspname = 'PUBLIC'"); got[0] != "0" {
		t.Errorf("a schema PUBLIC was created")
	}
}

// TestSeaTunnelJdbcSinkFakeIT runs the configs of JdbcAutoGenerateSQLIT and
// JdbcSinkNameParameterSQLIT: 100 FakeSource rows written to public.sink by generated
// statements (plain, then upsert by user_id) and by a query with named parameters, next to
// an Assert sink that counts them. The query, which the config sets with
// generate_sink_sql = true, is what writes: no table is created for the input.
func TestSeaTunnelJdbcSinkFakeIT(t *testing.T) {
	conn := postgis(t)
	pgExec(t, conn, `DROP TABLE IF EXISTS public.sink, public.fake;
CREATE TABLE public.sink (user_id BIGINT NOT NULL PRIMARY KEY, name varchar(255), age INT)`)
	t.Cleanup(func() { _, _ = conn.Exec(context.Background(), "DROP TABLE IF EXISTS public.sink") })
	count := func(where string) string {
		return textRows(t, conn, "SELECT count(*) FROM public.sink"+where)[0]
	}
	runJdbcSeaTunnel(t, "jdbc_sink_auto_generate_sql.conf")
	if got := count(" WHERE name IS NOT NULL AND age IS NOT NULL"); got != "100" {
		t.Fatalf("after jdbc_sink_auto_generate_sql.conf public.sink holds %s full rows, want 100", got)
	}
	runJdbcSeaTunnel(t, "jdbc_sink_auto_generate_upsql_sql.conf")
	if got := count(""); got != "200" {
		t.Fatalf("after jdbc_sink_auto_generate_upsql_sql.conf public.sink holds %s rows, want 200", got)
	}
	pgExec(t, conn, "TRUNCATE public.sink")
	runJdbcSeaTunnel(t, "jdbc_sink_name_parameter_sql.conf")
	if got := count(" WHERE name IS NOT NULL AND age IS NULL"); got != "100" {
		t.Fatalf("after jdbc_sink_name_parameter_sql.conf public.sink holds %s rows with a name and no age, want 100", got)
	}
	if got := textRows(t, conn, "SELECT count(*) FROM pg_class WHERE oid = to_regclass('public.fake')"); got[0] != "0" {
		t.Fatalf("the sink created table public.fake")
	}
}
