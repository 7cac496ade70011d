package jdbc

import (
	"context"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// products is a MySQL-CDC source's table shop.products, as SeaTunnel's schema change test
// has it.
func products() *catalog.Table {
	return &catalog.Table{Path: catalog.TablePath{Database: "shop", Table: "products"},
		Columns: []catalog.Column{
			{Name: "id", Type: types.Of(types.Int), SourceType: "int(11)"},
			{Name: "name", Type: types.Of(types.String), SourceType: "varchar(255)"},
			{Name: "weight", Type: types.Of(types.Float), Nullable: true, SourceType: "float"},
		},
		PrimaryKey: &catalog.PrimaryKey{Name: "PRIMARY", Columns: []string{"id"}}}
}

// productsDDL creates the table products describes.
const productsDDL = "CREATE TABLE products (id INT NOT NULL PRIMARY KEY, name VARCHAR(255) NOT NULL, weight FLOAT)"

// productChanges are SeaTunnel's schema change test's ALTERs, as MySQL-CDC passes them on:
// two columns added with defaults, one dropped, one renamed with a new type, one modified.
func productChanges() []*connector.SchemaChange {
	col := func(name string, k types.Kind, nullable bool, src string) catalog.Column {
		return catalog.Column{Name: name, Type: types.Of(k), Nullable: nullable, SourceType: src}
	}
	add1 := col("add_column1", types.String, false, "varchar(64)")
	add1.DefaultValue = "yy"
	change := func(id string, cc ...connector.ColumnChange) *connector.SchemaChange {
		return &connector.SchemaChange{ID: id, Table: "shop.products", Dialect: "MySQL", Columns: cc}
	}
	return []*connector.SchemaChange{
		change("1", connector.ColumnChange{Op: connector.AddColumn, Column: add1, Default: "'yy'"},
			connector.ColumnChange{Op: connector.AddColumn, Column: col("add_column2", types.Int, false, "int"), Default: "1"}),
		change("2", connector.ColumnChange{Op: connector.DropColumn, Name: "weight"}),
		change("3", connector.ColumnChange{Op: connector.ChangeColumn, Name: "add_column2", Column: col("add_column", types.BigInt, false, "bigint"), Default: "1"}),
		change("4", connector.ColumnChange{Op: connector.ModifyColumn, Column: col("name", types.String, true, "longtext")}),
	}
}

// productRows are the rows between the changes: before the first, after each.
func productRows() []*row.Batch {
	b := func(rows ...[]row.Value) *row.Batch {
		out := row.NewBatch(len(rows))
		for _, vals := range rows {
			kind := row.Insert
			if vals[0].T == types.Null { // an update of the key that follows
				kind, vals = row.UpdateAfter, vals[1:]
			}
			r := out.Add(kind, "shop.products", len(vals))
			copy(r.Fields, vals)
		}
		return out
	}
	i, s, f := func(n int32) row.Value { return row.IntValue(n) }, row.StringValue, func(x float32) row.Value { return row.FloatValue(x) }
	upd := row.NullValue()
	return []*row.Batch{
		b([]row.Value{i(1), s("a"), f(1.5)}, []row.Value{i(2), s("b"), f(2.5)}),
		b([]row.Value{i(3), s("c"), f(3.5), s("xx"), i(5)}, []row.Value{upd, i(1), s("a!"), f(1.5), s("yy"), i(1)}),
		b([]row.Value{i(4), s("d"), s("zz"), i(6)}),
		b([]row.Value{i(5), s("e"), s("q"), row.BigIntValue(7)}),
		b([]row.Value{i(6), row.NullValue(), s("r"), row.BigIntValue(8)}),
	}
}

// wantProducts are the table's rows after every change, as id, name, add_column1, add_column.
const wantProducts = "(1, a!, yy, 1) (2, b, yy, 1) (3, c, xx, 5) (4, d, zz, 6) (5, e, q, 7) (6, NULL, r, 8)"

// evolve writes the rows and the changes through a writer, taking its state after the
// first change, and returns that state.
func evolve(t *testing.T, s *Sink, exactlyOnce bool) []byte {
	t.Helper()
	ctx := context.Background()
	w, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 42}, Epoch: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	rows, changes := productRows(), productChanges()
	var state []byte
	for i, b := range rows {
		if err := w.Write(ctx, b); err != nil {
			t.Fatalf("rows %d: %v", i, err)
		}
		b.Release()
		if i == len(changes) {
			break
		}
		if err := w.(connector.SchemaChangeApplier).ApplySchemaChange(ctx, changes[i]); err != nil {
			t.Fatalf("change %d: %v", i+1, err)
		}
		if i == 0 {
			if state, err = w.SnapshotState(1); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !commitIfAny(t, s, w, 1) && exactlyOnce {
		t.Fatal("nothing to commit")
	}
	return state
}

// replay is a restore from the state evolve took after the first change: the rows and the
// changes after it again. The table has every change applied; none is applied twice.
func replay(t *testing.T, s *Sink, state []byte) {
	t.Helper()
	ctx := context.Background()
	w, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 42}, Epoch: 2}, [][]byte{state})
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	defer w.Close(ctx)
	rows, changes := productRows(), productChanges()
	for i := 1; i < len(rows); i++ {
		if err := w.Write(ctx, rows[i]); err != nil {
			t.Fatalf("rows %d again: %v", i, err)
		}
		if i < len(changes) {
			if err := w.(connector.SchemaChangeApplier).ApplySchemaChange(ctx, changes[i]); err != nil {
				t.Fatalf("change %d again: %v", i+1, err)
			}
		}
	}
	commitIfAny(t, s, w, 2)
}

// commitIfAny prepares checkpoint cp of w and commits it when the sink has a committer and
// the checkpoint something to commit, which it reports.
func commitIfAny(t *testing.T, s *Sink, w connector.Writer, cp int64) bool {
	t.Helper()
	ctx := context.Background()
	info, err := w.PrepareCommit(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	com, _ := s.CreateCommitter()
	if com == nil || info == nil {
		return false
	}
	if err := com.Commit(ctx, connector.CommitRequest{CheckpointID: cp, Infos: [][]byte{info}}); err != nil {
		t.Fatal(err)
	}
	return true
}

// inCommitModes runs test as a subtest with auto commit, then with exactly once.
func inCommitModes(t *testing.T, test func(t *testing.T, exactlyOnce bool)) {
	for _, exactlyOnce := range []bool{false, true} {
		name := "auto commit"
		if exactlyOnce {
			name = "exactly once"
		}
		t.Run(name, func(t *testing.T) { test(t, exactlyOnce) })
	}
}

// TestMySQLSchemaChanges: the writer alters its table as the changes say (the source's
// MySQL types and defaults, NOT NULL and NULL, FIRST and AFTER), writes every row with the
// columns of its moment, and a writer restored from a state before the last three changes
// writes the rows after it again without applying any change twice.
func TestMySQLSchemaChanges(t *testing.T) {
	inCommitModes(t, func(t *testing.T, exactlyOnce bool) {
		db := newMyDB(t)
		db.exec(t, productsDDL)
		conf := "generate_sink_sql = true\ntable = products"
		if exactlyOnce {
			conf += "\nis_exactly_once = true\nxa_data_source_class_name = \"com.mysql.cj.jdbc.MysqlXADataSource\""
		}
		s, err := newSink(t, db.conf(conf), products())
		if err != nil {
			t.Fatal(err)
		}
		state := evolve(t, s, exactlyOnce)
		if id, ok := s.StateTable(state); !ok || id != "shop.products" {
			t.Fatalf("the state names table %q (%v), want shop.products", id, ok)
		}
		desc := "(id, int(11), NO, NULL) (name, longtext, YES, NULL) (add_column1, varchar(64), NO, 'yy') (add_column, bigint(20), NO, 1)"
		query := "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COALESCE(COLUMN_DEFAULT, 'NULL') FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '" + db.name + "' AND TABLE_NAME = 'products' ORDER BY ORDINAL_POSITION"
		if got := db.dump(t, query); got != desc {
			t.Fatalf("columns\n%s\nwant\n%s", got, desc)
		}
		if got := db.dump(t, "SELECT id, name, add_column1, add_column FROM products ORDER BY id"); got != wantProducts {
			t.Fatalf("rows\n%s\nwant\n%s", got, wantProducts)
		}
		replay(t, s, state)
		if got := db.dump(t, query); got != desc {
			t.Fatalf("columns after the replay\n%s\nwant\n%s", got, desc)
		}
		if got := db.dump(t, "SELECT id, name, add_column1, add_column FROM products ORDER BY id"); got != wantProducts {
			t.Fatalf("rows after the replay\n%s\nwant\n%s", got, wantProducts)
		}
		if left := db.xaLeft(t, s.cfg.tag); left != "" {
			t.Fatalf("XA transactions left: %s", left)
		}
	})
}

// TestPostgresSchemaChanges: the same changes on PostgreSQL: columns added (the source's
// type where PostgreSQL reads it as the column's type), dropped, renamed and retyped, with
// the defaults PostgreSQL reads; a replay applies none twice.
func TestPostgresSchemaChanges(t *testing.T) {
	inCommitModes(t, func(t *testing.T, exactlyOnce bool) {
		url, conn := testDB(t)
		mustExec(t, conn, productsDDL)
		conf := genConf(url, "products")
		if exactlyOnce {
			conf += "is_exactly_once = true\n"
		}
		s, err := newSink(t, conf, products())
		if err != nil {
			t.Fatal(err)
		}
		state := evolve(t, s, exactlyOnce)
		desc := "(id,integer,NO,NULL) (name,text,YES,NULL) (add_column1,character varying,NO,'yy'::character varying) (add_column,bigint,NO,1)"
		query := "SELECT column_name, data_type, is_nullable, COALESCE(column_default, 'NULL') FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'products' ORDER BY ordinal_position"
		wantDump(t, conn, query, desc, "columns")
		want := strings.ReplaceAll(strings.ReplaceAll(wantProducts, ", ", ","), "NULL", "NULL")
		wantDump(t, conn, "SELECT id, name, add_column1, add_column FROM products ORDER BY id", want, "rows")
		replay(t, s, state)
		wantDump(t, conn, query, desc, "columns after the replay")
		wantDump(t, conn, "SELECT id, name, add_column1, add_column FROM products ORDER BY id", want, "rows after the replay")
		wantDump(t, conn, "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE 'strait-42-"+s.cfg.tag+"-%'", "(0)", "prepared transactions left")
	})
}

// A sink with a query cannot follow a change; a change of another table is refused.
func TestSchemaChangeRefused(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, productsDDL)
	for _, c := range []struct{ conf, table, want string }{
		{"url = \"" + url + "\"\nquery = \"insert into products values (?, ?, ?)\"\n", "shop.products", "a sink with a query cannot follow a schema change"},
		{genConf(url, "products"), "shop.other", "a schema change of table shop.other reached the writer of table shop.products"},
	} {
		s, err := newSink(t, c.conf, products())
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.CreateWriter(connector.WriterContext{Job: connector.Job{ID: 42}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = w.(connector.SchemaChangeApplier).ApplySchemaChange(context.Background(), &connector.SchemaChange{Table: c.table})
		if err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		w.Close(context.Background())
	}
}
