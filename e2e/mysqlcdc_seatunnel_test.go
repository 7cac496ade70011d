package e2e

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// SeaTunnel's MySQL-CDC end-to-end suite (MysqlCDCIT), run as SeaTunnel runs it: its configs,
// its setup script and its DDL are kept unchanged in connectors/mysqlcdc/testdata/seatunnel.
// The configs reach the database as host mysql_cdc_e2e, SeaTunnel's container alias: the
// test substitutes the host and port of a MariaDB of its own (so that it may truncate and
// refill SeaTunnel's tables while other tests use the shared server) in the text it
// submits; MySQL 8's collation utf8mb4_0900_ai_ci, which the DDL names and MariaDB 10.11
// has not, becomes utf8mb4_unicode_520_ci in the DDL it runs. The server gets SeaTunnel's users as its container does: mysqluser (the
// container's user), then st_user_source and st_user_sink from setup.sql.

// mysqlCDCFixture is the path of a file of SeaTunnel's MySQL-CDC suite.
func mysqlCDCFixture(name string) string { return connectorSuite("mysqlcdc", name) }

const mysqlCDCHost = "mysql_cdc_e2e:3306"

// mysqlCDCSuite is the server and the dev server SeaTunnel's configs run on.
type mysqlCDCSuite struct {
	server *privateMariaDB
	db     *sql.DB // as mysqluser, SeaTunnel's test's connection
	addr   string
}

func newMySQLCDCSuite(t *testing.T) *mysqlCDCSuite {
	t.Helper()
	s := newMySQLCDCServer(t)
	// MariaDB 10.11 has not MySQL 8's default collation, which the DDL names
	s.server.script(t, mysqlCDCFixture("ddl/mysql_cdc.sql"), strings.NewReplacer("utf8mb4_0900_ai_ci", "utf8mb4_unicode_520_ci"))
	return s
}

// newMySQLCDCServer starts a MariaDB of the suite's own with SeaTunnel's users (mysqluser,
// then those of setup.sql), connects to it as mysqluser and starts a dev server with the
// further flags given.
func newMySQLCDCServer(t *testing.T, devFlags ...string) *mysqlCDCSuite {
	t.Helper()
	s := &mysqlCDCSuite{server: startPrivateMariaDB(t, true)}
	s.server.admin(t, "CREATE USER 'mysqluser'@'%' IDENTIFIED BY 'mysqlpw'")
	s.server.script(t, mysqlCDCFixture("docker/setup.sql"), strings.NewReplacer())
	db, err := sql.Open("mysql", fmt.Sprintf("mysqluser:mysqlpw@tcp(%s)/", s.server.hostPort()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s.db = db
	s.addr = startDev(t, devFlags...)
	return s
}

func (s *mysqlCDCSuite) exec(t *testing.T, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// config returns a copy of a SeaTunnel config reaching the test's server instead of host
// mysql_cdc_e2e; the file itself stays unchanged.
func (s *mysqlCDCSuite) config(t *testing.T, name string) string {
	t.Helper()
	return copyWithHost(t, mysqlCDCFixture(name), mysqlCDCHost, s.server.hostPort())
}

// submit runs a config under a fixed job id; the job is canceled when the subtest ends, and
// waited for, so that the next job's replica (server-id 5652 again) is alone.
func (s *mysqlCDCSuite) submit(t *testing.T, id, name string) {
	t.Helper()
	submitAs(t, s.addr, id, s.config(t, name))
}

// The queries of SeaTunnel's test: its source and sink SELECTs (the sink's casts f_year as a
// year in MySQL 8).
const (
	mysqlCDCColumns = `id, cast(f_binary as char) as f_binary, cast(f_blob as char) as f_blob, cast(f_long_varbinary as char) as f_long_varbinary,
 cast(f_longblob as char) as f_longblob, cast(f_tinyblob as char) as f_tinyblob, cast(f_varbinary as char) as f_varbinary,
 f_smallint, f_smallint_unsigned, f_mediumint, f_mediumint_unsigned, f_int, f_int_unsigned, f_integer, f_integer_unsigned,
 f_bigint, f_bigint_unsigned, f_numeric, f_decimal, f_float, f_double, f_double_precision, f_longtext, f_mediumtext,
 f_text, f_tinytext, f_varchar, f_date, f_datetime, f_timestamp, f_bit1, cast(f_bit64 as char) as f_bit64, f_char,
 f_enum, cast(f_mediumblob as char) as f_mediumblob, f_long_varchar, f_real, f_time, f_tinyint, f_tinyint_unsigned,
 f_json, `
	mysqlCDCSourceSQL = "select " + mysqlCDCColumns + "f_year from %s.%s"
	// MariaDB has no CAST(... AS YEAR); a YEAR column reads as a year without it
	mysqlCDCSinkSQL = "select " + mysqlCDCColumns + "f_year from %s.%s"
)

// awaitEqual is SeaTunnel's check: within 60 s, each pair of queries reads the same rows in
// the same order (assertIterableEquals). A job that stops fails the check at once.
func (s *mysqlCDCSuite) awaitEqual(t *testing.T, id string, pairs ...[2]string) {
	t.Helper()
	awaitJobDiff(t, s.addr, id, 60*time.Second, func() string {
		diff := ""
		for _, p := range pairs {
			a, b := mysqlQueryRows(t, s.db, p[0]), mysqlQueryRows(t, s.db, p[1])
			if d := firstDiff(a, b); d != "" {
				diff += "\n" + p[1] + ": " + d
			}
		}
		return diff
	})
}

func sourceSinkPair(db, table, sinkDB, sinkTable string, sinkCast bool) [2]string {
	sink := mysqlCDCSourceSQL
	if sinkCast {
		sink = mysqlCDCSinkSQL
	}
	return [2]string{fmt.Sprintf(mysqlCDCSourceSQL, db, table), fmt.Sprintf(sink, sinkDB, sinkTable)}
}

// The columns and a row of SeaTunnel's CDC end-to-end table (mysql_cdc_e2e_source_table):
// the row's id, f_real, f_tinyint_unsigned and f_year are its parameters, as its ITs vary
// them.
const (
	cdcE2EColumns = `( id, f_binary, f_blob, f_long_varbinary, f_longblob, f_tinyblob, f_varbinary, f_smallint,
 f_smallint_unsigned, f_mediumint, f_mediumint_unsigned, f_int, f_int_unsigned, f_integer,
 f_integer_unsigned, f_bigint, f_bigint_unsigned, f_numeric, f_decimal, f_float, f_double,
 f_double_precision, f_longtext, f_mediumtext, f_text, f_tinytext, f_varchar, f_date, f_datetime,
 f_timestamp, f_bit1, f_bit64, f_char, f_enum, f_mediumblob, f_long_varchar, f_real, f_time,
 f_tinyint, f_tinyint_unsigned, f_json, f_year`
	cdcE2ERow = `( %d, 0x61626374000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000,
 0x68656C6C6F, 0x18000000789C0BC9C82C5600A244859CFCBC7485B2C4A2A4CCBCC4A24A00697308D4, NULL,
 0x74696E79626C6F62, 0x48656C6C6F20776F726C64, 12345, 54321, 123456, 654321, 1234567, 7654321, 1234567, 7654321,
 123456789, 987654321, 123, 789, 12.34, 56.78, 90.12, 'This is a long text field', 'This is a medium text field',
 'This is a text field', 'This is a tiny text field', 'This is a varchar field', '2022-04-27', '2022-04-27 14:30:00',
 '2023-04-27 11:08:40', 1, b'0101010101010101010101010101010101010101010101010101010101010101', 'C', 'enum2',
 0x1B000000789C0BC9C82C5600A24485DCD494CCD25C85A49CFC2485B4CCD49C140083FF099A, 'This is a long varchar field',
 %s, '14:30:00', -128, %d, '{ "key": "value" }', %d`
)

// upsertDelete is SeaTunnel's upsertDeleteSourceTable: rows 5 and 6 inserted, 2 deleted, 3
// updated.
func (s *mysqlCDCSuite) upsertDelete(t *testing.T, db, table string) {
	t.Helper()
	insert := func(id, year int) string {
		return fmt.Sprintf("INSERT INTO %s.%s "+cdcE2EColumns+" ) VALUES "+cdcE2ERow+" )", db, table, id, "12.345", 255, year)
	}
	s.exec(t, insert(5, 1992), insert(6, 1999),
		fmt.Sprintf("DELETE FROM %s.%s where id = 2", db, table),
		fmt.Sprintf("UPDATE %s.%s SET f_bigint = 10000 where id = 3", db, table))
}

func (s *mysqlCDCSuite) clear(t *testing.T, db string, tables ...string) {
	t.Helper()
	for _, tb := range tables {
		s.exec(t, "truncate table "+db+"."+tb)
	}
}

// connections counts a user's connections, as SeaTunnel's getConnectionStatus does.
func (s *mysqlCDCSuite) connections(t *testing.T, user string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow("SELECT count(*) FROM information_schema.processlist WHERE USER = ?", user).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSeaTunnelMySQLCDC runs each test of SeaTunnel's MysqlCDCIT with its config, its
// changes and its checks. Each subtest starts with the tables it uses cleared, as
// SeaTunnel's do; SeaTunnel's DDL fills them once.
func TestSeaTunnelMySQLCDC(t *testing.T) {
	s := newMySQLCDCSuite(t)
	const (
		db1, db2 = "mysql_cdc", "mysql_cdc2"
		table1   = "mysql_cdc_e2e_source_table"
		table2   = "mysql_cdc_e2e_source_table2"
		noKey    = "mysql_cdc_e2e_source_table_no_primary_key"
		custom1  = "mysql_cdc_e2e_source_table_1_custom_primary_key"
		custom2  = "mysql_cdc_e2e_source_table_2_custom_primary_key"
		sink     = "mysql_cdc_e2e_sink_table"
	)
	// refill runs a job copying a table of db1 to the sink table; the table is then emptied
	// and given SeaTunnel's changes, which the sink table must follow.
	refill := func(t *testing.T, id, config, table string) {
		t.Helper()
		s.clear(t, db1, sink)
		s.submit(t, id, config)
		pair := sourceSinkPair(db1, table, db1, sink, true)
		s.awaitEqual(t, id, pair)
		s.exec(t, "DELETE FROM "+db1+"."+table)
		s.upsertDelete(t, db1, table)
		s.awaitEqual(t, id, pair)
	}
	// multiTable runs a job copying tables of db1 to those of the same names in db2, all
	// emptied first; SeaTunnel's changes to each table must reach its copy.
	multiTable := func(t *testing.T, id, config string, tables ...string) {
		t.Helper()
		s.clear(t, db1, tables...)
		s.clear(t, db2, tables...)
		s.submit(t, id, config)
		var pairs [][2]string
		for _, tb := range tables {
			s.upsertDelete(t, db1, tb)
			pairs = append(pairs, sourceSinkPair(db1, tb, db2, tb, false))
		}
		s.awaitEqual(t, id, pairs...)
	}
	t.Run("testMysqlCdcCheckDataE2e", func(t *testing.T) {
		s.clear(t, db1, table1, sink)
		s.submit(t, "3001", "mysqlcdc_to_mysql.conf")
		pair := sourceSinkPair(db1, table1, db1, sink, true)
		s.awaitEqual(t, "3001", pair)
		s.upsertDelete(t, db1, table1)
		s.awaitEqual(t, "3001", pair)
	})
	t.Run("testMysqlCdcCheckDataWithDisableExactlyonce", func(t *testing.T) {
		refill(t, "3002", "mysqlcdc_to_mysql_with_disable_exactly_once.conf", table1)
	})
	t.Run("testMysqlCdcCheckDataWithNoPrimaryKey", func(t *testing.T) {
		refill(t, "3003", "mysqlcdc_to_mysql_with_no_primary_key.conf", noKey)
	})
	t.Run("testMysqlCdcMultiTableE2e", func(t *testing.T) {
		multiTable(t, "3004", "mysqlcdc_to_mysql_with_multi_table_mode_two_table.conf", table1, table2)
	})
	t.Run("testMultiTableWithRestore", func(t *testing.T) {
		// SeaTunnel's test waits for one connection of each user: the source's replica
		// (Strait's too: the snapshot's connections are closed once the log is read) and the
		// sink's one session: of the three writers only the one fed by the subtask reading the
		// log is given rows, and a subtask's tables share its session, opened by its first
		// flush. Between the savepoint and the restore it waits for none of either user: the
		// stopped job leaves no connection behind.
		s.clear(t, db1, table1, table2)
		s.clear(t, db2, table1, table2)
		s.submit(t, "3005", "mysqlcdc_to_mysql_with_multi_table_mode_one_table.conf")
		s.upsertDelete(t, db1, table1)
		s.awaitEqual(t, "3005", sourceSinkPair(db1, table1, db2, table1, false))
		s.awaitConnections(t, "st_user_source", 1)
		s.awaitConnections(t, "st_user_sink", 1)
		savepointJob(t, s.addr, "3005")
		s.awaitConnections(t, "st_user_source", 0)
		s.awaitConnections(t, "st_user_sink", 0)
		// restored with a second table
		restoreJob(t, s.addr, "3005", s.config(t, "mysqlcdc_to_mysql_with_multi_table_mode_two_table.conf"))
		s.upsertDelete(t, db1, table2)
		s.awaitEqual(t, "3005", sourceSinkPair(db1, table1, db2, table1, false), sourceSinkPair(db1, table2, db2, table2, false))
		s.awaitConnections(t, "st_user_source", 1)
		s.awaitConnections(t, "st_user_sink", 1)
	})
	t.Run("testMysqlCdcMultiTableWithCustomPrimaryKey", func(t *testing.T) {
		multiTable(t, "3006", "mysqlcdc_to_mysql_with_custom_primary_key.conf", custom1, custom2)
	})
}

// awaitConnections waits, as SeaTunnel's test does, until a user holds n connections.
func (s *mysqlCDCSuite) awaitConnections(t *testing.T, user string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := s.connections(t, user)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d connections after 60 s, want %d", user, got, n)
		}
		time.Sleep(time.Second) // SeaTunnel's poll interval
	}
}
