package jdbc

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func newSink(t testing.TB, src string, in *catalog.Table) (*Sink, error) {
	t.Helper()
	s, _, err := conntest.BuildSinkIn(t, "Jdbc", src, connector.SinkContext{Job: connector.Job{ID: 42}, Inputs: []*catalog.Table{in}})
	if err != nil {
		return nil, err
	}
	return s.(*Sink), nil
}

// openWriter builds the sink of src for in and creates its writer of wc, closed when the
// test ends.
func openWriter(t testing.TB, src string, in *catalog.Table, wc connector.WriterContext) (*Sink, connector.Writer) {
	t.Helper()
	s, err := newSink(t, src, in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.CreateWriter(wc, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	return s, w
}

// sinkOfTable creates the table sink of the test's database with ddl and builds a sink of
// scoreTable generating its statements for it, opts added to its options; it returns the
// sink and a connection to the database.
func sinkOfTable(t *testing.T, ddl, opts string) (*Sink, *pgx.Conn) {
	t.Helper()
	url, conn := testDB(t)
	mustExec(t, conn, ddl)
	s, err := newSink(t, genConf(url, "sink")+opts, scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	return s, conn
}

// restoreWriter creates the writer of wc in attempt epoch, restored from state; it is
// closed when the test ends.
func restoreWriter(t *testing.T, s *Sink, wc connector.WriterContext, epoch int, state []byte) connector.Writer {
	t.Helper()
	wc.Epoch = epoch
	w, err := s.CreateWriter(wc, [][]byte{state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close(context.Background()) })
	return w
}

// keylessWriter creates the table sink (pk_id, name, score) without a key and returns a
// writer of a sink generating its statements for it (extra added to its options), closed
// when the test ends, and a connection to the test's database.
func keylessWriter(t *testing.T, extra string, wc connector.WriterContext) (connector.Writer, *pgx.Conn) {
	t.Helper()
	url, conn := testDB(t)
	mustExec(t, conn, "CREATE TABLE sink (pk_id BIGINT, name TEXT, score INT)")
	_, w := openWriter(t, genConf(url, "sink")+"primary_keys = []\n"+extra+"\n", scoreTable(), wc)
	return w, conn
}

// genConf is the options of a sink that generates its statements for table, connected as
// the test user; a test appends its own lines.
func genConf(url, table string) string {
	return `url = "` + url + `"
user = test
password = test
generate_sink_sql = true
database = test
table = ` + table + "\n"
}

// scoreTable is the input of SeaTunnel's changelog test: pk_id, name, score.
func scoreTable() *catalog.Table {
	return catalog.FromRowType(catalog.TablePath{Table: "fake"}, &types.RowType{
		Names: []string{"pk_id", "name", "score"},
		Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.Int)},
	})
}

func scoreBatch(rows ...any) *row.Batch {
	b := row.NewBatch(len(rows) / 4)
	for i := 0; i+3 < len(rows); i += 4 {
		r := b.Add(rows[i].(row.Kind), "fake", 3)
		r.Fields[0] = row.BigIntValue(int64(rows[i+1].(int)))
		if s, ok := rows[i+2].(string); ok {
			r.Fields[1] = row.StringValue(s)
		}
		r.Fields[2] = row.IntValue(int32(rows[i+3].(int)))
	}
	return b
}

// changelog is SeaTunnel's jdbc_sink_cdc_changelog rows.
func changelog() *row.Batch {
	return scoreBatch(
		row.Insert, 1, "A", 100,
		row.Insert, 2, "B", 100,
		row.Insert, 3, "C", 100,
		row.UpdateBefore, 1, "A", 100,
		row.UpdateAfter, 1, "A_1", 100,
		row.Delete, 2, "B", 100,
	)
}

// write runs one writer over the batches, with a checkpoint after each, and commits what
// it prepared.
func write(t *testing.T, s *Sink, batches ...*row.Batch) {
	t.Helper()
	ctx := context.Background()
	w, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 42}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	for i, b := range batches {
		if err := w.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
		commitIfAny(t, s, w, int64(i+1))
	}
}

// wantDump checks that the rows query dumps are want; what names them in the failure.
func wantDump(t *testing.T, conn *pgx.Conn, query, want, what string) {
	t.Helper()
	if got := dump(t, conn, query); got != want {
		t.Fatalf("%s: %s, want %s", what, got, want)
	}
}

func dump(t *testing.T, conn *pgx.Conn, query string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, v := range vals {
			parts = append(parts, toText(v))
		}
		out = append(out, "("+strings.Join(parts, ",")+")")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func toText(v any) string {
	if v == nil {
		return "NULL"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func TestSinkChangelog(t *testing.T) {
	url, conn := testDB(t)
	cases := []struct {
		name, opts string
		want       string
	}{
		{"upsert", `batch_size = 1000`, "(1,A_1,100) (3,C,100)"},
		{"upsert row by row", `batch_size = 1`, "(1,A_1,100) (3,C,100)"},
		{"insert and update", "enable_upsert = false\nbatch_size = 1", "(1,A_1,100) (3,C,100)"},
		{"exactly once", "is_exactly_once = true\nxa_data_source_class_name = org.postgresql.xa.PGXADataSource", "(1,A_1,100) (3,C,100)"},
		{"auto_commit off", "auto_commit = false", "(1,A_1,100) (3,C,100)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustExec(t, conn, "DROP TABLE IF EXISTS sink; CREATE TABLE sink (pk_id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(255), score INT)")
			s, err := newSink(t, genConf(url, "sink")+`primary_keys = ["pk_id"]
`+tc.opts, scoreTable())
			if err != nil {
				t.Fatal(err)
			}
			write(t, s, changelog())
			wantDump(t, conn, "SELECT pk_id, name, score FROM sink ORDER BY pk_id", tc.want, "table holds")
		})
	}
}

// TestSinkTypes writes every scalar type (and an array) to a table the sink creates, and
// reads it back.
func TestSinkTypes(t *testing.T) {
	url, conn := testDB(t)
	in := catalog.FromRowType(catalog.TablePath{Table: "all"}, &types.RowType{
		Names: []string{"id", "b", "ti", "si", "i", "bi", "f", "d", "dec", "s", "by", "dt", "tm", "ts", "arr", "m"},
		Types: []types.DataType{types.Of(types.BigInt), types.Of(types.Boolean), types.Of(types.TinyInt), types.Of(types.SmallInt),
			types.Of(types.Int), types.Of(types.BigInt), types.Of(types.Float), types.Of(types.Double), types.DecimalOf(10, 3),
			types.Of(types.String), types.Of(types.Bytes), types.Of(types.Date), types.Of(types.Time), types.Of(types.Timestamp),
			types.ArrayOf(types.Of(types.Int)), types.MapOf(types.Of(types.String), types.Of(types.Int))},
	})
	in.PrimaryKey = &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}}
	s, err := newSink(t, genConf(url, "all_types")+`use_copy_statement = true
`, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	b := row.NewBatch(2)
	r := b.Add(row.Insert, "all", 16)
	r.Fields = []row.Value{row.BigIntValue(1), row.BoolValue(true), row.TinyIntValue(-7), row.SmallIntValue(300), row.IntValue(70000),
		row.BigIntValue(1 << 40), row.FloatValue(1.5), row.DoubleValue(2.25), row.DecimalValue(big.NewInt(-12345), 3),
		row.StringValue("héllo, 'x'"), row.BytesValue([]byte{0, 1, 0xff}), row.DateValue(19000), row.TimeValue(3723_000_001_000),
		row.TimestampValue(1_700_000_000_123_456_000), row.ArrayValue([]row.Value{row.IntValue(1), row.NullValue(), row.IntValue(3)}),
		row.MapOfValues(&row.MapValue{Keys: []row.Value{row.StringValue("k")}, Vals: []row.Value{row.IntValue(9)}})}
	r2 := b.Add(row.Insert, "all", 16)
	for i := range r2.Fields {
		r2.Fields[i] = row.NullValue()
	}
	r2.Fields[0] = row.BigIntValue(2)
	write(t, s, b)
	got := dump(t, conn, "SELECT id, b, ti, si, i, bi, f, d, dec::text, s, encode(\"by\", 'hex'), dt::text, tm::text, ts::text, arr::text, m::text FROM all_types ORDER BY id")
	want := `(1,true,-7,300,70000,1099511627776,1.5,2.25,-12.345,héllo, 'x',0001ff,2022-01-08,01:02:03.000001,2023-11-14 22:13:20.123456,{1,NULL,3},{"k": 9}) ` +
		`(2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL)`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// the upsert of a table with an array column goes row by row (unnest would flatten it)
	up, err := newSink(t, genConf(url, "all_types"), in)
	if err != nil {
		t.Fatal(err)
	}
	r.Fields[9] = row.StringValue("changed")
	b.Rows = b.Rows[:1]
	write(t, up, b)
	wantDump(t, conn, "SELECT s, arr::text FROM all_types WHERE id = 1", "(changed,{1,NULL,3})", "after the upsert")
	var ddl string
	if err := conn.QueryRow(context.Background(), `SELECT string_agg(column_name || ' ' || data_type || ' ' || is_nullable, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'all_types' AND table_schema = current_schema()`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ddl, "id bigint NO, b boolean YES, ti smallint YES") || !strings.Contains(ddl, "dec numeric YES") || !strings.Contains(ddl, "m jsonb YES") {
		t.Fatalf("created columns: %s", ddl)
	}
}

// TestSinkQuery runs a configured query with ? placeholders for every row, whatever its kind.
func TestSinkQuery(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, "CREATE TABLE log (id BIGINT, name TEXT, note TEXT)")
	s, err := newSink(t, `url = "`+url+`"
user = test
password = test
query = "insert into log (id, name, note) values (?, ?, '?')"
`, scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	write(t, s, scoreBatch(row.Insert, 1, "A", 1, row.Delete, 2, nil, 2))
	if got, want := dump(t, conn, "SELECT * FROM log ORDER BY id"), "(1,A,?) (2,NULL,?)"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestSinkExactlyOnce: a checkpoint's rows are invisible until its commit; a commit runs
// again harmlessly; a restored writer commits what its snapshot lists and rolls back what
// this subtask prepared after it.
func TestSinkExactlyOnce(t *testing.T) {
	ctx := context.Background()
	s, conn := sinkOfTable(t, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name TEXT, score INT)", `primary_keys = [pk_id]
is_exactly_once = true
`)
	wctx := connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 42}, Epoch: 1}
	w, err := s.CreateWriter(wctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	count := func() string { return dump(t, conn, "SELECT count(*) FROM sink") }
	info1, state1 := conntest.Barrier(ctx, t, w, 1, scoreBatch(row.Insert, 1, "A", 1, row.Insert, 2, "B", 2))
	if got := count(); got != "(0)" {
		t.Fatalf("before the commit the table holds %s rows", got)
	}
	// checkpoint 2 is prepared but never completes: the writer's runner is cut off
	conntest.WritePrepare(ctx, t, w, 2, scoreBatch(row.Insert, 3, "C", 3))

	// the next attempt restores checkpoint 1, whose commit never ran
	w2 := restoreWriter(t, s, wctx, 2, state1)
	wantDump(t, conn, "SELECT pk_id FROM sink ORDER BY 1", "(1) (2)", "after the restore the table holds")
	wantDump(t, conn, "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'strait-42-%'", "(0)", "prepared transactions left")
	// the late commit of checkpoint 1 finds nothing to do
	com, _ := s.CreateCommitter()
	if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: 1, Infos: [][]byte{info1}}); err != nil {
		t.Fatalf("repeated commit: %v", err)
	}
	// the old attempt's writer goes on as a zombie and prepares its checkpoint 3 after the
	// restore: under its own attempt's name, which the new attempt neither collides with
	// nor commits
	conntest.WritePrepare(ctx, t, w, 3, scoreBatch(row.Insert, 5, "zombie", 5))
	// replayed rows after the restore
	info2 := conntest.WritePrepare(ctx, t, w2, 2, scoreBatch(row.Insert, 3, "C", 3, row.Insert, 4, "D", 4))
	if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: 2, Infos: [][]byte{info2}}); err != nil {
		t.Fatal(err)
	}
	info3 := conntest.WritePrepare(ctx, t, w2, 3, scoreBatch(row.Insert, 6, "F", 6))
	if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: 3, Infos: [][]byte{info3}}); err != nil {
		t.Fatal(err)
	}
	wantDump(t, conn, "SELECT pk_id FROM sink ORDER BY 1", "(1) (2) (3) (4) (6)", "table holds")
	w.Close(ctx)
	// what the zombie left is settled when the pipeline recovers next
	state2, err := w2.SnapshotState(3)
	if err != nil {
		t.Fatal(err)
	}
	restoreWriter(t, s, wctx, 3, state2)
	wantDump(t, conn, "SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'strait-42-%'", "(0)", "prepared transactions left after the next recovery")
	wantDump(t, conn, "SELECT pk_id FROM sink ORDER BY 1", "(1) (2) (3) (4) (6)", "table holds")
}

func TestSinkSaveModes(t *testing.T) {
	url, conn := testDB(t)
	ctx := context.Background()
	base := `url = "` + url + `"
user = test
password = test
generate_sink_sql = true
database = test
table = "saved.scores"
primary_keys = [pk_id]
`
	setup := func(opts string) error {
		s, err := newSink(t, base+opts, scoreTable())
		if err != nil {
			t.Fatal(err)
		}
		return s.Setup(ctx)
	}
	t.Cleanup(func() { _, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS saved CASCADE") })
	if err := setup("schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST"); err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), "saved.scores: does not exist") {
		t.Fatalf("missing table: %v", err)
	}
	if err := setup(""); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO saved.scores VALUES (1, 'a', 1)"); err != nil {
		t.Fatalf("created table: %v", err)
	}
	if err := setup("data_save_mode = ERROR_WHEN_DATA_EXISTS"); err == nil || !strings.Contains(err.Error(), "holds rows") {
		t.Fatalf("data exists: %v", err)
	}
	if err := setup("data_save_mode = DROP_DATA"); err != nil {
		t.Fatal(err)
	}
	wantDump(t, conn, "SELECT count(*) FROM saved.scores", "(0)", "after DROP_DATA")
	if err := setup(`data_save_mode = CUSTOM_PROCESSING
custom_sql = "insert into saved.scores values (9, 'z', 9)"`); err != nil {
		t.Fatal(err)
	}
	if err := setup("schema_save_mode = RECREATE_SCHEMA"); err != nil {
		t.Fatal(err)
	}
	wantDump(t, conn, "SELECT count(*) FROM saved.scores", "(0)", "after RECREATE_SCHEMA")
}

func TestSinkErrors(t *testing.T) {
	url, conn := testDB(t)
	ctx := context.Background()
	mustExec(t, conn, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name TEXT, score INT)")
	conf := `url = "` + url + `"
user = test
password = test
`
	for _, tc := range []struct{ opts, want string }{
		{"driver = com.mysql.cj.jdbc.Driver\nquery = \"x\"", "driver"},
		{"url = \"jdbc:oracle:thin:@h:1521/db\"\nquery = \"x\"", "is not a PostgreSQL JDBC url"},
		{"", "query: is required unless generate_sink_sql is true"},
		{"generate_sink_sql = true\ndatabase = other\ntable = sink", "the url connects to database \"test\""},
		{"generate_sink_sql = true\ndatabase = test\ntable = sink\nprimary_keys = [nope]", `column "nope" is not a field`},
		{"query = \"insert into sink values (?, ?, ?, ?)\"", "binds 4 parameters"},
		{"batch_size = 0\nquery = \"x\"", "batch_size: must be at least 1"},
	} {
		_, err := newSink(t, conf+tc.opts, scoreTable())
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "sink[0] Jdbc") {
			t.Errorf("%q: error %v, want %q", tc.opts, err, tc.want)
		}
	}
	// a table that is not there names the table
	s, err := newSink(t, conf+"generate_sink_sql = true\ndatabase = test\ntable = nowhere\nschema_save_mode = IGNORE", scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 42}}, nil); err == nil || !strings.Contains(err.Error(), "table nowhere") {
		t.Fatalf("missing table: %v", err)
	}
	// a value the column cannot take names the field and the row
	_, w := openWriter(t, conf+"generate_sink_sql = true\ndatabase = test\ntable = sink", catalog.FromRowType(catalog.TablePath{Table: "fake"}, &types.RowType{
		Names: []string{"pk_id", "name", "score"},
		Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.String)},
	}), connector.WriterContext{Job: connector.Job{ID: 42}})
	b := row.NewBatch(2)
	r := b.Add(row.Insert, "fake", 3)
	r.Fields[0], r.Fields[1], r.Fields[2] = row.BigIntValue(1), row.StringValue("a"), row.StringValue("12")
	r = b.Add(row.Insert, "fake", 3)
	r.Fields[0], r.Fields[1], r.Fields[2] = row.BigIntValue(2), row.StringValue("b"), row.StringValue("twelve")
	if err := w.Write(ctx, b); err == nil || !strings.Contains(err.Error(), "row 1") || !strings.Contains(err.Error(), "field score") || !connector.IsPermanent(err) {
		t.Fatalf("bad value: %v", err)
	}
}

func TestPositionalParams(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"insert into t values (?, ?)", "insert into t values ($1, $2)"},
		{"select '?', \"a?\" from t where x = ? -- ?\n and y = ?", "select '?', \"a?\" from t where x = $1 -- ?\n and y = $2"},
		{"/* ? */ ? 'it''s ?'", "/* ? */ $1 'it''s ?'"},
	} {
		got, _, err := positionalParams(tc.in)
		if err != nil || got != tc.out {
			t.Errorf("%q: got %q, %v; want %q", tc.in, got, err, tc.out)
		}
	}
	if _, _, err := positionalParams("select 'x"); err == nil {
		t.Error("unterminated literal accepted")
	}
}

// TestSinkInsertUpdateReduction: with enable_upsert = false, a key inserted and updated in
// one buffer is inserted with its last values, and a key deleted and inserted again is
// deleted first.
func TestSinkInsertUpdateReduction(t *testing.T) {
	s, conn := sinkOfTable(t, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name TEXT, score INT); INSERT INTO sink VALUES (5, 'old', 5)", `primary_keys = [pk_id]
enable_upsert = false
`)
	write(t, s, scoreBatch(
		row.Insert, 1, "A", 1,
		row.UpdateBefore, 1, "A", 1,
		row.UpdateAfter, 1, "A2", 2,
		row.Delete, 5, "old", 5,
		row.Insert, 5, "new", 6,
	))
	if got, want := dump(t, conn, "SELECT * FROM sink ORDER BY 1"), "(1,A2,2) (5,new,6)"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestSinkTextColumns: columns whose type has no binary encoding for a row value (inet,
// macaddr, an enum) take the value's text, on every write path.
func TestSinkTextColumns(t *testing.T) {
	url, conn := testDB(t)
	in := catalog.FromRowType(catalog.TablePath{Table: "net"}, &types.RowType{
		Names: []string{"id", "addr", "mac", "mood"},
		Types: []types.DataType{types.Of(types.BigInt), types.Of(types.String), types.Of(types.String), types.Of(types.String)},
	})
	for _, opts := range []string{"primary_keys = [id]", "primary_keys = [id]\nenable_upsert = false", "primary_keys = []\nuse_copy_statement = true"} {
		mustExec(t, conn, `DROP TABLE IF EXISTS net; DROP TYPE IF EXISTS mood;
CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE net (id BIGINT PRIMARY KEY, addr INET, mac MACADDR, mood mood)`)
		s, err := newSink(t, genConf(url, "net")+opts, in)
		if err != nil {
			t.Fatal(err)
		}
		b := row.NewBatch(2)
		r := b.Add(row.Insert, "net", 4)
		r.Fields[0], r.Fields[1], r.Fields[2], r.Fields[3] = row.BigIntValue(1), row.StringValue("10.0.0.1/32"), row.StringValue("08:00:2b:01:02:03"), row.StringValue("happy")
		r = b.Add(row.Insert, "net", 4)
		r.Fields[0], r.Fields[1], r.Fields[2], r.Fields[3] = row.BigIntValue(2), row.NullValue(), row.NullValue(), row.NullValue()
		write(t, s, b)
		if got, want := dump(t, conn, "SELECT id, addr::text, mac::text, mood::text FROM net ORDER BY id"), "(1,10.0.0.1/32,08:00:2b:01:02:03,happy) (2,NULL,NULL,NULL)"; got != want {
			t.Fatalf("%s: got %s, want %s", opts, got, want)
		}
	}
}

// TestSinkTableNaming: SeaTunnel's defaults and catalog options name the table written.
func TestSinkTableNaming(t *testing.T) {
	const conf = "url = \"jdbc:postgresql://h/test\"\ngenerate_sink_sql = true\n"
	for _, tc := range []struct{ opts, want string }{
		{"", "fake"},
		{"table = \"s.t\"", "s.t"},
		{"tablePrefix = sink_", "sink_fake"},
		{"schema = inventory\ntablePrefix = sink_\ntableSuffix = _v2", "inventory.sink_fake_v2"},
		// field_ide changes the table's name, not its schema's, as SeaTunnel's dialect quotes it
		{"table = \"a.b\"\nschema = c\nfield_ide = UPPERCASE", "c.B"},
		{"table = \"Public.Mixed\"\nfield_ide = LOWERCASE", "Public.mixed"},
		{"database = test\ntable = \"test.s.t\"", "s.t"},
	} {
		s, err := newSink(t, conf+tc.opts, scoreTable())
		if err != nil {
			t.Fatalf("%q: %v", tc.opts, err)
		}
		if got := s.cfg.target.String(); got != tc.want {
			t.Errorf("%q: table %s, want %s", tc.opts, got, tc.want)
		}
	}
	// the key comes from the input table's unique key when it has no primary key
	in := scoreTable()
	in.ConstraintKeys = []catalog.ConstraintKey{{Name: "u", Type: "UNIQUE_KEY", Columns: []catalog.ConstraintCol{{Name: "name"}}}}
	s, err := newSink(t, conf, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.cfg.pk) != 1 || s.cfg.pk[0] != 1 || s.cfg.mode != modeUpsert {
		t.Fatalf("key %v, mode %v", s.cfg.pk, s.cfg.mode)
	}
	// primary_keys = [] says there is none
	if s, err = newSink(t, conf+"primary_keys = []", in); err != nil || len(s.cfg.pk) != 0 {
		t.Fatalf("key %v, %v", s.cfg.pk, err)
	}
}

// TestSinkRefusedWriteIsPermanent: statements the server refuses for what they hold (here a
// duplicate key) fail the job without a restart (TestSinkErrors checks a bad value).
func TestSinkRefusedWriteIsPermanent(t *testing.T) {
	url, conn := testDB(t)
	ctx := context.Background()
	mustExec(t, conn, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name TEXT, score INT)")
	_, w := openWriter(t, `url = "`+url+`"
query = "insert into sink values (?, ?, ?)"
`, scoreTable(), connector.WriterContext{Job: connector.Job{ID: 42}})
	if err := w.Write(ctx, scoreBatch(row.Insert, 1, "A", 1, row.Insert, 1, "B", 2)); err != nil {
		t.Fatal(err)
	}
	_, err := w.PrepareCommit(ctx, 1)
	if err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("duplicate key: %v (permanent %v)", err, connector.IsPermanent(err))
	}
}

// TestSinkQueryWins: a query is what the sink runs even with generate_sink_sql = true, and
// the save modes then prepare nothing (no table named after the input is created); with
// use_copy_statement the rows go through COPY to the named table instead, still without
// save modes.
func TestSinkQueryWins(t *testing.T) {
	url, conn := testDB(t)
	ctx := context.Background()
	mustExec(t, conn, "CREATE TABLE sink (pk_id BIGINT PRIMARY KEY, name TEXT, score INT); CREATE TABLE copied (pk_id BIGINT, name TEXT, score INT)")
	exists := func(table string) bool {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for _, tc := range []struct {
		name, opts, table string
	}{
		{"query with generate_sink_sql", `generate_sink_sql = true
query = "insert into sink (pk_id, name, score) values (?, ?, ?)"`, "sink"},
		{"query, database and table", `generate_sink_sql = true
database = test
table = elsewhere
schema_save_mode = RECREATE_SCHEMA
data_save_mode = DROP_DATA
query = "insert into sink (pk_id, name, score) values (?, ?, ?)"`, "sink"},
		{"copy before query", `generate_sink_sql = true
use_copy_statement = true
table = copied
query = "insert into sink (pk_id, name, score) values (?, ?, ?)"`, "copied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustExec(t, conn, "TRUNCATE sink, copied")
			s, err := newSink(t, `url = "`+url+`"
`+tc.opts, scoreTable())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			write(t, s, scoreBatch(row.Insert, 1, "A", 1, row.Insert, 2, "B", 2))
			if got := dump(t, conn, "SELECT * FROM "+tc.table+" ORDER BY 1"); got != "(1,A,1) (2,B,2)" {
				t.Errorf("%s holds %s", tc.table, got)
			}
			for _, other := range []string{"sink", "copied"} {
				if other != tc.table {
					if got := dump(t, conn, "SELECT count(*) FROM "+other); got != "(0)" {
						t.Errorf("%s holds %s rows", other, got)
					}
				}
			}
			for _, never := range []string{"fake", "elsewhere"} {
				if exists(never) {
					t.Errorf("table %s was created", never)
				}
			}
		})
	}
}

// TestSinkFieldIdeKeepsSchema: with field_ide = UPPERCASE the table and column names are
// upper-cased and quoted, the schema is not, so the rows reach the table SeaTunnel's
// JdbcPostgresIdentifierIT creates ("PG_IDE_SINK_TABLE" in a lower-case schema).
func TestSinkFieldIdeKeepsSchema(t *testing.T) {
	url, conn := testDB(t)
	ctx := context.Background()
	schema := srcSchema(t, conn)
	mustExec(t, conn, `CREATE TABLE "PG_IDE_SINK_TABLE" ("PK_ID" BIGINT PRIMARY KEY, "NAME" TEXT, "SCORE" INT)`)
	s, err := newSink(t, genConf(url, `"`+schema+`.pg_ide_sink_table"`)+`field_ide = UPPERCASE
primary_keys = [pk_id]
`, scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, s, scoreBatch(row.Insert, 1, "A", 1))
	if got := dump(t, conn, `SELECT * FROM "PG_IDE_SINK_TABLE"`); got != "(1,A,1)" {
		t.Errorf("the table holds %s", got)
	}
	if got := dump(t, conn, "SELECT count(*) FROM pg_namespace WHERE nspname = upper('"+schema+"')"); got != "(0)" {
		t.Errorf("an upper-case schema was created")
	}
	// without the table, the save mode creates it so, in the schema as written
	mustExec(t, conn, `DROP TABLE "PG_IDE_SINK_TABLE"`)
	if err := s.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	got := dump(t, conn, `SELECT table_schema, table_name, string_agg(column_name, ' ' ORDER BY ordinal_position)
		FROM information_schema.columns WHERE table_name ILIKE 'pg_ide_sink_table' GROUP BY 1, 2`)
	if want := "(" + schema + ",PG_IDE_SINK_TABLE,PK_ID NAME SCORE)"; got != want {
		t.Errorf("created %s, want %s", got, want)
	}
}

func TestNamedParams(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		names   []string
	}{
		{"insert into t (a, b) values(:user_id, :name)", "insert into t (a, b) values($1, $2)", []string{"user_id", "name"}},
		{"insert into t values (:a, :a::text, ':b', \":c\") -- :d", "insert into t values ($1, $2::text, ':b', \":c\") -- :d", []string{"a", "a"}},
		{"select x[1:2], :_p1 /* :q */", "select x[1:2], $1 /* :q */", []string{"_p1"}},
	} {
		got, names, err := namedParams(tc.in)
		if err != nil || got != tc.out || strings.Join(names, ",") != strings.Join(tc.names, ",") {
			t.Errorf("%q: got %q %v, %v; want %q %v", tc.in, got, names, err, tc.out, tc.names)
		}
	}
}

// TestSinkNamedQuery: a query with SeaTunnel's named placeholders binds the fields it
// names, by name, and leaves the others out.
func TestSinkNamedQuery(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, "CREATE TABLE log (id BIGINT, note TEXT)")
	s, err := newSink(t, `url = "`+url+`"
generate_sink_sql = true
query = "insert into log (note, id) values (:name || '/' || :score::text, :pk_id)"
`, scoreTable())
	if err != nil {
		t.Fatal(err)
	}
	write(t, s, scoreBatch(row.Insert, 1, "A", 7))
	wantDump(t, conn, "SELECT * FROM log", "(1,A/7)", "log holds")
	if _, err := newSink(t, `url = "`+url+`"
query = "insert into log values (:nope)"
`, scoreTable()); err == nil || !strings.Contains(err.Error(), ":nope is not a field") {
		t.Fatalf("unknown field: %v", err)
	}
}

// TestSinkLostConnectionFails: when the server ends the writer's session between flushes,
// the next flushes (a bulk INSERT each, as SeaTunnel's defaults write a table without a key)
// fail the writer with an error naming the sink and the table, not a hang or a panic, and
// the writer stays failed.
func TestSinkLostConnectionFails(t *testing.T) {
	ctx := context.Background()
	w, conn := keylessWriter(t, "batch_size = 2", connector.WriterContext{Job: connector.Job{ID: 42}})
	conntest.WritePrepare(ctx, t, w, 1, scoreBatch(row.Insert, 1, "A", 1, row.Insert, 2, "B", 2))
	pid := w.(*writer).conn.PgConn().PID()
	if _, err := conn.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; err == nil && i < 50; i++ { // the first send may still reach the socket's buffer
		err = w.Write(ctx, scoreBatch(row.Insert, 10+2*i, "C", 3, row.Insert, 11+2*i, "D", 4))
		if err == nil {
			_, err = w.PrepareCommit(ctx, int64(2+i))
		}
	}
	if err == nil || !strings.Contains(err.Error(), "sink[0] Jdbc") || !strings.Contains(err.Error(), "write to sink") {
		t.Fatalf("writes after the session ended: %v", err)
	}
	if err2 := w.Write(ctx, scoreBatch(row.Insert, 99, "E", 5, row.Insert, 100, "F", 6)); err2 == nil {
		t.Fatal("a failed writer wrote again")
	}
	t.Logf("the error: %v", err)
	wantDump(t, conn, "SELECT pk_id FROM sink WHERE pk_id < 10 ORDER BY pk_id", "(1) (2)", "rows of the first checkpoint")
}

// An abort rolls back each info's own prepared transaction only: the earlier ones an info
// carries belong to checkpoints a manifest may hold, and a restore from one commits them.
func TestSinkExactlyOnceAbortEndsOnlyItsOwn(t *testing.T) {
	url, conn := testDB(t)
	ctx := context.Background()
	mustExec(t, conn, "CREATE TABLE sink_abort (pk_id BIGINT PRIMARY KEY, name TEXT, score INT)")
	s, w := openWriter(t, genConf(url, "sink_abort")+"primary_keys = [pk_id]\nis_exactly_once = true\n", scoreTable(), connector.WriterContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 43}, Epoch: 1})
	if err := w.Write(ctx, scoreBatch(row.Insert, 1, "A", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.PrepareCommit(ctx, 1); err != nil { // its commit failed: still prepared
		t.Fatal(err)
	}
	if err := w.Write(ctx, scoreBatch(row.Insert, 2, "B", 2)); err != nil {
		t.Fatal(err)
	}
	info2, err := w.PrepareCommit(ctx, 2) // carries checkpoint 1's transaction
	if err != nil {
		t.Fatal(err)
	}
	com, _ := s.CreateCommitter()
	if err := com.Abort(ctx, [][]byte{info2}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, conn, "SELECT gid FROM pg_prepared_xacts WHERE gid LIKE 'strait-43-%'"); !strings.HasSuffix(got, "-1)") || strings.Contains(got, " ") {
		t.Fatalf("prepared after the abort: %s, want checkpoint 1's only", got)
	}
	if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: 2, Infos: [][]byte{info2}}); err != nil {
		t.Fatal(err)
	}
	wantDump(t, conn, "SELECT pk_id FROM sink_abort ORDER BY 1", "(1)", "table holds")
}
