package jdbc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/connectors/internal/mytest"
	"github.com/strait-dev/strait/internal/sqltest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// myDB is a database of the test's own on the MySQL (MariaDB) test server, its sessions
// in UTC.
type myDB struct {
	*mytest.DB
	name string
	url  string // jdbc:mysql://host:port/<name>, user and password in user and password
	user string
	pass string
}

func newMyDB(t testing.TB) *myDB {
	t.Helper()
	d := mytest.New(t, "jdbc", map[string]string{"time_zone": "'+00:00'"})
	return &myDB{DB: d, name: d.Name, url: "jdbc:mysql://" + d.Addr + "/" + d.Name, user: d.User, pass: d.Pass}
}

func (d *myDB) exec(t testing.TB, stmts ...string) { d.Run(t, stmts...) }

// dump renders a query's rows as (a, b) (c, d), NULL as NULL.
func (d *myDB) dump(t testing.TB, query string) string { return sqltest.Rows(t, d.DB.DB, query) }

// conf is the connection options of the test database, then body.
// exactlyOnceSink creates the table sink (pk_id, name, score) and returns the options of an
// exactly-once Jdbc sink writing it, extra added.
func (d *myDB) exactlyOnceSink(t testing.TB, extra string) string {
	t.Helper()
	d.exec(t, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name VARCHAR(20), score INT)")
	return d.conf(`generate_sink_sql = true
table = sink
primary_keys = [pk_id]
is_exactly_once = true
xa_data_source_class_name = "com.mysql.cj.jdbc.MysqlXADataSource"
` + extra)
}

// writeAndCheck writes the batches with a sink of scoreTable configured by conf on d, and
// checks the rows query dumps are want.
func (d *myDB) writeAndCheck(t *testing.T, conf, query, want string, batches ...*row.Batch) {
	t.Helper()
	s, err := newSink(t, d.conf(conf), scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	write(t, s, batches...)
	if got := d.dump(t, query); got != want {
		t.Errorf("%s: got %s, want %s", query, got, want)
	}
}

func (d *myDB) conf(body string) string {
	return fmt.Sprintf("url = %q\ndriver = \"com.mysql.cj.jdbc.Driver\"\nuser = %q\npassword = %q\n%s\n", d.url, d.user, d.pass, body)
}

func buildMySource(t testing.TB, conf string, parallelism int) (connector.Source, error) {
	t.Helper()
	s, o, err := conntest.BuildSourceIn(t, "Jdbc", conf, connector.SourceContext{Job: connector.Job{ID: 1, Mode: connector.Batch}, Parallelism: parallelism})
	if err != nil {
		return nil, err
	}
	if unknown := conntest.Unknown(t, "source", "Jdbc", o); len(unknown) > 0 {
		t.Errorf("options not known: %v", unknown)
	}
	return s, nil
}

func mustMySource(t testing.TB, conf string, parallelism int) connector.Source {
	t.Helper()
	s, err := buildMySource(t, conf, parallelism)
	if err != nil {
		t.Fatalf("build the source: %v", err)
	}
	return s
}

func readMy(t testing.TB, s connector.Source, p int) ([][]row.Row, []connector.Split) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	splits, err := s.(*Source).plan(ctx)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	rows, err := conntest.Rows(ctx, s, p)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return rows, splits
}

// myTypeCases are MySQL column types, a value of each, the SeaTunnel type SeaTunnel's
// MySqlTypeConverter gives the column and the value Strait reads.
var myTypeCases = []struct {
	col, literal string
	typ          string
	want         row.Value
}{
	{"tinyint(1)", "1", "boolean", row.BoolValue(true)},
	{"bit(1)", "b'1'", "boolean", row.BoolValue(true)},
	{"bit(12)", "b'101000000001'", "bytes", row.BytesValue([]byte{0x0a, 0x01})},
	{"tinyint", "-128", "tinyint", row.TinyIntValue(-128)},
	{"tinyint unsigned", "255", "smallint", row.SmallIntValue(255)},
	{"smallint", "-32768", "smallint", row.SmallIntValue(-32768)},
	{"smallint unsigned", "65535", "int", row.IntValue(65535)},
	{"mediumint", "-8388608", "int", row.IntValue(-8388608)},
	{"mediumint unsigned", "16777215", "int", row.IntValue(16777215)},
	{"int", "-2147483648", "int", row.IntValue(-2147483648)},
	{"int unsigned", "4294967295", "bigint", row.BigIntValue(4294967295)},
	{"bigint", "-9223372036854775808", "bigint", row.BigIntValue(-9223372036854775808)},
	{"bigint unsigned", "18446744073709551615", "decimal(20, 0)", srcDec("18446744073709551615", 20, 0)},
	{"decimal(10,3)", "-1234567.891", "decimal(10, 3)", srcDec("-1234567.891", 10, 3)},
	{"decimal(10,3) unsigned", "1234567.891", "decimal(11, 3)", srcDec("1234567.891", 11, 3)},
	{"decimal(65,30)", "12345.678", "decimal(38, 18)", srcDec("12345.678", 38, 18)},
	{"float", "1.5", "float", row.FloatValue(1.5)},
	{"double", "-2.25e100", "double", row.DoubleValue(-2.25e100)},
	{"char(3)", "'abc'", "string", row.StringValue("abc")},
	{"varchar(20)", "'héllo \\' \\\\ ✓'", "string", row.StringValue("héllo ' \\ ✓")},
	{"text", "'long text'", "string", row.StringValue("long text")},
	{"longtext", "'longer'", "string", row.StringValue("longer")},
	{"enum('a','b c')", "'b c'", "string", row.StringValue("b c")},
	{"set('x','y','z')", "'x,z'", "string", row.StringValue("x,z")},
	{"json", `'{"k": [1, 2]}'`, "string", row.StringValue(`{"k": [1, 2]}`)},
	{"binary(3)", "X'000102'", "bytes", row.BytesValue([]byte{0, 1, 2})},
	{"varbinary(10)", "X'ff00'", "bytes", row.BytesValue([]byte{0xff, 0})},
	{"blob", "X'deadbeef'", "bytes", row.BytesValue([]byte{0xde, 0xad, 0xbe, 0xef})},
	{"longblob", "X'01'", "bytes", row.BytesValue([]byte{1})},
	{"date", "'2024-02-29'", "date", row.DateOf(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC))},
	{"time(6)", "'23:59:58.123456'", "time", row.TimeValue(int64(23*time.Hour + 59*time.Minute + 58*time.Second + 123456*time.Microsecond))},
	{"datetime(6)", "'1999-12-31 23:59:59.654321'", "timestamp", row.TimestampOf(time.Date(1999, 12, 31, 23, 59, 59, 654321000, time.UTC))},
	{"datetime", "'2038-01-19 03:14:08'", "timestamp", row.TimestampOf(time.Date(2038, 1, 19, 3, 14, 8, 0, time.UTC))},
	{"timestamp", "'2020-06-01 12:00:00'", "timestamp", row.TimestampOf(time.Date(2020, 6, 1, 12, 0, 0, 0, time.UTC))},
	{"year", "2024", "int", row.IntValue(2024)},
	{"geometry", "ST_GeomFromText('POINT(1 2)')", "bytes", row.Value{}}, // checked by the round trip
}

// TestMySQLTypes reads a column of every MySQL type through the source, checking the
// SeaTunnel type and the value, then writes the rows to a table the sink creates and reads
// back the same values from it.
func TestMySQLTypes(t *testing.T) {
	d := newMyDB(t)
	var defs, cols, lits []string
	for i, tc := range myTypeCases {
		defs = append(defs, fmt.Sprintf("c%d %s", i, tc.col))
		cols = append(cols, fmt.Sprintf("c%d", i))
		lits = append(lits, tc.literal)
	}
	d.exec(t, "CREATE TABLE src (id INT PRIMARY KEY, "+strings.Join(defs, ", ")+")",
		"INSERT INTO src (id, "+strings.Join(cols, ", ")+") VALUES (1, "+strings.Join(lits, ", ")+")",
		"INSERT INTO src (id) VALUES (2)")
	for _, from := range []string{`table_path = "src"`, `query = "select * from src"`} {
		s := mustMySource(t, d.conf(from), 1)
		tbl := s.Tables()[0]
		for i, tc := range myTypeCases {
			if got := tbl.Columns[i+1].Type.String(); got != tc.typ {
				t.Errorf("%s: column %s is %s, want %s", from, tc.col, got, tc.typ)
			}
		}
		rows, _ := readMy(t, s, 1)
		all := srcFlatten(rows)
		if len(all) != 2 {
			t.Fatalf("%s: %d rows", from, len(all))
		}
		byID := map[int64]row.Row{}
		for _, r := range all {
			byID[r.Fields[0].I] = r
		}
		for i, tc := range myTypeCases {
			got := byID[1].Fields[i+1]
			if tc.want.T != types.Null && !row.Equal(got, tc.want) {
				t.Errorf("%s: %s %s read as %v (%s), want %v", from, tc.col, tc.literal, got, got.T, tc.want)
			}
			if v := byID[2].Fields[i+1]; !v.IsNull() {
				t.Errorf("%s: NULL %s read as %v", from, tc.col, v)
			}
		}
		if from[0] != 't' {
			continue
		}
		// the round trip: the sink creates dst from the source's table and writes its rows
		sink, err := newSink(t, d.conf(`generate_sink_sql = true
table = dst`), tbl)
		if err != nil {
			t.Fatal(err)
		}
		if err := sink.Setup(context.Background()); err != nil {
			t.Fatal(err)
		}
		b := row.NewBatch(2)
		for _, r := range all {
			b.AddRow(&r)
		}
		write(t, sink, b)
		if got, want := d.dump(t, "SELECT * FROM dst ORDER BY id"), d.dump(t, "SELECT * FROM src ORDER BY id"); got != want {
			t.Errorf("round trip:\n got %s\nwant %s", got, want)
		}
		// the source's types are kept, but for timestamp (whose range ends in 2038 and which
		// is read in the session's zone): datetime
		if got, want := d.dump(t, "SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'dst' ORDER BY ORDINAL_POSITION"),
			strings.Replace(d.dump(t, "SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'src' ORDER BY ORDINAL_POSITION"), "(timestamp)", "(datetime)", 1); got != want {
			t.Errorf("the created table's types:\n got %s\nwant %s", got, want)
		}
	}
}

// TestMySQLCreateTypes: the columns the sink creates for SeaTunnel types that come from
// elsewhere (no MySQL source type), as SeaTunnel's MySqlTypeConverter.reconvert has them.
func TestMySQLCreateTypes(t *testing.T) {
	for _, tc := range []struct {
		col  catalog.Column
		want string
	}{
		{catalog.Column{Type: types.Of(types.Boolean)}, "tinyint(1)"},
		{catalog.Column{Type: types.Of(types.TinyInt)}, "tinyint"},
		{catalog.Column{Type: types.Of(types.BigInt)}, "bigint"},
		{catalog.Column{Type: types.DecimalOf(10, 2)}, "decimal(10,2)"},
		{catalog.Column{Type: types.DecimalOf(70, 40)}, "decimal(65,30)"},
		{catalog.Column{Type: types.DecimalOf(0, 0)}, "decimal(38,18)"},
		{catalog.Column{Type: types.Of(types.String)}, "longtext"},
		{catalog.Column{Type: types.Of(types.String), Length: 100}, "varchar(100)"},
		{catalog.Column{Type: types.Of(types.String), Length: 1000}, "text"},
		{catalog.Column{Type: types.Of(types.Bytes)}, "varbinary(32766)"},
		{catalog.Column{Type: types.Of(types.Bytes), Length: 1 << 20}, "mediumblob"},
		{catalog.Column{Type: types.Of(types.Time), Scale: 9}, "time(6)"},
		{catalog.Column{Type: types.Of(types.Timestamp)}, "datetime"},
		{catalog.Column{Type: types.Of(types.Timestamp), SourceType: "timestamp"}, "datetime"},
		{catalog.Column{Type: types.Of(types.Int), SourceType: "integer"}, "integer"},
		{catalog.Column{Type: types.Of(types.String), SourceType: "character varying(20)"}, "longtext"},
	} {
		got, err := mysqlDialect{}.columnType(tc.col)
		if err != nil || got != tc.want {
			t.Errorf("%s (%q): %q, %v; want %q", tc.col.Type, tc.col.SourceType, got, err, tc.want)
		}
	}
	if _, err := (mysqlDialect{}).columnType(catalog.Column{Name: "m", Type: types.MapOf(types.Of(types.String), types.Of(types.Int))}); err == nil {
		t.Error("a map got a MySQL column type")
	}
}

// TestMySQLUpsert: the changelog is applied by key: upserts and deletes, in one round trip
// per flush, with batch sizes that cut it anywhere.
func TestMySQLUpsert(t *testing.T) {
	for _, tc := range []struct {
		batch int
		opts  string
	}{{1, ""}, {2, ""}, {1000, ""}, {2, "auto_commit = false"}} {
		batch := tc.batch
		t.Run(fmt.Sprint(batch, tc.opts), func(t *testing.T) {
			d := newMyDB(t)
			d.exec(t, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name VARCHAR(20), score INT)",
				"INSERT INTO sink VALUES (3, 'old', 1), (9, 'kept', 9)")
			d.writeAndCheck(t, fmt.Sprintf("generate_sink_sql = true\ntable = sink\nprimary_keys = [pk_id]\nbatch_size = %d\n%s", batch, tc.opts), "SELECT * FROM sink ORDER BY pk_id", "(1, A_1, 100) (2, B again, 7) (3, C, 100)", changelog(), scoreBatch(row.Insert, 2, "B again", 7, row.Delete, 9, "kept", 9))
		})
	}
}

// TestMySQLInsertUpdate: enable_upsert = false inserts INSERTs, updates UPDATE_AFTERs and
// deletes DELETEs; a query sink runs its statement per row with ? and :name placeholders.
func TestMySQLInsertUpdate(t *testing.T) {
	d := newMyDB(t)
	d.exec(t, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name VARCHAR(20), score INT)",
		"CREATE TABLE q (pk_id BIGINT, name VARCHAR(20), score INT)",
		"CREATE TABLE n (name VARCHAR(20), pk_id BIGINT)")
	d.writeAndCheck(t, "generate_sink_sql = true\ntable = sink\nprimary_keys = [pk_id]\nenable_upsert = false", "SELECT * FROM sink ORDER BY pk_id", "(1, A_1, 100) (3, C_2, 5)", changelog(), scoreBatch(row.UpdateAfter, 3, "C_2", 5))
	d.writeAndCheck(t, `query = "insert into q values (?, ?, ?);"`, "SELECT * FROM q ORDER BY pk_id", "(1, it's ?, 1) (2, NULL, 2)", scoreBatch(row.Insert, 1, "it's ?", 1, row.Insert, 2, nil, 2))
	d.writeAndCheck(t, `query = "insert into n (name, pk_id) values (:name, :pk_id)"`, "SELECT * FROM n", "(five, 5)", scoreBatch(row.Insert, 5, "five", 1))
}

// TestMySQLSaveModes: the sink creates, recreates, requires and empties its table.
func TestMySQLSaveModes(t *testing.T) {
	d := newMyDB(t)
	setup := func(opts string) error {
		s, err := newSink(t, d.conf("generate_sink_sql = true\ntable = made\n"+opts), scoreTable())
		if err != nil {
			return err
		}
		return s.Setup(context.Background())
	}
	if err := setup("schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing table: %v", err)
	}
	if err := setup("primary_keys = [pk_id]"); err != nil {
		t.Fatal(err)
	}
	d.exec(t, "INSERT INTO made VALUES (1, 'a', 1)")
	if got := d.dump(t, "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'made' ORDER BY ORDINAL_POSITION"); got != "(pk_id, bigint(20), NO, PRI) (name, longtext, YES, ) (score, int(11), YES, )" {
		t.Errorf("created %s", got)
	}
	if err := setup("data_save_mode = ERROR_WHEN_DATA_EXISTS"); err == nil || !strings.Contains(err.Error(), "holds rows") {
		t.Errorf("rows present: %v", err)
	}
	if err := setup("data_save_mode = DROP_DATA"); err != nil {
		t.Fatal(err)
	}
	if got := d.dump(t, "SELECT COUNT(*) FROM made"); got != "(0)" {
		t.Errorf("DROP_DATA left %s", got)
	}
	d.exec(t, "INSERT INTO made VALUES (1, 'a', 1)")
	if err := setup("data_save_mode = CUSTOM_PROCESSING\ncustom_sql = \"delete from made where pk_id = 1\""); err != nil {
		t.Fatal(err)
	}
	if err := setup("schema_save_mode = RECREATE_SCHEMA\nprimary_keys = [name]"); err != nil {
		t.Fatal(err)
	}
	if got := d.dump(t, "SELECT COLUMN_NAME, COLUMN_TYPE, COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'made' AND COLUMN_KEY = 'PRI'"); got != "(name, varchar(255), PRI)" {
		t.Errorf("recreated with key %s", got)
	}
}

// xaLeft lists the prepared XA transactions of job 42's sink of tag on the server.
func (d *myDB) xaLeft(t testing.TB, tag string) string {
	t.Helper()
	live, err := xaRecover(context.Background(), d.DB, "strait-42-"+tag)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for x := range live {
		out = append(out, x)
	}
	return strings.Join(out, " ")
}

// TestMySQLExactlyOnce: each checkpoint's rows are an XA transaction, prepared by the
// writer and committed by a committer of another sink instance (as in another process,
// from the commit info alone). A writer that prepared and died leaves its XA transaction
// prepared: a restore commits the ones its checkpoint lists and rolls back the rest of the
// subtask's; a zombie of an older attempt never collides with the new one.
func TestMySQLExactlyOnce(t *testing.T) {
	d := newMyDB(t)
	ctx := context.Background()
	conf := d.exactlyOnceSink(t, "max_commit_attempts = 3\ntransaction_timeout_sec = 86400")
	newSink := func() *Sink {
		s, err := newSink(t, conf, scoreTable())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tag := newSink().cfg.tag
	t.Cleanup(func() {
		// a prepared transaction left by a failure would hold the database's drop
		live, _ := xaRecover(ctx, d.DB, "strait-42-"+tag)
		for x := range live {
			_ = xaRollback(ctx, d.DB, x)
		}
	})
	wctx := connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 42}, Epoch: 1}
	w, err := newSink().CreateWriter(wctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	info1, state1 := conntest.Barrier(ctx, t, w, 1, scoreBatch(row.Insert, 1, "A", 1, row.Insert, 2, "B", 2))
	if got := d.dump(t, "SELECT COUNT(*) FROM sink"); got != "(0)" {
		t.Fatalf("before the commit the table holds %s rows", got)
	}
	if got := d.xaLeft(t, tag); got != "strait-42-"+tag+"-0-e1-1" {
		t.Fatalf("prepared: %q", got)
	}
	// checkpoint 2 is prepared, then the writer dies (its connection is gone, the
	// prepared transaction stays)
	conntest.WritePrepare(ctx, t, w, 2, scoreBatch(row.Insert, 3, "C", 3))
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// a fresh committer commits checkpoint 1 from its commit info, twice (idempotently)
	com, _ := newSink().CreateCommitter()
	for range 2 {
		if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Infos: [][]byte{info1}}); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	if got := d.dump(t, "SELECT pk_id FROM sink ORDER BY 1"); got != "(1) (2)" {
		t.Fatalf("after the commit the table holds %s", got)
	}
	// the next attempt restores checkpoint 1: checkpoint 2's transaction is rolled back
	wctx.Epoch = 2
	w2, err := newSink().CreateWriter(wctx, [][]byte{state1})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close(ctx)
	if got := d.xaLeft(t, tag); got != "" {
		t.Fatalf("prepared transactions left after the restore: %s", got)
	}
	info2, state2 := conntest.Barrier(ctx, t, w2, 2, scoreBatch(row.Insert, 3, "C", 3, row.UpdateAfter, 1, "A2", 10))
	// restored from checkpoint 2 before its commit ran: the restore commits it
	wctx.Epoch = 3
	w3, err := newSink().CreateWriter(wctx, [][]byte{state2})
	if err != nil {
		t.Fatal(err)
	}
	defer w3.Close(ctx)
	if got := d.dump(t, "SELECT * FROM sink ORDER BY 1"); got != "(1, A2, 10) (2, B, 2) (3, C, 3)" {
		t.Fatalf("after the second restore the table holds %s", got)
	}
	if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: 2, Infos: [][]byte{info2}}); err != nil {
		t.Fatalf("a late commit of what the restore committed: %v", err)
	}
	if err := com.Abort(ctx, [][]byte{info2}); err != nil {
		t.Fatalf("abort of what is committed: %v", err)
	}
	if got := d.xaLeft(t, tag); got != "" {
		t.Fatalf("prepared transactions left: %s", got)
	}
}

// mySplitDDL has a column per split type, each with NULLs, repeated values and values that
// need quoting; 1000 rows, made by a recursive query.
const mySplitDDL = `
CREATE TABLE st (
	id INT PRIMARY KEY,
	i8 BIGINT, un INT UNSIGNED, de DECIMAL(12,3), f8 DOUBLE,
	s VARCHAR(20), c CHAR(4), d DATE, ts DATETIME(3)
);
INSERT INTO st
WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 1000)
SELECT i,
	CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7919) % 1000 - 500 END,
	CASE WHEN i % 9 = 0 THEN NULL ELSE i * 3 END,
	CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 97) * 1.125 - 40 END,
	CASE WHEN i % 19 = 0 THEN NULL ELSE SQRT(i) * IF(i % 2 = 0, 1, -1) END,
	CASE WHEN i % 7 = 0 THEN NULL ELSE CONCAT(CHAR(65 + i % 26), 'é''', i % 37) END,
	CASE WHEN i % 9 = 0 THEN NULL ELSE CHAR(97 + i % 5) END,
	CASE WHEN i % 6 = 0 THEN NULL ELSE DATE_ADD('2024-01-01', INTERVAL i % 400 DAY) END,
	CASE WHEN i % 10 = 0 THEN NULL ELSE TIMESTAMPADD(SECOND, (i % 333) * 2221.5, '2024-01-01') END
FROM g;
ANALYZE TABLE st;
`

// TestMySQLSplits: integer, decimal, float, string, date and timestamp split columns, by
// fixed partitioning (a query with partition_column) and dynamically (table_path) in ranges
// of even width, at queried boundaries and charset-based, read every row exactly once, NULLs
// of the split column included, in more than one split.
func TestMySQLSplits(t *testing.T) {
	d := newMyDB(t)
	d.exec(t, mySplitDDL)
	cols := []string{"id", "i8", "un", "de", "f8", "s", "c", "d", "ts"}
	modes := []struct{ name, body string }{
		{"fixed", "query = \"select * from st\"\npartition_num = 4"},
		{"fixed bounds", "query = \"select * from st\"\npartition_num = 3\npartition_lower_bound = \"0\"\npartition_upper_bound = \"5000\""},
		{"dynamic", "table_path = \"st\"\nsplit.size = 150"},
		{"dynamic queried", "table_path = \"st\"\nsplit.size = 120\nsplit.even-distribution.factor.upper-bound = 0.01\nsplit.even-distribution.factor.lower-bound = 0.001"},
		{"dynamic charset", "table_path = \"st\"\nsplit.size = 100\nsplit.string_split_mode = charset_based"},
		{"dynamic sampled", "table_path = \"st\"\nsplit.size = 100\nsplit.sample-sharding.threshold = 2\nsplit.inverse-sampling.rate = 7\nsplit.even-distribution.factor.upper-bound = 0.01\nsplit.even-distribution.factor.lower-bound = 0.001"},
	}
	for _, col := range cols {
		for _, m := range modes {
			if m.name == "fixed bounds" && col != "id" && col != "i8" && col != "un" {
				continue // integer bounds
			}
			t.Run(col+"/"+m.name, func(t *testing.T) {
				s := mustMySource(t, d.conf(m.body+"\npartition_column = \""+col+"\""), 3)
				rows, splits := readMy(t, s, 3)
				all := srcFlatten(rows)
				want := 1000
				if m.name == "fixed bounds" {
					var n int
					if err := d.QueryRow("SELECT COUNT(*) FROM st WHERE " + col + " BETWEEN 0 AND 5000").Scan(&n); err != nil {
						t.Fatal(err)
					}
					want = n
				}
				seen := map[int64]int{}
				for _, r := range all {
					seen[r.Fields[0].I]++
				}
				for id, n := range seen {
					if n != 1 {
						t.Errorf("id %d read %d times", id, n)
					}
				}
				if len(all) != want {
					t.Errorf("%d rows read in %d splits, want %d", len(all), len(splits), want)
				}
				if len(splits) < 2 && (m.name != "dynamic charset" || col == "s" || col == "c") {
					t.Errorf("read in %d split", len(splits))
				}
			})
		}
	}
}

// TestMySQLErrors: what cannot be read or written fails naming the option, the table or
// the column: a wrong password, a missing table, an unsupported column type, a url of
// neither dialect, a driver of the other dialect, a bad query.
func TestMySQLErrors(t *testing.T) {
	d := newMyDB(t)
	d.exec(t, "CREATE TABLE odd (id INT PRIMARY KEY, addr INET6)", "CREATE TABLE fine (id INT PRIMARY KEY)")
	for _, tc := range []struct{ name, conf, want string }{
		{"wrong password", strings.Replace(d.conf(`table_path = "fine"`), `password = "`+d.pass+`"`, `password = "nope"`, 1), "Access denied"},
		{"missing table", d.conf(`table_path = "nope"`), "table_path: table nope does not exist in database " + d.name},
		{"unsupported type", d.conf(`table_path = "odd"`), "column addr: type inet6 is not supported"},
		{"unsupported type in a query", d.conf(`query = "select * from odd"`), "column addr: type inet6 is not supported"},
		{"neither dialect", `url = "jdbc:sqlserver://h:1433;databaseName=x"` + "\nquery = \"select 1\"", "url: \"jdbc:sqlserver://h:1433;databaseName=x\" is not a PostgreSQL JDBC url"},
		{"driver of the other dialect", d.conf(`query = "select 1"` + "\ndriver = \"org.postgresql.Driver\""), "driver: the url is a MySQL url"},
		{"bad query", d.conf(`query = "select nope from fine"`), "query: MySQL rejects the query"},
		{"bad where", d.conf(`table_path = "fine"` + "\nwhere_condition = \"where nope > 1\""), "where_condition: MySQL rejects"},
		{"bad property", d.conf(`table_path = "fine"` + "\nproperties { sslMode = SOMETIMES }"), "properties: sslMode \"SOMETIMES\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := buildMySource(t, tc.conf, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "source[0] Jdbc") {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	// the sink: a missing table fails the writer naming it, a refused row is permanent
	s, err := newSink(t, d.conf("generate_sink_sql = true\ntable = nope\nschema_save_mode = IGNORE"), scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 42}}, nil); err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "doesn't exist") {
		t.Errorf("writer of a missing table: %v", err)
	}
	d.exec(t, "CREATE TABLE narrow (pk_id BIGINT PRIMARY KEY, name VARCHAR(2) NOT NULL, score INT)")
	s, err = newSink(t, d.conf("generate_sink_sql = true\ntable = narrow"), scoreTable())
	if err == nil {
		w, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 42}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close(context.Background())
		err = w.Write(context.Background(), scoreBatch(row.Insert, 1, nil, 1))
		if err == nil {
			_, err = w.PrepareCommit(context.Background(), 1)
		}
		var perm *connector.PermanentError
		if err == nil || !errors.As(err, &perm) || !strings.Contains(err.Error(), "narrow") {
			t.Errorf("a refused row: %v", err)
		}
	}
}

// TestMySQLQueryQuoting: a query sink's placeholders are found with MySQL's quoting: a ?
// in a backslash-escaped literal or a back-quoted name is not one.
func TestMySQLQueryQuoting(t *testing.T) {
	d := newMyDB(t)
	d.exec(t, "CREATE TABLE `q?` (pk_id BIGINT, note VARCHAR(20), name VARCHAR(20))")
	d.writeAndCheck(t, "query = \"insert into `q?` values (?, 'it\\\\'s ?', ?)\"", "SELECT * FROM `q?`", "(1, it's ?, B)", scoreBatch(row.Insert, 1, "B", 7))
}

// TestMySQLStreams: a split's rows stream: after the first batch of a 50 MB table the
// server is still sending the statement's rows (it waits on the reader), and reading on
// yields every row once.
func TestMySQLStreams(t *testing.T) {
	d := newMyDB(t)
	d.exec(t, "CREATE TABLE big (id INT PRIMARY KEY, pad LONGTEXT)",
		"INSERT INTO big WITH RECURSIVE g(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM g WHERE i < 99) SELECT a.i * 100 + b.i + 1, REPEAT('x', 10000) FROM g a, g b WHERE a.i < 50")
	s := mustMySource(t, d.conf(`table_path = "big"`), 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	splits, err := s.(*Source).plan(ctx)
	if err != nil || len(splits) != 1 {
		t.Fatalf("splits %v, %v", splits, err)
	}
	r, _ := s.CreateReader(connector.ReaderContext{})
	defer r.Close()
	r.AddSplits(splits)
	r.NoMoreSplits()
	b := row.NewBatch(10)
	if done, err := r.PollNext(ctx, b); err != nil || done || b.Len() != 10 {
		t.Fatalf("first batch: %d rows, done %v, %v", b.Len(), done, err)
	}
	var running int
	if err := d.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE 'SELECT * FROM %big%' AND COMMAND = 'Query'").Scan(&running); err != nil {
		t.Fatal(err)
	}
	if running != 1 {
		t.Errorf("after the first batch the server runs %d reads of the table, want the one still sending its rows", running)
	}
	n := b.Len()
	for {
		b.Reset()
		done := conntest.Poll(ctx, t, r, b)
		n += b.Len()
		if done {
			break
		}
	}
	if n != 5000 {
		t.Errorf("%d rows read, want 5000", n)
	}
}

// TestMySQLPipelinedFlushError: a flush the server refuses while the task encodes the next
// fails the writer naming the flush's rows, permanently, and nothing after it is applied;
// the writer takes no checkpoint after it.
func TestMySQLPipelinedFlushError(t *testing.T) {
	for _, opts := range []string{"primary_keys = []", "primary_keys = [pk_id]", "primary_keys = [pk_id]\nenable_upsert = false"} {
		t.Run(opts, func(t *testing.T) {
			d := newMyDB(t)
			d.exec(t, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name VARCHAR(20), score INT CHECK (score >= 0))")
			s, err := newSink(t, d.conf("generate_sink_sql = true\ntable = sink\nbatch_size = 10\n"+opts), scoreTable())
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			w, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 42}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close(ctx)
			// five flushes of ten rows; row 15 breaks the check, in the second
			err = w.Write(ctx, scoreRows(50, 15))
			if err == nil {
				_, err = w.PrepareCommit(ctx, 1)
			}
			var perm *connector.PermanentError
			if err == nil || !errors.As(err, &perm) || !strings.Contains(err.Error(), "write rows 11 to 20 (10 rows) to") || !strings.Contains(err.Error(), "sink") {
				t.Fatalf("a refused flush: %v", err)
			}
			if got := d.dump(t, "SELECT min(pk_id), max(pk_id), count(*) FROM sink"); got != "(1, 10, 10)" {
				t.Errorf("applied rows (min, max, count) = %s, want the first flush's only: (1, 10, 10)", got)
			}
			if _, err := w.PrepareCommit(ctx, 2); err == nil {
				t.Error("the writer took a checkpoint after a failed flush")
			}
		})
	}
}

// TestMySQLSharedSession: the auto-commit writers of one subtask share one session, which
// is opened only by the first flush: a subtask given no rows holds no connection, and two
// tables written by one subtask hold one. A writer with a transaction of its own
// (is_exactly_once) keeps its own session.
func TestMySQLSharedSession(t *testing.T) {
	d := newMyDB(t)
	d.exec(t, "CREATE TABLE a (pk_id BIGINT PRIMARY KEY, name VARCHAR(20), score INT)",
		"CREATE TABLE b (pk_id BIGINT PRIMARY KEY, name VARCHAR(20), score INT)")
	ctx := context.Background()
	writer := func(table string, index int, extra string) *myWriter {
		t.Helper()
		s, err := newSink(t, d.conf("generate_sink_sql = true\ntable = "+table+"\n"+extra), scoreTable())
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 4242}, Index: index, Epoch: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return w.(*myWriter)
	}
	a0, b0, a1 := writer("a", 0, ""), writer("b", 0, ""), writer("a", 1, "")
	if a0.db != b0.db || a0.db == a1.db {
		t.Fatal("the writers of subtask 0 do not share a session, or subtask 1 shares theirs")
	}
	open := func(w *myWriter) int { return w.db.Stats().OpenConnections }
	if open(a0) != 0 || open(a1) != 0 {
		t.Fatalf("connections before any row: subtask 0 %d, subtask 1 %d; want none", open(a0), open(a1))
	}
	for i, w := range []*myWriter{a0, b0} {
		conntest.WritePrepare(ctx, t, w, 1, scoreBatch(row.Insert, 1, "x", i))
	}
	if _, err := a1.PrepareCommit(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if open(a0) != 1 || open(a1) != 0 {
		t.Fatalf("connections after writing two tables in subtask 0: %d, in subtask 1 (no rows): %d; want 1 and 0", open(a0), open(a1))
	}
	if got := d.dump(t, "SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b)"); got != "(1, 1)" {
		t.Errorf("rows in a and b: %s, want (1, 1)", got)
	}
	db := a0.db
	for _, w := range []*myWriter{a0, b0, a1} {
		if err := w.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.PingContext(ctx); err == nil {
		t.Error("the shared session is still open after its writers closed")
	}
	// exactly-once: a session of its own, held from the start
	d.exec(t, "CREATE TABLE c (pk_id BIGINT PRIMARY KEY, name VARCHAR(20), score INT)")
	eo := writer("c", 0, "is_exactly_once = true\nxa_data_source_class_name = \"com.mysql.cj.jdbc.MysqlXADataSource\"")
	defer eo.Close(ctx)
	if eo.done != nil || eo.conn == nil {
		t.Error("an exactly-once writer writes through the shared session")
	}
}
