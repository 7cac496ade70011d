package binlog

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connectors/internal/mytest"
)

// liveServer returns how to reach the test server and a database/sql handle on its test
// database; without the variable the test fails.
func liveServer(t *testing.T) (Config, *sql.DB) {
	t.Helper()
	mc := mytest.Server(t)
	mc.DBName = "test"
	mc.MultiStatements = true
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return Config{Addr: mc.Addr, User: mc.User, Password: mc.Passwd, Timeout: 10 * time.Second}, db
}

func exec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func TestLiveLogin(t *testing.T) {
	cfg, _ := liveServer(t)
	ctx := context.Background()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, err := c.queryValue("SELECT @@log_bin")
	if err != nil || v != "1" {
		t.Fatalf("SELECT @@log_bin = %q, %v", v, err)
	}
	bad := cfg
	bad.Password = "wrong"
	_, err = Dial(ctx, bad)
	if !IsCode(err, ErrAccessDenied) {
		t.Fatalf("a wrong password: got %v, want error %d", err, ErrAccessDenied)
	}
	if !strings.Contains(err.Error(), "Access denied") {
		t.Fatalf("error %q does not say access was denied", err)
	}
}

// show formats a decoded value for comparison in tests.
func show(v Value) string {
	switch {
	case v.Absent:
		return "<absent>"
	case v.Null:
		return "NULL"
	}
	switch v.Type {
	case TypeTiny, TypeShort, TypeInt24, TypeLong, TypeLongLong, TypeYear, TypeBit, TypeEnum, TypeSet:
		return strconv.FormatInt(v.Int, 10)
	case TypeFloat, TypeDouble:
		return strconv.FormatFloat(v.Float, 'g', -1, 64)
	case TypeTimestamp, TypeTimestamp2:
		return time.UnixMicro(v.Int).UTC().Format("2006-01-02 15:04:05.999999")
	case TypeDate, TypeDatetime, TypeDatetime2, TypeTime, TypeTime2:
		t := v.Time
		s := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d.%06d", t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second, t.Micros)
		if t.Negative {
			s = "-" + s
		}
		return s
	}
	return string(v.Bytes)
}

// readUntilXID dumps the log from start and returns the images of the rows events of table
// (formatted with show) and the GTIDs of their transactions, until n transactions with rows
// of the table were committed (other tests write to the server at the same time).
func readUntilXID(t *testing.T, cfg Config, start Start, table string, n int) (images [][]string, queries []string, gtids []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.StartDump(ctx, DumpOptions{ServerID: 90001}, start)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var gtid string
	ours := false
	for n > 0 {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch d := ev.Data.(type) {
		case *Rows:
			if d.Table.Table != table {
				continue
			}
			ours = true
			a, b := make([]Value, d.Columns), make([]Value, d.Columns)
			for d.More() {
				if err := d.Next(a, b); err != nil {
					t.Fatal(err)
				}
				for _, img := range [][]Value{a, b} {
					if &img[0] == &b[0] && d.Kind != Updated {
						continue
					}
					var row []string
					for _, v := range img {
						row = append(row, show(v))
					}
					images = append(images, row)
				}
			}
		case *Query:
			queries = append(queries, d.SQL)
		case *MariaGTID:
			gtid, ours = d.GTID.String(), false
		case *MySQLGTID:
			gtid, ours = d.String(), false
		case *XID:
			if ours {
				gtids = append(gtids, gtid)
				n--
			}
			ours = false
		}
	}
	return images, queries, gtids
}

func TestLiveRowTypes(t *testing.T) {
	cfg, db := liveServer(t)
	exec(t, db, "DROP TABLE IF EXISTS binlog_types", `CREATE TABLE binlog_types (
		id INT PRIMARY KEY, ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
		i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED, f FLOAT, d DOUBLE,
		dec1 DECIMAL(10,2), dec2 DECIMAL(38,10), dec3 DECIMAL(5,0), dec4 DECIMAL(30,25),
		dt DATE, tm TIME, tm3 TIME(3), dtm DATETIME, dtm6 DATETIME(6), ts TIMESTAMP(2) NULL, y YEAR,
		b1 BIT(1), b64 BIT(64), b10 BIT(10), e ENUM('a','b','c'), st SET('x','y','z'),
		c CHAR(5), c300 CHAR(100) CHARACTER SET utf8mb4, vc VARCHAR(20), vcl VARCHAR(1000),
		bin BINARY(3), vb VARBINARY(10), tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lb LONGBLOB,
		j JSON, g GEOMETRY, n INT)`)
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS binlog_types") })
	file, pos := mytest.LogEnd(t, db)
	exec(t, db, `INSERT INTO binlog_types VALUES (1, -128, 255, -32768, -8388608, 16777215,
		-2147483648, 4294967295, -9223372036854775808, 18446744073709551615, 1.5, -2.25,
		-12345678.91, 1234567890123456789012345678.0123456789, 99999, -0.0000000000000000000000001,
		'2024-02-29', '-838:59:59', '12:34:56.789', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.12', 2155,
		b'1', b'1111111111111111111111111111111111111111111111111111111111111111', b'1000000001', 'b', 'x,z',
		'ab', 'ünï', 'hello', REPEAT('x', 300),
		x'000102', x'ff', 'tiny', 'text', 'medium', x'deadbeef',
		'{"a": [1, true, null], "b": "ü"}', ST_GeomFromText('POINT(1 2)'), NULL)`,
		"UPDATE binlog_types SET ti = 5, vc = NULL, tm = '00:00:07' WHERE id = 1",
		"DELETE FROM binlog_types WHERE id = 1")
	images, _, gtids := readUntilXID(t, cfg, Start{File: file, Pos: pos}, "binlog_types", 3)
	if len(images) != 4 {
		t.Fatalf("got %d row images, want 4 (insert, update before and after, delete): %v", len(images), images)
	}
	want := []string{"1", "-128", "-1", "-32768", "-8388608", "-1", // unsigned values sign-extend; Uint reads them
		"-2147483648", "-1", "-9223372036854775808", "-1", "1.5", "-2.25",
		"-12345678.91", "1234567890123456789012345678.0123456789", "99999", "-0.0000000000000000000000001",
		"2024-02-29 00:00:00.000000", "-0000-00-00 838:59:59.000000", "0000-00-00 12:34:56.789000", "1000-01-01 00:00:00.000000", "9999-12-31 23:59:59.999999", "2038-01-19 03:14:07.12", "2155",
		"1", "-1", "513", "2", "5",
		"ab", "ünï", "hello", strings.Repeat("x", 300),
		"\x00\x01\x02", "\xff", "tiny", "text", "medium", "\xde\xad\xbe\xef",
		`{"a": [1, true, null], "b": "ü"}`, "\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0?\x00\x00\x00\x00\x00\x00\x00@", "NULL"}
	for i, w := range want {
		if got := images[0][i]; got != w {
			t.Errorf("insert, column %d: got %q, want %q", i+1, got, w)
		}
	}
	if images[1][1] != "-128" || images[2][1] != "5" || images[2][30] != "NULL" || images[2][17] != "0000-00-00 00:00:07.000000" {
		t.Errorf("update: before %v, after %v", images[1], images[2])
	}
	if images[3][0] != "1" || images[3][1] != "5" {
		t.Errorf("delete: %v", images[3])
	}
	if len(gtids) != 3 {
		t.Errorf("got GTIDs %v, want one per transaction", gtids)
	}
}

func TestLiveMariaDBGTIDStart(t *testing.T) {
	cfg, db := liveServer(t)
	exec(t, db, "DROP TABLE IF EXISTS binlog_gtid", "CREATE TABLE binlog_gtid (id INT PRIMARY KEY, v VARCHAR(10))",
		"INSERT INTO binlog_gtid VALUES (1, 'one')")
	t.Cleanup(func() { db.Exec("DROP TABLE IF EXISTS binlog_gtid") })
	var gtid string
	if err := db.QueryRow("SELECT @@gtid_current_pos").Scan(&gtid); err != nil {
		t.Fatal(err)
	}
	p, err := ParseMariaDBPosition(gtid)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, "INSERT INTO binlog_gtid VALUES (2, 'two')")
	images, _, gtids := readUntilXID(t, cfg, Start{MariaDB: p}, "binlog_gtid", 1)
	if len(images) != 1 || images[0][0] != "2" || images[0][1] != "two" {
		t.Fatalf("from GTID position %s: got %v, want the row inserted after it", p, images)
	}
	if len(gtids) != 1 || gtids[0] == "" || strings.Contains(p.String(), gtids[0]) {
		t.Fatalf("got GTIDs %v after position %s", gtids, p)
	}
}
