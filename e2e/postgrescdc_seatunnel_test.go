package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// SeaTunnel's Postgres-CDC end-to-end suite (PostgresCDCIT), run as SeaTunnel runs it: its
// configs and its init script are kept unchanged in connectors/postgrescdc/testdata/seatunnel.
// The configs reach the database as host postgres_cdc_e2e, SeaTunnel's container alias: the
// test substitutes the test server's host and port in the text it submits.

// cdcFixture is the path of a file of SeaTunnel's Postgres-CDC suite.
func cdcFixture(name string) string { return connectorSuite("postgrescdc", name) }

// The database, user and schema of SeaTunnel's Postgres-CDC test container.
const (
	cdcDatabase = "postgres_cdc"
	cdcUser     = "postgres"
	cdcPassword = "postgres"
	cdcHost     = "postgres_cdc_e2e:5432"
	cdcSlot     = "seatunnel" // the configs name none: the default slot.name
)

// cdcServer is the test server as SeaTunnel's container offers it.
type cdcServer struct {
	hostPort string    // where the test server listens, in place of postgres_cdc_e2e:5432
	conn     *pgx.Conn // to database postgres_cdc as user postgres
	addr     string    // the dev server running the jobs
}

// newCDCServer makes the test server look like SeaTunnel's container (database postgres_cdc,
// user postgres with password postgres) and starts a dev server.
func newCDCServer(t *testing.T) *cdcServer {
	t.Helper()
	admin := postgres(t)
	s := &cdcServer{hostPort: testServerHost(t)}
	ensureDatabase(t, admin, cdcDatabase)
	if _, err := admin.Exec(context.Background(), `DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'postgres') THEN
    CREATE ROLE postgres LOGIN SUPERUSER REPLICATION PASSWORD 'postgres';
  END IF;
END $$`); err != nil {
		t.Fatalf("create role postgres: %v", err)
	}
	s.conn = connectTo(t, fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", cdcUser, cdcPassword, s.hostPort, cdcDatabase))
	s.addr = startDev(t)
	return s
}

// testServerHost is the host and port of the test server (STRAIT_TEST_POSTGRES).
func testServerHost(t *testing.T) string {
	t.Helper()
	u, err := url.Parse(os.Getenv("STRAIT_TEST_POSTGRES"))
	if err != nil || u.Host == "" {
		t.Fatalf("STRAIT_TEST_POSTGRES %q: no host (%v)", os.Getenv("STRAIT_TEST_POSTGRES"), err)
	}
	return u.Host
}

// ensureDatabase creates a database of the test server unless it exists.
func ensureDatabase(t *testing.T, admin *pgx.Conn, name string) {
	t.Helper()
	ctx := context.Background()
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		return
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
}

// connectTo opens a connection closed when the test ends.
func connectTo(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// startDev starts a dev server (Temporal, worker, runner) without a gateway, with the
// further flags given, and returns its address once its runner is registered.
func startDev(t *testing.T, flags ...string) string {
	t.Helper()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, "dev", append([]string{"dev", "--headless", "--gateway", "", "--port", strconv.Itoa(port), "--checkpoint-dir", t.TempDir()}, flags...)...)
	eventually(t, 60*time.Second, "dev server up", func() bool { return len(clusterStatus(t, addr)) == 1 })
	return addr
}

// exec runs statements in the test database, in schema inventory as SeaTunnel's test does.
func (s *cdcServer) exec(t *testing.T, sql string) {
	t.Helper()
	if _, err := s.conn.Exec(context.Background(), "SET search_path TO inventory; "+sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// reset gives a subtest the database as SeaTunnel's test starts it: no replication slot or
// publication left by an earlier job, and the schema inventory as its init script makes it.
func (s *cdcServer) reset(t *testing.T) {
	t.Helper()
	dropSlot(t, s.conn, cdcSlot)
	if _, err := s.conn.Exec(context.Background(), "DROP PUBLICATION IF EXISTS "+cdcSlot+"_publication"); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(cdcFixture("ddl/inventory.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.conn.Exec(context.Background(), string(script)); err != nil {
		t.Fatalf("ddl/inventory.sql: %v", err)
	}
	t.Cleanup(func() { dropSlot(t, s.conn, cdcSlot) })
}

// dropSlot drops a replication slot, ending the connection that streams from it.
func dropSlot(t *testing.T, conn *pgx.Conn, slot string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; ; i++ {
		_, err := conn.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, slot)
		if err == nil {
			_, err = conn.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, slot)
		}
		if err == nil {
			return
		}
		if i == 50 {
			t.Errorf("drop replication slot %s: %v", slot, err)
			return
		}
		time.Sleep(100 * time.Millisecond) // the terminated backend lets go of the slot
	}
}

// dropCDCWhenDone drops, when the test ends, a Postgres-CDC job's replication slot, the
// publication named after it and the schema of its tables.
func dropCDCWhenDone(t *testing.T, conn *pgx.Conn, slot, schema string) {
	t.Helper()
	t.Cleanup(func() {
		dropSlot(t, conn, slot)
		if _, err := conn.Exec(context.Background(), "DROP PUBLICATION IF EXISTS "+slot+"_publication; DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("clean up: %v", err)
		}
	})
}

// config returns a copy of a SeaTunnel config reaching the test server instead of host
// postgres_cdc_e2e; the file itself stays unchanged.
func (s *cdcServer) config(t *testing.T, name string) string {
	t.Helper()
	return copyWithHost(t, cdcFixture(name), cdcHost, s.hostPort)
}

// copyWithHost writes a copy of the config at path into a temporary folder, hostPort put in
// place of every host (a container alias and port, which the config must name), and returns
// the copy's path; the file itself stays unchanged.
func copyWithHost(t *testing.T, path, host, hostPort string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), host) {
		t.Fatalf("%s does not name host %s", path, host)
	}
	return writeFile(t, path, strings.ReplaceAll(string(b), host, hostPort))
}

// submit runs a SeaTunnel config under a fixed job id; the job is canceled when the subtest
// ends.
func (s *cdcServer) submit(t *testing.T, id, name string) {
	t.Helper()
	submitAs(t, s.addr, id, s.config(t, name))
}

// submitAs submits a config to the cluster at addr under a fixed job id; the job is
// canceled, and waited for, when the (sub)test ends.
func submitAs(t *testing.T, addr, id, file string) {
	t.Helper()
	if code, out := run(t, "job", "submit", "--address", addr, "--job-id", id, file); code != 0 {
		t.Fatalf("submit %s: exit %d\n%s", file, code, out)
	}
	t.Cleanup(func() { cancelJob(t, addr, id) })
}

// cancelJob cancels a job and waits until it stopped, so that what it held (a replication
// slot, a replica's server id) is free.
func cancelJob(t *testing.T, addr, id string) {
	t.Helper()
	stopped := func() bool {
		switch jobStatus(t, addr, id).State {
		case "CANCELED", "FAILED", "FINISHED", "SAVEPOINT_DONE":
			return true
		}
		return false
	}
	if stopped() {
		return
	}
	if code, out := run(t, "job", "cancel", "--address", addr, id); code != 0 {
		t.Errorf("cancel %s: exit %d\n%s", id, code, out)
		return
	}
	eventually(t, 60*time.Second, "job "+id+" canceled", stopped)
}

// savepointJob stops a job with a savepoint.
func savepointJob(t *testing.T, addr, id string) {
	t.Helper()
	if code, out := run(t, "job", "savepoint", "--address", addr, id); code != 0 {
		t.Fatalf("savepoint %s: exit %d\n%s", id, code, out)
	}
}

// restoreJob starts a job again from its savepoint, with the config file.
func restoreJob(t *testing.T, addr, id, file string) {
	t.Helper()
	if code, out := run(t, "job", "restore", "--address", addr, id, file); code != 0 {
		t.Fatalf("restore %s with %s: exit %d\n%s", id, file, code, out)
	}
}

// rows reads a table of schema inventory as PostgreSQL prints its rows, in the order of
// SeaTunnel's query (select * from inventory.<table> order by id).
func (s *cdcServer) rows(t *testing.T, table string) []string {
	t.Helper()
	return textRows(t, s.conn, "SELECT t::text FROM inventory."+table+" t ORDER BY id")
}

// awaitEqual is SeaTunnel's check: within 60 s, each source table and its sink table hold
// the same rows in the same order (assertIterableEquals of their select * ... order by id),
// compared here by their text, which keeps every value's type and scale apart. A job that
// stops fails the check at once.
func (s *cdcServer) awaitEqual(t *testing.T, id string, pairs ...[2]string) {
	t.Helper()
	awaitJobDiff(t, s.addr, id, 60*time.Second, func() string {
		diff := ""
		for _, p := range pairs {
			src, sink := s.rows(t, p[0]), s.rows(t, p[1])
			if strings.Join(src, "\n") != strings.Join(sink, "\n") {
				diff += fmt.Sprintf("\n%s:\n  %s\n%s:\n  %s", p[0], strings.Join(src, "\n  "), p[1], strings.Join(sink, "\n  "))
			}
		}
		if diff == "" {
			return ""
		}
		return "the tables differ:" + diff
	})
}

// upsertDelete is SeaTunnel's upsertDeleteSourceTable: rows 2 and 3 inserted, 2 deleted,
// 3 updated, one statement at a time.
func (s *cdcServer) upsertDelete(t *testing.T, table string) {
	t.Helper()
	const row = `%d, '2', 32767, 65535, 2147483647, 5.5, 6.6, 123.12345, 404.4443, true,
        'Hello World', 'a', 'abc', 'abcd..xyz', '2020-07-17 18:00:22.123', '2020-07-17 18:00:22.123456',
        '2020-07-17', '18:00:22', 500,'192.168.1.1'`
	s.exec(t, "INSERT INTO inventory."+table+" VALUES ("+fmt.Sprintf(row, 2)+");")
	s.exec(t, "INSERT INTO inventory."+table+" VALUES ("+fmt.Sprintf(row, 3)+");")
	s.exec(t, "DELETE FROM inventory."+table+" where id = 2;")
	s.exec(t, "UPDATE inventory."+table+" SET f_big = 10000 where id = 3;")
}

// checkData is the shape of most of SeaTunnel's tests: from its init script, the job of a
// config copies the source tables to their sink tables, then SeaTunnel's changes to each
// source table reach its sink table too.
func (s *cdcServer) checkData(t *testing.T, id, config string, pairs ...[2]string) {
	t.Helper()
	s.reset(t)
	s.submit(t, id, config)
	s.awaitEqual(t, id, pairs...)
	for _, p := range pairs {
		s.upsertDelete(t, p[0])
	}
	s.awaitEqual(t, id, pairs...)
}

// TestSeaTunnelPostgresCDC runs each test of SeaTunnel's PostgresCDCIT: its config, the
// changes it makes to the source tables, and its check that every sink table ends equal to
// its source table. Each subtest starts from SeaTunnel's init script (SeaTunnel runs it once
// and truncates the tables after each test).
func TestSeaTunnelPostgresCDC(t *testing.T) {
	s := newCDCServer(t)
	table1 := [2]string{"postgres_cdc_table_1", "sink_postgres_cdc_table_1"}
	table2 := [2]string{"postgres_cdc_table_2", "sink_postgres_cdc_table_2"}
	table3 := [2]string{"postgres_cdc_table_3", "sink_postgres_cdc_table_3"}
	noKey := [2]string{"full_types_no_primary_key", "sink_postgres_cdc_table_1"}

	t.Run("testMPostgresCdcCheckDataE2e", func(t *testing.T) { s.checkData(t, "2001", "postgrescdc_to_postgres.conf", table1) })
	t.Run("testPostgresCdcMultiTableE2e", func(t *testing.T) {
		s.checkData(t, "2002", "pgcdc_to_pg_with_multi_table_mode_two_table.conf", table1, table2)
	})
	t.Run("testMultiTableWithRestore", func(t *testing.T) {
		s.reset(t)
		s.submit(t, "2003", "pgcdc_to_pg_with_multi_table_mode_one_table.conf")
		s.upsertDelete(t, table1[0])
		s.awaitEqual(t, "2003", table1)
		savepointJob(t, s.addr, "2003")
		// restored with a second table
		restoreJob(t, s.addr, "2003", s.config(t, "pgcdc_to_pg_with_multi_table_mode_two_table.conf"))
		s.upsertDelete(t, table2[0])
		s.awaitEqual(t, "2003", table1, table2)
	})
	t.Run("testAddFiledWithRestore", func(t *testing.T) {
		s.reset(t)
		s.submit(t, "2004", "postgrescdc_to_postgres_test_add_Filed.conf")
		s.awaitEqual(t, "2004", table3)
		savepointJob(t, s.addr, "2004")
		s.exec(t, "ALTER TABLE inventory.postgres_cdc_table_3 ADD COLUMN f_big BIGINT")
		s.exec(t, "ALTER TABLE inventory.sink_postgres_cdc_table_3 ADD COLUMN f_big BIGINT")
		s.exec(t, "INSERT INTO inventory.postgres_cdc_table_3 VALUES (2, '2', 32767, 65535, 2147483647);")
		restoreJob(t, s.addr, "2004", s.config(t, "postgrescdc_to_postgres_test_add_Filed.conf"))
		s.awaitEqual(t, "2004", table3)
	})
	t.Run("testPostgresCdcCheckDataWithNoPrimaryKey", func(t *testing.T) { s.checkData(t, "2005", "postgrescdc_to_postgres_with_no_primary_key.conf", noKey) })
	t.Run("testPostgresCdcCheckDataWithCustomPrimaryKey", func(t *testing.T) {
		s.checkData(t, "2006", "postgrescdc_to_postgres_with_custom_primary_key.conf", noKey)
	})
}

// cdcTypeColumns is a column for each PostgreSQL type SeaTunnel's Postgres-CDC maps
// (PostgresTypeConverter: the integer, serial, float, numeric and money types, the character
// types, json, jsonb, xml, uuid, inet, bytea, the date and time types, PostGIS's geometry and
// geography, and the arrays SeaTunnel reads), and numeric[].
var cdcTypeColumns = [][2]string{
	{"f_bool", "boolean"}, {"f_bool_arr", "boolean[]"},
	{"f_int2", "smallint"}, {"f_smallserial", "smallserial"}, {"f_int2_arr", "smallint[]"},
	{"f_int4", "integer"}, {"f_serial", "serial"}, {"f_int4_arr", "integer[]"},
	{"f_int8", "bigint"}, {"f_bigserial", "bigserial"}, {"f_int8_arr", "bigint[]"},
	{"f_float4", "real"}, {"f_float4_arr", "real[]"},
	{"f_float8", "double precision"}, {"f_float8_arr", "double precision[]"},
	{"f_numeric", "numeric"}, {"f_numeric_10_2", "numeric(10,2)"}, {"f_numeric_38_18", "numeric(38,18)"},
	{"f_numeric_arr", "numeric[]"}, {"f_money", "money"},
	{"f_char", "char"}, {"f_char_5", "character(5)"}, {"f_char_arr", "char(3)[]"},
	{"f_varchar", "varchar"}, {"f_varchar_20", "character varying(20)"}, {"f_varchar_arr", "varchar[]"},
	{"f_text", "text"}, {"f_text_arr", "text[]"},
	{"f_json", "json"}, {"f_jsonb", "jsonb"}, {"f_xml", "xml"},
	{"f_uuid", "uuid"}, {"f_inet", "inet"}, {"f_bytea", "bytea"},
	{"f_date", "date"}, {"f_time", "time"}, {"f_time0", "time(0)"}, {"f_timetz", "timetz"},
	{"f_timestamp", "timestamp"}, {"f_timestamp3", "timestamp(3)"}, {"f_timestamptz", "timestamptz"},
	{"f_geometry", "geometry"}, {"f_geography", "geography"},
}

// cdcTypeRows are the rows of the type test by id, each column's SQL literal (NULL when a
// column is not named; the serial columns then take their default).
var cdcTypeRows = map[int]map[string]string{
	1: {}, // every column null
	2: { // ordinary values
		"f_bool": "true", "f_bool_arr": "'{true,false}'", "f_int2": "1", "f_smallserial": "10", "f_int2_arr": "'{1,2}'",
		"f_int4": "65535", "f_serial": "10", "f_int4_arr": "'{1,NULL,3}'",
		"f_int8": "2147483648", "f_bigserial": "10", "f_int8_arr": "'{2147483648}'",
		"f_float4": "5.5", "f_float4_arr": "'{5.5,0.1}'", "f_float8": "6.6", "f_float8_arr": "'{6.6,0.1}'",
		"f_numeric": "500", "f_numeric_10_2": "1.5", "f_numeric_38_18": "123.12345", "f_numeric_arr": "'{500,1.50,NULL}'",
		"f_money": "12.34", "f_char": "'a'", "f_char_5": "'ab'", "f_char_arr": "'{abc,d}'",
		"f_varchar": "'abcd..xyz'", "f_varchar_20": "'Hello World'", "f_varchar_arr": `'{a,"b c"}'`,
		"f_text": "'Hello World'", "f_text_arr": "'{x,y}'",
		"f_json": `'{"k": 1, "a": [1, 2.50]}'`, "f_jsonb": `'{"k": 1, "a": [1, 2.50]}'`, "f_xml": `'<a b="1">t</a>'`,
		"f_uuid": "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "f_inet": "'192.168.1.1'", "f_bytea": `'\x32'`,
		"f_date": "'2020-07-17'", "f_time": "'18:00:22.123456'", "f_time0": "'18:00:22'", "f_timetz": "'18:00:22+02'",
		"f_timestamp": "'2020-07-17 18:00:22.123456'", "f_timestamp3": "'2020-07-17 18:00:22.123'",
		"f_timestamptz": "'2020-07-17 18:00:22.123456+02'", "f_geometry": "'SRID=4326;POINT(1 2)'",
		"f_geography": "'SRID=4326;POINT(-71.06 42.36)'",
	},
	3: { // the smallest values, empty strings and arrays
		"f_bool": "false", "f_bool_arr": "'{}'", "f_int2": "-32768", "f_smallserial": "-32768", "f_int2_arr": "'{-32768}'",
		"f_int4": "-2147483648", "f_serial": "-2147483648", "f_int4_arr": "'{-2147483648}'",
		"f_int8": "-9223372036854775808", "f_bigserial": "-9223372036854775808", "f_int8_arr": "'{-9223372036854775808}'",
		"f_float4": "'-3.4028235e38'", "f_float4_arr": "'{-3.4028235e38,1.4e-45}'",
		"f_float8": "'-1.7976931348623157e308'", "f_float8_arr": "'{-1.7976931348623157e308,5e-324}'",
		"f_numeric": "-0.000000000000000000000000000001", "f_numeric_10_2": "-99999999.99",
		"f_numeric_38_18": "-99999999999999999999.999999999999999999", "f_numeric_arr": "'{}'",
		"f_money": "'-92233720368547758.08'", "f_char": "' '", "f_char_5": "''", "f_char_arr": "'{}'",
		"f_varchar": "''", "f_varchar_20": "''", "f_varchar_arr": "'{}'", "f_text": "''", "f_text_arr": "'{}'",
		"f_json": "'[]'", "f_jsonb": "'{}'", "f_xml": "''",
		"f_uuid": "'00000000-0000-0000-0000-000000000000'", "f_inet": "'0.0.0.0/0'", "f_bytea": `'\x'`,
		"f_date": "'0001-01-01'", "f_time": "'00:00:00'", "f_time0": "'00:00:00'", "f_timetz": "'00:00:00+00'",
		"f_timestamp": "'1677-09-22 00:00:00'", "f_timestamp3": "'1970-01-01 00:00:00'", "f_timestamptz": "'1677-09-22 00:00:00+00'",
		"f_geometry": "'POINT EMPTY'", "f_geography": "'SRID=4326;LINESTRING(0 0, 1 1)'",
	},
	4: { // the largest values, long and unusual text
		"f_bool": "true", "f_bool_arr": "'{NULL}'", "f_int2": "32767", "f_smallserial": "32767", "f_int2_arr": "'{32767,NULL}'",
		"f_int4": "2147483647", "f_serial": "2147483647", "f_int4_arr": "'{2147483647}'",
		"f_int8": "9223372036854775807", "f_bigserial": "9223372036854775807", "f_int8_arr": "'{9223372036854775807,NULL}'",
		"f_float4": "'3.4028235e38'", "f_float4_arr": "'{3.4028235e38}'",
		"f_float8": "'1.7976931348623157e308'", "f_float8_arr": "'{1.7976931348623157e308}'",
		"f_numeric": "123456789012345678901234567890.123456789012345678901234567890", "f_numeric_10_2": "99999999.99",
		"f_numeric_38_18": "99999999999999999999.999999999999999999", "f_numeric_arr": "'{0.000,-1e-20,123456789012345678901234567890}'",
		"f_money": "'92233720368547758.07'", "f_char": "'z'", "f_char_5": "'abcde'", "f_char_arr": `'{"a  ",NULL}'`,
		"f_varchar": "'é中😀'", "f_varchar_20": "'12345678901234567890'", "f_varchar_arr": `'{NULL,""}'`,
		"f_text": `E'é中😀 \\ '' " \n\t\r'`, "f_text_arr": `'{"a b","c,d","e\"f",NULL,"","NULL"}'`,
		"f_xml": `'<r><x a="&lt;"/>t&amp;x<![CDATA[c]]></r>'`, "f_json": `'{"b": 1,  "a": [1, 2.50, null], "s": "x\u00e9", "b": 2}'`,
		"f_jsonb": `'{"b": 1,  "a": [1, 2.50, null], "s": "x\u00e9", "b": 2}'`, "f_uuid": "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
		"f_inet": "'2001:db8::1/64'", "f_bytea": `'\x00ff10e282ac'`,
		"f_date": "'9999-12-31'", "f_time": "'23:59:59.999999'", "f_time0": "'23:59:59'", "f_timetz": "'23:59:59.999999-12'",
		"f_timestamp": "'2262-04-10 23:59:59.999999'", "f_timestamp3": "'2262-04-10 23:59:59.999'",
		"f_timestamptz": "'2262-04-10 23:59:59.999999+00'", "f_geometry": "'SRID=3857;POLYGON((0 0,1 0,1 1,0 0))'",
		"f_geography": "'SRID=4326;POINT(180 -90)'",
	},
	5: { // special floats, zeros, JSON scalars, an IPv6 host
		"f_int2": "0", "f_int4": "0", "f_int8": "0", "f_float4": "'NaN'", "f_float4_arr": "'{NaN,Infinity,-Infinity,-0}'",
		"f_float8": "'-Infinity'", "f_float8_arr": "'{NaN,Infinity,-0}'", "f_numeric": "0", "f_numeric_10_2": "0",
		"f_numeric_38_18": "0", "f_money": "0", "f_char_5": "' b'", "f_varchar": `'\'`, "f_text": `E'line1\nline2'`,
		"f_json": "'null'", "f_jsonb": `'"s"'`, "f_inet": "'::1'", "f_bytea": `'\xc328'`, "f_date": "'2000-02-29'",
	},
	6: { // a large value stored out of line
		"f_int4": "6", "f_text": "repeat('0123456789', 2000)",
	},
}

// cdcTypeRow is the SQL that inserts row id of cdcTypeRows into table.
func cdcTypeRow(table string, id int) string {
	cols, vals := []string{"id"}, []string{strconv.Itoa(id)}
	for _, c := range cdcTypeColumns {
		if v, ok := cdcTypeRows[id][c[0]]; ok {
			cols, vals = append(cols, c[0]), append(vals, v)
		}
	}
	return "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")"
}

// cdcCompareAs is how a column's values are compared when their text is not: a timetz is
// read as a time of day in UTC (SeaTunnel's type for it is a time without zone), so its
// offset is not kept, its instant is.
var cdcCompareAs = map[string]string{"f_timetz": "(f_timetz AT TIME ZONE 'UTC')::text"}

// columnDiffs compares two tables column by column, by the text PostgreSQL prints for each
// value: for every column whose values differ, one row where they do. Both tables are read
// in one statement.
func columnDiffs(t *testing.T, conn *pgx.Conn, src, sink string) []string {
	t.Helper()
	var parts []string
	for _, c := range append([][2]string{{"id", ""}}, cdcTypeColumns...) {
		n := c[0]
		expr, ok := cdcCompareAs[n]
		if !ok {
			expr = n + "::text"
		}
		parts = append(parts, fmt.Sprintf(`(SELECT %[1]s || ': id ' || coalesce(a.id::text, b.id::text) || ' source ' || coalesce(quote_literal(a.v), 'NULL') || ', sink ' || coalesce(quote_literal(b.v), 'NULL')
  FROM (SELECT id, %[2]s v FROM %[3]s) a FULL JOIN (SELECT id, %[2]s v FROM %[4]s) b ON a.id = b.id
  WHERE a.id IS NULL OR b.id IS NULL OR a.v IS DISTINCT FROM b.v ORDER BY coalesce(a.id, b.id) LIMIT 1)`,
			quoteLiteral(n), expr, src, sink))
	}
	return textRows(t, conn, "SELECT d FROM ("+strings.Join(parts, " UNION ALL ")+") x(d) WHERE d IS NOT NULL")
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestPostgresCDCTypesToJdbc: a column of every type SeaTunnel's Postgres-CDC maps, NULLs and
// edge values, written by Postgres-CDC → Jdbc into a table of the same columns: the rows of the
// snapshot and of the stream (inserts, updates of every column, to and from NULL, of a
// row's key and of a row with a large value left unchanged, deletes) reach the sink table
// unchanged, column by column.
func TestPostgresCDCTypesToJdbc(t *testing.T) {
	const database = "strait_cdc_types" // its own database: PostGIS is installed into it
	ensureDatabase(t, postgres(t), database)
	host := testServerHost(t)
	conn := connectTo(t, fmt.Sprintf("postgres://test:test@%s/%s?sslmode=disable", host, database))
	n := time.Now().UnixNano() % 1_000_000_000
	schema, slot := fmt.Sprintf("types_%d", n), fmt.Sprintf("strait_types_%d", n)
	src, sink := schema+".src", schema+".sink"
	createTypeTables(t, conn, schema, src, sink)
	dropCDCWhenDone(t, conn, slot, schema)

	addr := startDev(t)
	jdbcURL := fmt.Sprintf("jdbc:postgresql://%s/%s", host, database)
	id := submit(t, addr, writeJob(t, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 2000
}
source {
  Postgres-CDC {
    plugin_output = "cdc"
    base-url = %[1]q
    username = "test"
    password = "test"
    table-names = ["%[2]s.%[3]s"]
    slot.name = %[4]q
  }
}
sink {
  jdbc {
    plugin_input = "cdc"
    url = %[1]q
    user = "test"
    password = "test"
    generate_sink_sql = true
    database = %[2]s
    table = %[5]q
    primary_keys = ["id"]
  }
}`, jdbcURL, database, src, slot, sink)))
	t.Cleanup(func() { _, _ = run(t, "job", "cancel", "--address", addr, id) })

	awaitSameColumns(t, conn, addr, id, src, sink, "the snapshot")
	for _, sql := range typeChanges(src) {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	awaitSameColumns(t, conn, addr, id, src, sink, "the changes")
	var rows int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+sink).Scan(&rows); err != nil || rows != 11 {
		t.Fatalf("the sink table holds %d rows (%v), want 11", rows, err)
	}
}

// createTypeTables creates the source table of the type test with its rows (REPLICA
// IDENTITY FULL, its text column stored out of line) and an empty sink table of the same
// columns.
func createTypeTables(t *testing.T, conn *pgx.Conn, schema, src, sink string) {
	t.Helper()
	var ddl []string
	for _, c := range cdcTypeColumns {
		ddl = append(ddl, c[0]+" "+c[1])
	}
	columns := "(id int PRIMARY KEY, " + strings.Join(ddl, ", ") + ")"
	setup := []string{"CREATE EXTENSION IF NOT EXISTS postgis", "CREATE SCHEMA " + schema,
		"CREATE TABLE " + src + " " + columns, "ALTER TABLE " + src + " REPLICA IDENTITY FULL",
		"ALTER TABLE " + src + " ALTER COLUMN f_text SET STORAGE EXTERNAL", "CREATE TABLE " + sink + " " + columns}
	for id := 1; id <= 6; id++ {
		setup = append(setup, cdcTypeRow(src, id))
	}
	for _, sql := range setup {
		if _, err := conn.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// typeChanges are the changes the type test makes while the job streams: the rows again
// (ids 11 to 16), every column of a row to NULL and of another from NULL to the largest
// values, an update leaving the large value as it is, an update of the key, deletes, and a
// transaction inserting and updating a row.
func typeChanges(src string) []string {
	var toNull, names []string
	for _, c := range cdcTypeColumns {
		names = append(names, c[0])
		switch c[1] {
		case "smallserial", "serial", "bigserial":
			toNull = append(toNull, c[0]+" = 0") // NOT NULL
		default:
			toNull = append(toNull, c[0]+" = NULL")
		}
	}
	cols := strings.Join(names, ", ")
	return []string{
		"INSERT INTO " + src + " (id, " + cols + ") SELECT id + 10, " + cols + " FROM " + src,
		"UPDATE " + src + " SET " + strings.Join(toNull, ", ") + " WHERE id = 2",
		"UPDATE " + src + " SET (" + cols + ") = (SELECT " + cols + " FROM " + src + " WHERE id = 4) WHERE id = 1",
		"UPDATE " + src + " SET f_int4 = 7 WHERE id = 6",
		"UPDATE " + src + " SET id = 50 WHERE id = 5",
		"DELETE FROM " + src + " WHERE id IN (3, 13)",
		"BEGIN; " + cdcTypeRow(src, 3) + "; UPDATE " + src + " SET f_numeric = 500.00, f_text = 'in a transaction' WHERE id = 3; COMMIT",
	}
}

// awaitSameColumns waits up to 60 s for the sink table to equal the source table column by
// column; a job that stops fails the test at once.
func awaitSameColumns(t *testing.T, conn *pgx.Conn, addr, id, src, sink, what string) {
	t.Helper()
	awaitJobDiff(t, addr, id, 60*time.Second, func() string {
		if diffs := columnDiffs(t, conn, src, sink); len(diffs) > 0 {
			return what + ": columns that differ:\n  " + strings.Join(diffs, "\n  ")
		}
		return ""
	})
}
