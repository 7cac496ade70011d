package iceberg

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go/table"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// evolvingInput is the input of the schema change tests: id, name and n.
func evolvingInput() *catalog.Table {
	return &catalog.Table{Path: catalog.TablePath{Database: "shop", Table: "t"}, Columns: []catalog.Column{
		{Name: "id", Type: types.Of(types.BigInt)}, {Name: "name", Type: types.Of(types.String), Nullable: true},
		{Name: "n", Type: types.Of(types.Int), Nullable: true}},
		PrimaryKey: &catalog.PrimaryKey{Name: "pk", Columns: []string{"id"}}}
}

func column(name, typ string) catalog.Column {
	return catalog.Column{Name: name, Type: types.MustParse(typ), Nullable: true}
}

// evolvingChanges are a MySQL table's DDL during a job, as MySQL-CDC passes them on: a
// column added after id, n widened to bigint, name renamed to title, the added one dropped
// and another added last.
func evolvingChanges() []*connector.SchemaChange {
	change := func(id string, cc ...connector.ColumnChange) *connector.SchemaChange {
		return &connector.SchemaChange{ID: id, Table: "shop.t", Dialect: "MySQL", Columns: cc}
	}
	return []*connector.SchemaChange{
		change("1", connector.ColumnChange{Op: connector.AddColumn, Column: column("added", "string"), After: "id"}),
		change("2", connector.ColumnChange{Op: connector.ModifyColumn, Column: column("n", "bigint")}),
		change("3", connector.ColumnChange{Op: connector.ChangeColumn, Name: "name", Column: column("title", "string")}),
		change("4", connector.ColumnChange{Op: connector.DropColumn, Name: "added"},
			connector.ColumnChange{Op: connector.AddColumn, Column: catalog.Column{Name: "last", Type: types.Of(types.Double)}}), // NOT NULL
	}
}

// evolvingRow is row i as the input has it after the first k changes.
func evolvingRow(k int, i int64) []row.Value {
	id, text, n := row.BigIntValue(i), row.StringValue(fmt.Sprint("r", i)), row.IntValue(int32(i*10))
	if k >= 2 {
		n = row.BigIntValue(i * 10)
	}
	switch k {
	case 0:
		return []row.Value{id, text, n}
	case 1, 2, 3:
		return []row.Value{id, row.StringValue(fmt.Sprint("a", i)), text, n}
	default:
		return []row.Value{id, text, n, row.DoubleValue(float64(i) / 2)}
	}
}

// TestSchemaChangesAppend: a writer that appends follows every change within one
// checkpoint; two writers of the sink both apply each change, the second finding the table
// altered already. The table's schema is the input's after the changes, and the rows read
// back have each column's value as its row was written, null where the column was not.
func TestSchemaChangesAppend(t *testing.T) {
	ctx := context.Background()
	in := evolvingInput()
	s := mustSink(t, hadoopConf(t, "evolve")+"iceberg.table.schema-evolution-enabled = true\n", 31, in)
	w1, w2 := newWriter(t, s, 0), newWriter(t, s, 1)
	changes := evolvingChanges()
	write := func(w connector.Writer, k int, ids ...int64) {
		t.Helper()
		b := row.NewBatch(len(ids))
		for _, i := range ids {
			b.Add(row.Insert, "shop.t", 0).Fields = evolvingRow(k, i)
		}
		if err := w.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	write(w1, 0, 1, 2)
	write(w2, 0, 3)
	for k, ch := range changes {
		for _, w := range []connector.Writer{w1, w2} {
			if err := w.(connector.SchemaChangePreparer).PrepareSchemaChange(ctx, ch); err != nil {
				t.Fatal(err)
			}
		}
		for _, w := range []connector.Writer{w1, w2} {
			if err := w.(connector.SchemaChangeApplier).ApplySchemaChange(ctx, ch); err != nil {
				t.Fatalf("change %s: %v", ch.ID, err)
			}
		}
		if k == 0 {
			if got := tableColumns(loadTable(t, s)); got != "id long, added string, name string, n int" {
				t.Fatalf("after ADD ... AFTER id the table's columns are %s", got)
			}
		}
		write(w1, k+1, int64(10*(k+1)+1))
		write(w2, k+1, int64(10*(k+1)+2))
	}
	commit(t, s, 1, checkpoint(t, 1, w1, w2))

	tbl := loadTable(t, s)
	if got, want := tableColumns(tbl), "id long, title string, n long, last double"; got != want {
		t.Fatalf("the table's columns are %s, want %s", got, want)
	}
	if f, _ := tbl.Schema().FindFieldByName("last"); f.Required {
		t.Fatal("a NOT NULL column added to a table with rows is required")
	}
	out := &catalog.Table{Columns: []catalog.Column{column("id", "bigint"), column("title", "string"), column("n", "bigint"), column("last", "double")}}
	got := readBack(t, tbl, "", out)
	want := map[int64]string{
		1: "r1 10 <nil>", 2: "r2 20 <nil>", 3: "r3 30 <nil>", 11: "r11 110 <nil>", 12: "r12 120 <nil>",
		21: "r21 210 <nil>", 22: "r22 220 <nil>", 31: "r31 310 <nil>", 32: "r32 320 <nil>", 41: "r41 410 20.5", 42: "r42 420 21",
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows read back, want %d: %v", len(got), len(want), got)
	}
	for _, r := range got {
		last := "<nil>"
		if !r[3].IsNull() {
			last = fmt.Sprint(r[3].Float64())
		}
		if s := fmt.Sprintf("%s %d %s", r[1].S, r[2].I, last); s != want[r[0].I] {
			t.Errorf("row %d: %s, want %s", r[0].I, s, want[r[0].I])
		}
	}

	// a writer restored from a checkpoint after the changes has the input's new columns,
	// and applies a change it finds applied already (passed on again after the restore) as
	// a no-op
	st, err := w1.SnapshotState(1)
	if err != nil || len(st) == 0 {
		t.Fatalf("state %s, %v: want the evolved input", st, err)
	}
	w3, err := s.CreateWriter(connector.WriterContext{Index: 0, Parallelism: 2, Job: s.job, Epoch: 2}, [][]byte{st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w3.Close(ctx) })
	write(w3, len(changes), 51)
	commit(t, s, 2, checkpoint(t, 2, w3))
	if got := readBack(t, loadTable(t, s), "", out); len(got) != len(want)+1 {
		t.Fatalf("%d rows after the restored writer's, want %d", len(got), len(want)+1)
	}
	schemaID := loadTable(t, s).Schema().ID
	if err := w3.(connector.SchemaChangeApplier).ApplySchemaChange(ctx, &connector.SchemaChange{ID: "5", Table: "shop.t",
		Columns: []connector.ColumnChange{{Op: connector.ModifyColumn, Column: column("n", "bigint")}}}); err != nil {
		t.Fatal(err)
	}
	if id := loadTable(t, s).Schema().ID; id != schemaID {
		t.Fatalf("a change applied already made schema %d of %d", id, schemaID)
	}
}

// tableColumns is the table's top-level columns and their types, in order.
func tableColumns(tbl *table.Table) string {
	var names []string
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name+" "+f.Type.String())
	}
	return strings.Join(names, ", ")
}

// TestSchemaChangeWritersAtOnce: the writers of a sink alter the table at the same moment;
// each commit that conflicts with another's loads the table again, so every writer
// succeeds and each change makes one schema.
func TestSchemaChangeWritersAtOnce(t *testing.T) {
	ctx := context.Background()
	s := mustSink(t, hadoopConf(t, "atonce")+"iceberg.table.schema-evolution-enabled = true\n", 34, evolvingInput())
	const writers = 4
	ws := make([]connector.Writer, writers)
	for i := range ws {
		ws[i] = newWriter(t, s, i)
	}
	schemas := len(loadTable(t, s).Metadata().Schemas())
	changes := evolvingChanges()
	for _, ch := range changes {
		errs := make(chan error, writers)
		var start sync.WaitGroup
		start.Add(1)
		for _, w := range ws {
			go func() {
				start.Wait()
				errs <- w.(connector.SchemaChangeApplier).ApplySchemaChange(ctx, ch)
			}()
		}
		start.Done()
		for range writers {
			if err := <-errs; err != nil {
				t.Fatalf("change %s: %v", ch.ID, err)
			}
		}
	}
	tbl := loadTable(t, s)
	if got, want := tableColumns(tbl), "id long, title string, n long, last double"; got != want {
		t.Fatalf("the table's columns are %s, want %s", got, want)
	}
	if got := len(tbl.Metadata().Schemas()) - schemas; got != len(changes) {
		t.Fatalf("%d schemas made by %d changes", got, len(changes))
	}
}

// TestSchemaChangeUpsert: in upsert mode a key changed before and after a column is added
// in one checkpoint keeps its last change, written with the new column; a key inserted
// before the change keeps its row with the new column null.
func TestSchemaChangeUpsert(t *testing.T) {
	ctx := context.Background()
	in := evolvingInput()
	s := mustSink(t, hadoopConf(t, "evolveup")+"iceberg.table.upsert-mode-enabled = true\niceberg.table.schema-evolution-enabled = true\n", 32, in)
	w := newWriter(t, s, 0)
	b := row.NewBatch(4)
	b.Add(row.Insert, "shop.t", 0).Fields = evolvingRow(0, 1)
	b.Add(row.Insert, "shop.t", 0).Fields = evolvingRow(0, 2)
	if err := w.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	commit(t, s, 1, checkpoint(t, 1, w))
	b = row.NewBatch(4)
	b.Add(row.Insert, "shop.t", 0).Fields = evolvingRow(0, 3)
	b.Add(row.UpdateAfter, "shop.t", 0).Fields = []row.Value{row.BigIntValue(1), row.StringValue("before"), row.IntValue(7)}
	if err := w.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := w.(connector.SchemaChangeApplier).ApplySchemaChange(ctx, evolvingChanges()[0]); err != nil {
		t.Fatal(err)
	}
	b = row.NewBatch(4)
	b.Add(row.UpdateAfter, "shop.t", 0).Fields = []row.Value{row.BigIntValue(2), row.StringValue("a2"), row.StringValue("after"), row.IntValue(8)}
	if err := w.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	commit(t, s, 2, checkpoint(t, 2, w))
	out := &catalog.Table{Columns: []catalog.Column{column("id", "bigint"), column("added", "string"), column("name", "string"), column("n", "int")}}
	got := readBack(t, loadTable(t, s), "", out)
	want := map[int64]string{1: "<nil> before 7", 2: "a2 after 8", 3: "<nil> r3 30"}
	if len(got) != len(want) {
		t.Fatalf("%d rows read back, want %d: %v", len(got), len(want), got)
	}
	for _, r := range got {
		added := "<nil>"
		if !r[1].IsNull() {
			added = r[1].S
		}
		if s := fmt.Sprintf("%s %s %d", added, r[2].S, r[3].I); s != want[r[0].I] {
			t.Errorf("row %d: %s, want %s", r[0].I, s, want[r[0].I])
		}
	}
}

// TestSchemaChangeRefusals: a change Iceberg cannot make fails the writer, naming it.
func TestSchemaChangeRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, conf string
		change     connector.ColumnChange
		want       string
	}{
		{"without schema evolution", "iceberg.table.schema-evolution-enabled = false\n", connector.ColumnChange{Op: connector.AddColumn, Column: column("c", "int")},
			"ADD COLUMN c int): the sink follows a schema change with iceberg.table.schema-evolution-enabled = true"},
		{"a narrowed type", "", connector.ColumnChange{Op: connector.ModifyColumn, Column: column("id", "int")}, "MODIFY COLUMN id int: cannot resolve type: cannot promote long to int"},
		{"a column not there", "", connector.ColumnChange{Op: connector.ModifyColumn, Column: column("nope", "int")}, `MODIFY COLUMN nope int: no column "nope"`},
		{"a partition column's type", "iceberg.table.partition-keys = n\n", connector.ColumnChange{Op: connector.ModifyColumn, Column: column("n", "bigint")}, "partitioned by it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conf := hadoopConf(t, "refuse") + tc.conf
			if !strings.Contains(conf, "schema-evolution-enabled") {
				conf += "iceberg.table.schema-evolution-enabled = true\n"
			}
			s := mustSink(t, conf, 33, evolvingInput())
			w := newWriter(t, s, 0)
			err := w.(connector.SchemaChangeApplier).ApplySchemaChange(ctx, &connector.SchemaChange{ID: "1", Table: "shop.t", Columns: []connector.ColumnChange{tc.change}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)

			}
		})
	}
}
