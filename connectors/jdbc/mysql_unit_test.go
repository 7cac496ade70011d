package jdbc

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// myConnOptions decodes the connection options of a config as the source's spec does.
func myConnOptions(t *testing.T, conf string) *ConnOptions {
	t.Helper()
	root, err := hocon.Parse([]byte(conf), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse %q: %v", conf, err)
	}
	c, err := config.Decode[SourceConfig](config.New(root, "source[0] Jdbc"))
	if err != nil {
		t.Fatalf("decode %q: %v", conf, err)
	}
	return &c.ConnOptions
}

// TestMySQLURL: the JDBC url and the properties become the driver's configuration, and
// what cannot be mapped fails naming the option.
func TestMySQLURL(t *testing.T) {
	for _, tc := range []struct {
		conf string
		got  func(c *myConn) string
		want string
	}{
		{`url = "jdbc:mysql://db.example:3307/shop?useSSL=false&rewriteBatchedStatements=true"`,
			func(c *myConn) string {
				return c.cfg.Addr + " " + c.Database + " tls=" + c.cfg.TLSConfig + " tz=" + c.cfg.Params["time_zone"]
			}, "db.example:3307 shop tls=false tz='+00:00'"},
		{`url = "jdbc:mariadb://h/"` + "\nuser = u\npassword = p\nproperties { useSSL = true, connectTimeout = 2500, socketTimeout = 9000 }",
			func(c *myConn) string {
				return c.cfg.Addr + " [" + c.Database + "] " + c.cfg.User + ":" + c.cfg.Passwd + " tls=" + c.cfg.TLSConfig + " " + c.cfg.Timeout.String() + " " + c.cfg.ReadTimeout.String()
			}, "h:3306 [] u:p tls=skip-verify 2.5s 9s"},
		{`url = "jdbc:mysql://h:1/d?user=a&password=b&sslMode=VERIFY_IDENTITY&sessionVariables=sql_mode=ANSI,wait_timeout=60"`,
			func(c *myConn) string {
				return c.cfg.User + ":" + c.cfg.Passwd + " tls=" + c.cfg.TLSConfig + " " + c.cfg.Params["sql_mode"] + " " + c.cfg.Params["wait_timeout"]
			}, "a:b tls=true ANSI 60"},
		{`url = "jdbc:mysql://h/d?characterEncoding=UTF-8&serverTimezone=Asia/Shanghai"` + "\nconnection_check_timeout_sec = 7",
			func(c *myConn) string {
				return c.Timeout.String() + " " + c.cfg.Timeout.String() + " " + c.cfg.Collation
			}, "7s 7s utf8mb4_general_ci"},
	} {
		c, err := mysqlConnOf(myConnOptions(t, tc.conf))
		if err != nil {
			t.Errorf("%s: %v", tc.conf, err)
			continue
		}
		if got := tc.got(c); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.conf, got, tc.want)
		}
	}
	for _, tc := range []struct{ conf, want string }{
		{`url = "jdbc:mysql://a,b/d"`, `url: "jdbc:mysql://a,b/d": several hosts are not supported`},
		{`url = "jdbc:mysql:d"`, `url: "jdbc:mysql:d": want jdbc:mysql://host:port/database`},
		{`url = "jdbc:mysql://h:0/d"`, "bad port"},
		{`url = "jdbc:mysql://h/d?characterEncoding=latin1"`, "utf8mb4 (UTF-8) only"},
		{`url = "jdbc:mysql://h/d"` + "\nproperties { connectTimeout = soon }", `properties: connectTimeout "soon"`},
		{`url = "jdbc:mysql://h/d"` + "\ndriver = org.postgresql.Driver", "driver: the url is a MySQL url"},
		{`url = "jdbc:mysql://h/d"` + "\nconnection_check_timeout_sec = 0", "connection_check_timeout_sec: must be at least 1"},
	} {
		_, err := mysqlConnOf(myConnOptions(t, tc.conf))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.conf, err, tc.want)
		}
	}
}

// TestMySQLTypeNames: the type names SHOW COLUMNS and information_schema write, with and
// without display widths (MariaDB and MySQL 5 write int(11), MySQL 8 int).
func TestMySQLTypeNames(t *testing.T) {
	for _, tc := range []struct{ typ, want string }{
		{"int(11)", "int"}, {"int", "int"}, {"int(10) unsigned", "bigint"}, {"INT UNSIGNED ZEROFILL", "bigint"},
		{"tinyint(1)", "boolean"}, {"tinyint(4)", "tinyint"}, {"tinyint(1) unsigned", "smallint"},
		{"bigint(20) unsigned", "decimal(20, 0)"}, {"decimal(30,0) unsigned", "decimal(31, 0)"},
		{"decimal(65,30)", "decimal(38, 18)"}, {"decimal", "decimal(10, 0)"}, {"double precision", "double"},
		{"bit", "boolean"}, {"bit(64)", "bytes"}, {"enum('a,b','c''d')", "string"}, {"year(4)", "int"},
		{"datetime(6)", "timestamp"}, {"point", "bytes"}, {"json", "string"},
	} {
		c, err := mysqlColumnOf("c", tc.typ)
		if err != nil || c.Type.String() != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.typ, c.Type, err, tc.want)
		}
	}
	if m, _ := parseMySQLType("enum('a,b','c''d','e\\\\f')"); strings.Join(m.members, "|") != `a,b|c'd|e\f` {
		t.Errorf("members %q", m.members)
	}
	for _, bad := range []string{"inet6", "uuid", "int(x)", "varchar(10", "int sideways"} {
		if _, err := mysqlColumnOf("c", bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestMySQLLiterals: values as the sink writes them, and the text the source reads back.
func TestMySQLLiterals(t *testing.T) {
	ts := time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC)
	for _, tc := range []struct {
		v    row.Value
		want string
	}{
		{row.NullValue(), "NULL"},
		{row.BoolValue(true), "1"},
		{row.BigIntValue(math.MinInt64), "-9223372036854775808"},
		{row.FloatValue(1.1), "1.1"},
		{row.DoubleValue(-2.5e-300), "-2.5e-300"},
		{srcDec("-0.050", 10, 3), "-0.050"},
		{row.StringValue("a'\\"), "_utf8mb4 X'61275c'"},
		{row.StringValue(""), "_utf8mb4 X''"},
		{row.BytesValue([]byte{0, 255}), "X'00ff'"},
		{row.DateOf(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)), "'0001-01-01'"},
		{row.TimeValue(int64(time.Hour + 500*time.Microsecond)), "'01:00:00.000500'"},
		{row.TimestampOf(ts), "'1969-12-31 23:59:59.999999'"},
		{row.ArrayValue([]row.Value{row.IntValue(1)}), "_utf8mb4 X'5b315d'"},
	} {
		got, err := appendLiteral(nil, &tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%v: %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
	if _, err := appendLiteral(nil, &[]row.Value{row.DoubleValue(math.NaN())}[0]); err == nil {
		t.Error("NaN written")
	}
	for _, tc := range []struct {
		typ, text string
		want      row.Value
	}{
		{"datetime(6)", "1969-12-31 23:59:59.999999", row.TimestampOf(ts)},
		{"datetime", "0000-00-00 00:00:00", row.NullValue()},
		{"date", "0000-00-00", row.NullValue()},
		{"time", "00:00:00", row.TimeValue(0)},
		{"decimal(10,3)", "-0.050", srcDec("-0.05", 10, 3)},
		{"decimal(10,3)", "1", srcDec("1", 10, 3)},
		{"bit(1)", "\x00", row.BoolValue(false)},
		{"tinyint(1)", "2", row.BoolValue(true)},
	} {
		c, _ := mysqlColumnOf("c", tc.typ)
		var v row.Value
		if err := c.decode(&v, []byte(tc.text)); err != nil || !row.Equal(v, tc.want) {
			t.Errorf("%s %q: %v, %v; want %v", tc.typ, tc.text, v, err, tc.want)
		}
	}
	for _, tc := range []struct{ typ, text string }{
		{"time", "-01:00:00"}, {"time", "838:59:59"}, {"int", "x"}, {"date", "2024-1-1"}, {"datetime", "2024-01-01T00:00:00"},
	} {
		c, _ := mysqlColumnOf("c", tc.typ)
		var v row.Value
		if err := c.decode(&v, []byte(tc.text)); err == nil {
			t.Errorf("%s %q read as %v", tc.typ, tc.text, v)
		}
	}
}

// TestMySQLQueryParts: a query is cut at its placeholders, not at those in literals,
// quoted names or comments.
func TestMySQLQueryParts(t *testing.T) {
	parts, _, err := mysqlQueryParts("insert into t values (?, 'it\\'s ?', \"?\", `?`, ? /* ? */) # ?\n;", true)
	if err != nil || strings.Join(parts, "|") != "insert into t values (|, 'it\\'s ?', \"?\", `?`, | /* ? */) # ?" {
		t.Errorf("positional: %q, %v", parts, err)
	}
	parts, names, err := mysqlQueryParts("update t set a = :a, `:b` = 1 where k = :k and s = ':no' and c = x::int", false)
	if err != nil || strings.Join(parts, "|") != "update t set a = |, `:b` = 1 where k = | and s = ':no' and c = x::int" || strings.Join(names, ",") != "a,k" {
		t.Errorf("named: %q %q, %v", parts, names, err)
	}
	if _, _, err := mysqlQueryParts("select 'open", true); err == nil {
		t.Error("an unterminated literal is accepted")
	}
}

// FuzzMySQLColumn: no column type and no value text makes the mapping or the decoding
// panic.
func FuzzMySQLColumn(f *testing.F) {
	addSeeds(f, "decimal(20,0) unsigned|123", "bit(12)|\x0a\x01", "datetime(6)|2024-01-01 00:00:00.5", "time|23:59:59", "enum('a')|a", "date|0000-00-00")
	f.Fuzz(func(t *testing.T, s string) {
		typ, text, _ := strings.Cut(s, "|")
		c, err := mysqlColumnOf("c", typ)
		if err != nil {
			return
		}
		var v row.Value
		if c.decode(&v, []byte(text)) == nil && v.T != types.Null && v.T != c.Type.Kind {
			t.Fatalf("%s %q read as a %s", typ, text, v.T)
		}
	})
}
