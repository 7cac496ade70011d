package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// SeaTunnel's own Jdbc end-to-end configs for MySQL (connector-jdbc-e2e, part 1), kept
// unchanged in connectors/jdbc/testdata/seatunnel-mysql and run by strait run against the
// tables and data JdbcMysqlIT and JdbcMysqlMultipleTablesIT prepare, with the checks they
// make. They run on a MariaDB server of the test's own (its databases seatunnel, source and
// sink are the ones SeaTunnel's configs name); the copy submitted has SeaTunnel's host
// (mysql-e2e:3306) and its root credentials replaced by that server's address and user.

// jdbcMySQLConfig writes the copy of a config that strait runs: host and credentials
// replaced, nothing else.
func jdbcMySQLConfig(t *testing.T, name, hostPort string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "connectors", "jdbc", "testdata", "seatunnel-mysql", name))
	if err != nil {
		t.Fatalf("SeaTunnel's config %s: %v", name, err)
	}
	text := strings.NewReplacer(
		"mysql-e2e:3306", hostPort,
		`user = "root"`, `user = "test"`,
		`password = "Abc!@#135_seatunnel"`, `password = "test"`,
	).Replace(string(b))
	return writeFile(t, name, text)
}

// jdbcMySQLColumns are the columns of JdbcMysqlIT's tables (CREATE_SQL), with their types;
// JdbcMysqlMultipleTablesIT's lack c_time.
var jdbcMySQLColumns = [][2]string{
	{"c_bit_1", "bit(1)"}, {"c_bit_8", "bit(8)"}, {"c_bit_16", "bit(16)"}, {"c_bit_32", "bit(32)"}, {"c_bit_64", "bit(64)"},
	{"c_boolean", "tinyint(1)"}, {"c_tinyint", "tinyint(4)"}, {"c_tinyint_unsigned", "tinyint(3) unsigned"},
	{"c_smallint", "smallint(6)"}, {"c_smallint_unsigned", "smallint(5) unsigned"}, {"c_mediumint", "mediumint(9)"},
	{"c_mediumint_unsigned", "mediumint(8) unsigned"}, {"c_int", "int(11)"}, {"c_integer", "int(11)"},
	{"c_bigint", "bigint(20)"}, {"c_bigint_unsigned", "bigint(20) unsigned"}, {"c_decimal", "decimal(20, 0)"},
	{"c_decimal_unsigned", "decimal(38, 18)"}, {"c_float", "float"}, {"c_float_unsigned", "float unsigned"},
	{"c_double", "double"}, {"c_double_unsigned", "double unsigned"}, {"c_char", "char(1)"}, {"c_tinytext", "tinytext"},
	{"c_mediumtext", "mediumtext"}, {"c_text", "text"}, {"c_varchar", "varchar(255)"}, {"c_json", "json"},
	{"c_longtext", "longtext"}, {"c_date", "date"}, {"c_datetime", "datetime"}, {"c_time", "time"},
	{"c_timestamp", "timestamp NULL"}, {"c_tinyblob", "tinyblob"}, {"c_mediumblob", "mediumblob"}, {"c_blob", "blob"},
	{"c_longblob", "longblob"}, {"c_varbinary", "varbinary(255)"}, {"c_binary", "binary(1)"}, {"c_year", "year(4)"},
	{"c_int_unsigned", "int(10) unsigned"}, {"c_integer_unsigned", "int(10) unsigned"},
	{"c_bigint_30", "BIGINT(40) unsigned"}, {"c_decimal_unsigned_30", "DECIMAL(30) unsigned"}, {"c_decimal_30", "DECIMAL(30)"},
}

// jdbcMySQLCreate is CREATE_SQL for table, with or without c_time, with or without the
// unique key on c_bigint_30.
func jdbcMySQLCreate(table string, withTime, unique bool) string {
	var defs []string
	for _, c := range jdbcMySQLColumns {
		if c[0] == "c_time" && !withTime {
			continue
		}
		defs = append(defs, "`"+c[0]+"` "+c[1]+" DEFAULT NULL")
	}
	if unique {
		defs = append(defs, "UNIQUE (c_bigint_30)")
	}
	return "CREATE TABLE IF NOT EXISTS " + table + " (\n  " + strings.Join(defs, ",\n  ") + "\n)"
}

// jdbcMySQLInsert inserts the 100 rows of initTestData: row i (0..99) with the values the
// Java test binds, now() fixed at the moment the rows are made; the last row of JdbcMysqlIT
// (nullRow) is null but for c_bigint_30 and c_decimal_unsigned_30.
func jdbcMySQLInsert(table string, withTime, nullRow bool) string {
	now := time.Now().UTC().Truncate(time.Second)
	var rows []string
	for i := range 100 {
		b := fmt.Sprintf("%02x", byte(i))
		vals := []string{
			fmt.Sprint(1 - i%2), "X'" + b + "'", "X'" + strings.Repeat(b, 2) + "'", "X'" + strings.Repeat(b, 4) + "'", "X'" + strings.Repeat(b, 8) + "'",
			fmt.Sprint(1 - i%2),
		}
		for range 9 { // c_tinyint ... c_integer, c_year
			vals = append(vals, fmt.Sprint(i))
		}
		vals = append(vals, "1", "1", "1", // c_int_unsigned, c_integer_unsigned, c_bigint
			// c_bigint_unsigned, then BigDecimal.valueOf(i, 18) in c_decimal (rounded to 0) and
			// c_decimal_unsigned, the floats, c_char
			fmt.Sprint(i), fmt.Sprintf("0.%018d", i), fmt.Sprintf("0.%018d", i), "1.1", "1.1", "1.1", "1.1", "'f'")
		for range 4 {
			vals = append(vals, fmt.Sprintf("'f1_%d'", i))
		}
		vals = append(vals, fmt.Sprintf(`'{"aa":"bb_%d"}'`, i), fmt.Sprintf("'f1_%d'", i),
			"'"+now.Format(time.DateOnly)+"'", "'"+now.Format(time.DateTime)+"'")
		if withTime {
			vals = append(vals, "'"+now.Format(time.TimeOnly)+"'")
		}
		vals = append(vals, "'"+now.Format(time.DateTime)+"'")
		for range 5 {
			vals = append(vals, "'test'")
		}
		vals = append(vals, "'f'", fmt.Sprintf("2844674407371055%03d", i),
			fmt.Sprintf("999999999999999999999999999%03d", 899+i), fmt.Sprintf("999999999999999999999999999%03d", 899+i))
		if nullRow && i == 99 {
			for j := range vals[:len(vals)-3] {
				vals[j] = "NULL"
			}
			vals[len(vals)-1] = "NULL"
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	// the Java test binds in initTestData's order, which puts c_year after c_integer and
	// c_bigint after c_integer_unsigned
	order := []string{"c_bit_1", "c_bit_8", "c_bit_16", "c_bit_32", "c_bit_64", "c_boolean", "c_tinyint",
		"c_tinyint_unsigned", "c_smallint", "c_smallint_unsigned", "c_mediumint", "c_mediumint_unsigned", "c_int",
		"c_integer", "c_year", "c_int_unsigned", "c_integer_unsigned", "c_bigint", "c_bigint_unsigned", "c_decimal",
		"c_decimal_unsigned", "c_float", "c_float_unsigned", "c_double", "c_double_unsigned", "c_char", "c_tinytext",
		"c_mediumtext", "c_text", "c_varchar", "c_json", "c_longtext", "c_date", "c_datetime", "c_time", "c_timestamp",
		"c_tinyblob", "c_mediumblob", "c_blob", "c_longblob", "c_varbinary", "c_binary", "c_bigint_30",
		"c_decimal_unsigned_30", "c_decimal_30"}
	if !withTime {
		order = append(order[:34:34], order[35:]...)
	}
	return "INSERT INTO " + table + " (" + strings.Join(order, ", ") + ") VALUES\n" + strings.Join(rows, ",\n")
}

// jdbcMySQLSame checks that two queries return the same rows (in order when sorted is
// false) and that there are rows.
func jdbcMySQLSame(t *testing.T, db *sql.DB, wantSQL, gotSQL string, sorted bool) {
	t.Helper()
	want, got := mysqlQueryRows(t, db, wantSQL), mysqlQueryRows(t, db, gotSQL)
	if len(want) == 0 {
		t.Fatal("the source holds no rows")
	}
	if sorted {
		sort.Strings(want)
		sort.Strings(got)
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

// TestJdbcMySQLSeaTunnelIT runs JdbcMysqlIT's configs (the query sink of every MySQL type,
// parallel reads split on an unsigned DECIMAL(30) and, between bounds, on an unsigned
// BIGINT(40)) and the XA config beside them: each copies the 100 rows and the sink must then
// hold what the source holds, compared as JdbcMysqlIT's defaultCompare does (every column,
// ordered by c_bigint_30).
func TestJdbcMySQLSeaTunnelIT(t *testing.T) {
	m := startPrivateMariaDB(t, false)
	db := newMySQLDatabase(t, m.dsn(), "seatunnel")
	db.exec(t, jdbcMySQLCreate("source", true, true), jdbcMySQLCreate("sink", true, true), jdbcMySQLInsert("source", true, true))
	all := "SELECT * FROM %s ORDER BY c_bigint_30"
	for _, tc := range []struct {
		conf   string
		check  string
		sorted bool
	}{
		{"jdbc_mysql_source_and_sink.conf", all, false},
		{"jdbc_mysql_source_and_sink_parallel.conf", all, false},
		{"jdbc_mysql_source_and_sink_parallel_upper_lower.conf", all, false},
		// not in JdbcMysqlIT's list; its sink writes every column but the last three
		{"jdbc_mysql_source_and_sink_xa.conf", "SELECT c_bit_1, c_bit_8, c_bit_16, c_bit_32, c_bit_64, c_boolean, c_tinyint, c_tinyint_unsigned, c_smallint, c_smallint_unsigned, c_mediumint, c_mediumint_unsigned, c_int, c_integer, c_bigint, c_bigint_unsigned, c_decimal, c_decimal_unsigned, c_float, c_float_unsigned, c_double, c_double_unsigned, c_char, c_tinytext, c_mediumtext, c_text, c_varchar, c_json, c_longtext, c_date, c_datetime, c_time, c_timestamp, c_tinyblob, c_mediumblob, c_blob, c_longblob, c_varbinary, c_binary, c_year, c_int_unsigned, c_integer_unsigned FROM %s", true},
	} {
		t.Run(strings.TrimSuffix(tc.conf, ".conf"), func(t *testing.T) {
			defer db.exec(t, "TRUNCATE TABLE sink")
			code, out := run(t, "run", jdbcMySQLConfig(t, tc.conf, m.hostPort()))
			checkRun(t, tc.conf, code, out, 0)
			jdbcMySQLSame(t, db.DB, fmt.Sprintf(tc.check, "source"), fmt.Sprintf(tc.check, "sink"), tc.sorted)
		})
	}
}

// TestJdbcMySQLSeaTunnelMultipleTablesIT runs JdbcMysqlMultipleTablesIT's configs: table1
// read whole by table_path into sink.table1, then table1 and table2 (one by table_path,
// one by query, both filtered by where_condition) into the sink database's tables of the
// same names through ${table_name}; each sink table must equal its source (SELECT *).
func TestJdbcMySQLSeaTunnelMultipleTablesIT(t *testing.T) {
	m := startPrivateMariaDB(t, false)
	newMySQLDatabase(t, m.dsn(), "seatunnel") // the container's database, which the url names
	src := newMySQLDatabase(t, m.dsn(), "source")
	sink := newMySQLDatabase(t, m.dsn(), "sink")
	for _, table := range []string{"table1", "table2"} {
		src.exec(t, jdbcMySQLCreate(table, false, false), jdbcMySQLInsert(table, false, false))
		sink.exec(t, jdbcMySQLCreate(table, false, false))
	}
	clear := func(t *testing.T) { sink.exec(t, "TRUNCATE TABLE table1", "TRUNCATE TABLE table2") }
	t.Run("jdbc_mysql_source_using_table_path", func(t *testing.T) {
		clear(t)
		code, out := run(t, "run", jdbcMySQLConfig(t, "jdbc_mysql_source_using_table_path.conf", m.hostPort()))
		checkRun(t, "jdbc_mysql_source_using_table_path.conf", code, out, 0)
		jdbcMySQLSame(t, src.DB, "SELECT * FROM source.table1", "SELECT * FROM sink.table1", false)
	})
	t.Run("jdbc_mysql_source_and_sink_with_multiple_tables", func(t *testing.T) {
		clear(t)
		code, out := run(t, "run", jdbcMySQLConfig(t, "jdbc_mysql_source_and_sink_with_multiple_tables.conf", m.hostPort()))
		checkRun(t, "jdbc_mysql_source_and_sink_with_multiple_tables.conf", code, out, 0)
		for _, table := range []string{"table1", "table2"} {
			jdbcMySQLSame(t, src.DB, "SELECT * FROM source."+table, "SELECT * FROM sink."+table, false)
		}
	})
}
