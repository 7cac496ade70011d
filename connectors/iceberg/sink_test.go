package iceberg

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Rows of every type written through the sink's writers and committer read back with
// iceberg-go's own scan, equal field by field; one snapshot per checkpoint, naming it.
func TestSinkWritesEveryTypeAndReadsBack(t *testing.T) {
	in := allTypes()
	s := mustSink(t, hadoopConf(t, "all_types"), 41, in)
	w0, w1 := newWriter(t, s, 0), newWriter(t, s, 1)
	writeRows(t, w0, 0, 60)
	writeRows(t, w1, 60, 100)
	commit(t, s, 1, checkpoint(t, 1, w0, w1))
	writeRows(t, w1, 100, 150)
	commit(t, s, 2, checkpoint(t, 2, w0, w1))

	tbl := loadTable(t, s)
	sameRows(t, in, readBack(t, tbl, "", in), allTypesRow, 150)
	snaps := tbl.Metadata().Snapshots()
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots, want one per checkpoint (2)", len(snaps))
	}
	for i, snap := range snaps {
		p := snap.Summary.Properties
		if p[propJobID] != "41" || p[propCheckpointID] != fmt.Sprint(i+1) {
			t.Errorf("snapshot %d: summary %v, want job 41 checkpoint %d", i, p, i+1)
		}
	}
	if n := len(strings.Split(snaps[0].Summary.Properties[propTransactions], ",")); n != 2 {
		t.Errorf("checkpoint 1 holds %d transactions, want both writers'", n)
	}
	// the types the table was created with, as SeaTunnel's mapper makes them
	sc := tbl.Schema()
	for name, want := range map[string]string{"c_tinyint": "int", "c_smallint": "int", "c_bigint": "long", "c_decimal": "decimal(30, 8)",
		"c_bytes": "binary", "c_timestamp": "timestamptz", "c_time": "time", "c_map": "map<string, string>", "c_array": "list<int>"} {
		f, ok := sc.FindFieldByName(name)
		if !ok || f.Type.String() != want {
			t.Errorf("column %s: Iceberg type %v, want %s", name, f.Type, want)
		}
	}
}

// A commit repeated for a checkpoint adds nothing, and a later checkpoint that carries a
// transaction committed before (the engine delivers an info again) adds only the new ones.
func TestCommitIsIdempotent(t *testing.T) {
	in := allTypes()
	conf := hadoopConf(t, "idem")
	s := mustSink(t, conf, 7, in)
	w := newWriter(t, s, 0)
	writeRows(t, w, 0, 10)
	first := checkpoint(t, 1, w)
	commit(t, s, 1, first)
	commit(t, s, 1, first) // the activity tried again
	writeRows(t, w, 10, 15)
	second := checkpoint(t, 2, w)
	commit(t, s, 2, append(append([][]byte{}, first...), second...))
	commit(t, s, 2, append(append([][]byte{}, first...), second...))

	tbl := loadTable(t, s)
	sameRows(t, in, readBack(t, tbl, "", in), allTypesRow, 15)
	if n := len(tbl.Metadata().Snapshots()); n != 2 {
		t.Fatalf("%d snapshots, want 2", n)
	}
	// another job's checkpoint 1 is its own
	s2 := mustSink(t, conf, 8, in)
	commitRows(t, s2, 15, 20)
	sameRows(t, in, readBack(t, loadTable(t, s), "", in), allTypesRow, 20)
	// the job run afresh under its id numbers its checkpoints from 1 again: its writers'
	// transactions are new, and they are committed
	s3 := mustSink(t, conf, 7, in)
	commitRows(t, s3, 20, 22)
	sameRows(t, in, readBack(t, loadTable(t, s), "", in), allTypesRow, 22)
}

// Abort deletes the data files of a prepared transaction; the table does not change.
func TestAbortRemovesPreparedFiles(t *testing.T) {
	ctx := context.Background()
	in := allTypes()
	s := mustSink(t, hadoopConf(t, "abort"), 9, in)
	w := newWriter(t, s, 0)
	writeRows(t, w, 0, 20)
	infos := checkpoint(t, 1, w)
	var info commitInfo
	c := &committer{s: s}
	got, err := c.decode(infos[0])
	if err != nil {
		t.Fatal(err)
	}
	info = *got
	if len(info.Paths) == 0 {
		t.Fatal("no data files prepared")
	}
	for _, p := range info.Paths {
		if _, err := os.Stat(strings.TrimPrefix(p, "file://")); err != nil {
			t.Fatalf("prepared file %s: %v", p, err)
		}
	}
	if err := c.Abort(ctx, infos); err != nil {
		t.Fatal(err)
	}
	for _, p := range info.Paths {
		if _, err := os.Stat(strings.TrimPrefix(p, "file://")); !os.IsNotExist(err) {
			t.Fatalf("aborted file %s is still there (%v)", p, err)
		}
	}
	if snap := loadTable(t, s).CurrentSnapshot(); snap != nil {
		t.Fatalf("the table has snapshot %d after an abort", snap.SnapshotID)
	}
	// a committed transaction is never deleted by an abort
	writeRows(t, w, 0, 5)
	again := checkpoint(t, 2, w)
	commit(t, s, 2, again)
	if err := c.Abort(ctx, again); err != nil {
		t.Fatal(err)
	}
	sameRows(t, in, readBack(t, loadTable(t, s), "", in), allTypesRow, 5)
}

// Partition keys (identity, and a transform) make a partitioned table; each data file
// holds one partition, and every row reads back.
func TestPartitionedWrites(t *testing.T) {
	in := allTypes()
	conf := hadoopConf(t, "parts") + `iceberg.table.partition-keys = "c_boolean, day(c_timestamp)"
iceberg.table.write-props = { write.format.default = parquet, write.target-file-size-bytes = 10 }
`
	s := mustSink(t, conf, 3, in)
	commitRows(t, s, 0, 40)
	tbl := loadTable(t, s)
	spec := tbl.Spec()
	if spec.NumFields() != 2 || spec.Field(0).Name != "c_boolean" || spec.Field(1).Name != "c_timestamp_day" {
		t.Fatalf("partition spec %v", spec)
	}
	files := dataFiles(t, tbl, "")
	parts := map[string]bool{}
	for _, f := range files {
		parts[fmt.Sprint(f.Partition())] = true
	}
	// 40 rows 37 hours apart: 62 days, two booleans, nulls of row 3 and the like
	if len(parts) < 30 {
		t.Fatalf("%d data files in %d partitions; want one partition per day and boolean", len(files), len(parts))
	}
	sameRows(t, in, readBack(t, tbl, "", in), allTypesRow, 40)
}

// With a commit branch the snapshots go to the branch: main stays empty.
func TestCommitBranch(t *testing.T) {
	in := allTypes()
	s := mustSink(t, hadoopConf(t, "branch")+"iceberg.table.commit-branch = dev\n", 5, in)
	w := newWriter(t, s, 0)
	writeRows(t, w, 0, 12)
	commit(t, s, 1, checkpoint(t, 1, w))
	writeRows(t, w, 12, 20)
	commit(t, s, 2, checkpoint(t, 2, w))
	tbl := loadTable(t, s)
	if tbl.SnapshotByName("dev") == nil {
		t.Fatal("no branch dev")
	}
	if snap := tbl.CurrentSnapshot(); snap != nil {
		t.Fatalf("main has snapshot %d", snap.SnapshotID)
	}
	sameRows(t, in, readBack(t, tbl, "dev", in), allTypesRow, 20)
}

// The save modes, applied by Setup.
func TestSaveModes(t *testing.T) {
	ctx := context.Background()
	in := allTypes()
	base := hadoopConf(t, "modes")
	fill := func(s *Sink, n int) {
		commitRows(t, s, 0, n)
	}
	// ERROR_WHEN_SCHEMA_NOT_EXIST on a missing table
	s, err := buildSink(t, base+"schema_save_mode = ERROR_WHEN_SCHEMA_NOT_EXIST\n", 1, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Setup(ctx); err == nil || !connector.IsPermanent(err) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("setup of a missing table with ERROR_WHEN_SCHEMA_NOT_EXIST: %v", err)
	}
	fill(mustSink(t, base, 1, in), 10)
	// ERROR_WHEN_DATA_EXISTS
	s, _ = buildSink(t, base+"data_save_mode = ERROR_WHEN_DATA_EXISTS\n", 2, in)
	if err := s.Setup(ctx); err == nil || !strings.Contains(err.Error(), "holds 10 rows") {
		t.Fatalf("setup of a table with rows and ERROR_WHEN_DATA_EXISTS: %v", err)
	}
	// DROP_DATA
	s = mustSink(t, base+"data_save_mode = DROP_DATA\n", 3, in)
	if got := readBack(t, loadTable(t, s), "", in); len(got) != 0 {
		t.Fatalf("%d rows after DROP_DATA", len(got))
	}
	fill(s, 4)
	sameRows(t, in, readBack(t, loadTable(t, s), "", in), allTypesRow, 4)
	// RECREATE_SCHEMA: a table of other columns
	other := &catalog.Table{Path: catalog.TablePath{Table: "x"}, Columns: []catalog.Column{{Name: "id", Type: types.Of(types.BigInt), Nullable: true}, {Name: "name", Type: types.Of(types.String), Nullable: true}}}
	s = mustSink(t, base+"schema_save_mode = RECREATE_SCHEMA\n", 4, other)
	tbl := loadTable(t, s)
	if tbl.CurrentSnapshot() != nil || len(tbl.Schema().Fields()) != 2 {
		t.Fatalf("after RECREATE_SCHEMA: snapshot %v, schema %s", tbl.CurrentSnapshot(), tbl.Schema())
	}
}

// The input's columns match the table's by name, in any case unless case_sensitive; a
// column the table lacks fails the write unless schema evolution adds it before the job.
func TestColumnsMatchByName(t *testing.T) {
	ctx := context.Background()
	conf := hadoopConf(t, "names")
	narrow := &catalog.Table{Path: catalog.TablePath{Table: "x"}, Columns: []catalog.Column{{Name: "id", Type: types.Of(types.BigInt), Nullable: true}}}
	mustSink(t, conf, 1, narrow)
	wide := &catalog.Table{Path: catalog.TablePath{Table: "x"}, Columns: []catalog.Column{{Name: "ID", Type: types.Of(types.BigInt), Nullable: true}, {Name: "extra", Type: types.Of(types.Int), Nullable: true}}}
	gen := func(i int) []row.Value { return []row.Value{row.BigIntValue(int64(i)), row.IntValue(int32(i * 2))} }
	s := mustSink(t, conf, 2, wide)
	err := newWriter(t, s, 0).Write(ctx, batchOf("x", 0, 3, gen))
	if err == nil || !strings.Contains(err.Error(), "no column extra") || !connector.IsPermanent(err) {
		t.Fatalf("a column the table lacks: %v", err)
	}
	s = mustSink(t, conf+"iceberg.table.schema-evolution-enabled = true\n", 3, wide)
	w := newWriter(t, s, 0)
	if err := w.Write(ctx, batchOf("x", 0, 3, gen)); err != nil {
		t.Fatal(err)
	}
	commit(t, s, 1, checkpoint(t, 1, w))
	sameRows(t, wide, readBack(t, loadTable(t, s), "", &catalog.Table{Columns: []catalog.Column{{Name: "id", Type: types.Of(types.BigInt)}, {Name: "extra", Type: types.Of(types.Int)}}}), gen, 3)
}

// Options Strait cannot honour are refused naming them; change rows are refused.
func TestRefusals(t *testing.T) {
	in := allTypes()
	conf := hadoopConf(t, "refused")
	for _, tc := range []struct{ extra, option string }{
		{"iceberg.table.upsert-mode-enabled = true\niceberg.table.auto-create-props = { format-version = 1 }", "iceberg.table.upsert-mode-enabled"},
		{`iceberg.table.write-props = { write.format.default = orc }`, "iceberg.table.write-props"},
		{`iceberg.table.partition-keys = "nope"`, "iceberg.table.partition-keys"},
		{`iceberg.table.partition-keys = "weeks(c_date)"`, "iceberg.table.partition-keys"},
		{`iceberg.table.primary-keys = "nope"`, "iceberg.table.primary-keys"},
		{`iceberg.catalog.config = { type = hive, uri = "thrift://x:9083" }`, "iceberg.catalog.config"},
		{`iceberg.catalog.config = { type = hadoop, warehouse = "hdfs://nn/wh" }`, "iceberg.catalog.config"},
	} {
		_, err := buildSink(t, conf+tc.extra+"\n", 1, in)
		if err == nil || !strings.Contains(err.Error(), tc.option) {
			t.Errorf("%s: %v, want an error naming %s", tc.extra, err, tc.option)
		}
	}
	s := mustSink(t, conf, 1, in)
	b := row.NewBatch(1)
	r := b.Add(row.Delete, "fake", 0)
	r.Fields = allTypesRow(1)
	if err := newWriter(t, s, 0).Write(context.Background(), b); err == nil || !strings.Contains(err.Error(), "DELETE") {
		t.Fatalf("a DELETE row: %v", err)
	}
}

// A Hadoop warehouse on S3 (SeaweedFS), its credentials as Hadoop's fs.s3a.* keys in
// hadoop.config, as SeaTunnel's S3 configs write them.
func TestSinkOnS3(t *testing.T) {
	ctx := context.Background()
	endpoint, key, secret := s3Server(t)
	prefix := fmt.Sprintf("iceberg-tests/%s-%d/", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	s3Clean(t, prefix)
	t.Cleanup(func() { s3Clean(t, prefix) })
	conf := fmt.Sprintf(`catalog_name = seatunnel
iceberg.catalog.config = { type = hadoop, warehouse = "s3a://%s/%s" }
hadoop.config = {
  "fs.s3a.path.style.access" = "true"
  "fs.s3a.endpoint" = %q
  "fs.s3a.access.key" = %q
  "fs.s3a.secret.key" = %q
  "fs.s3a.aws.credentials.provider" = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
}
namespace = database1
table = s3_sink
iceberg.table.partition-keys = c_boolean
`, testBucket, strings.TrimSuffix(prefix, "/"), endpoint, key, secret)
	in := allTypes()
	s := mustSink(t, conf, 11, in)
	w0, w1 := newWriter(t, s, 0), newWriter(t, s, 1)
	writeRows(t, w0, 0, 30)
	writeRows(t, w1, 30, 50)
	infos := checkpoint(t, 1, w0, w1)
	commit(t, s, 1, infos)
	commit(t, s, 1, infos)
	tbl := loadTable(t, s)
	if n := len(tbl.Metadata().Snapshots()); n != 1 {
		t.Fatalf("%d snapshots, want 1", n)
	}
	sameRows(t, in, readBack(t, tbl, "", in), allTypesRow, 50)
	keys := s3Keys(t, prefix)
	if !contains(keys, "database1/s3_sink/metadata/") || !contains(keys, "database1/s3_sink/data/c_boolean=true/") {
		t.Fatalf("the bucket holds %v", keys)
	}
	// an aborted transaction's files go
	writeRows(t, w0, 0, 5)
	more := checkpoint(t, 2, w0)
	before := len(s3Keys(t, prefix))
	c, _ := s.CreateCommitter()
	if err := c.Abort(ctx, more); err != nil {
		t.Fatal(err)
	}
	if after := len(s3Keys(t, prefix)); after >= before {
		t.Fatalf("%d objects before the abort, %d after", before, after)
	}
}

// Upsert mode: INSERT and UPDATE_AFTER replace the key's row, DELETE deletes it, the last
// change of a key in a checkpoint wins, and rows of earlier checkpoints are replaced by
// equality deletes committed with the new rows in one snapshot.
func TestUpsertMode(t *testing.T) {
	ctx := context.Background()
	in := &catalog.Table{Path: catalog.TablePath{Table: "u"}, Columns: []catalog.Column{
		{Name: "id", Type: types.Of(types.BigInt)}, {Name: "name", Type: types.Of(types.String), Nullable: true}}}
	conf := hadoopConf(t, "upsert") + `iceberg.table.primary-keys = id
iceberg.table.upsert-mode-enabled = true
`
	s := mustSink(t, conf, 21, in)
	if f, _ := loadTable(t, s).Schema().FindFieldByName("id"); !f.Required {
		t.Fatal("the key column is not required")
	}
	w := newWriter(t, s, 0)
	add := func(b *row.Batch, kind row.Kind, id int64, name string) {
		r := b.Add(kind, "u", 0)
		r.Fields = []row.Value{row.BigIntValue(id), row.StringValue(name)}
	}
	b := row.NewBatch(16)
	for i := int64(0); i < 10; i++ {
		add(b, row.Insert, i, fmt.Sprint("v1-", i))
	}
	add(b, row.UpdateBefore, 2, "v1-2")
	add(b, row.UpdateAfter, 2, "v2-2") // a key changed twice in a checkpoint: the last wins
	if err := w.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	commit(t, s, 1, checkpoint(t, 1, w))
	b = row.NewBatch(16)
	add(b, row.UpdateBefore, 3, "v1-3")
	add(b, row.UpdateAfter, 3, "v2-3")
	add(b, row.Delete, 5, "v1-5")
	add(b, row.Insert, 7, "v2-7") // an insert of an existing key replaces it
	add(b, row.Insert, 20, "v1-20")
	add(b, row.Delete, 20, "v1-20") // inserted and deleted in one checkpoint: gone
	add(b, row.Insert, 21, "v1-21")
	if err := w.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	infos := checkpoint(t, 2, w)
	commit(t, s, 2, infos)
	commit(t, s, 2, infos)
	got := readBack(t, loadTable(t, s), "", in)
	want := map[int64]string{0: "v1-0", 1: "v1-1", 2: "v2-2", 3: "v2-3", 4: "v1-4", 6: "v1-6", 7: "v2-7", 8: "v1-8", 9: "v1-9", 21: "v1-21"}
	if len(got) != len(want) {
		t.Fatalf("%d rows read back, want %d: %v", len(got), len(want), got)
	}
	for _, r := range got {
		if want[r[0].I] != r[1].S {
			t.Errorf("id %d: %q, want %q", r[0].I, r[1].S, want[r[0].I])
		}
	}
	// without upsert mode change rows are refused; an upsert key must be known
	noKey := &catalog.Table{Path: catalog.TablePath{Table: "n"}, Columns: in.Columns}
	s2 := mustSink(t, hadoopConf(t, "nokey")+"iceberg.table.upsert-mode-enabled = true\n", 22, noKey)
	if err := newWriter(t, s2, 0).Write(ctx, batchOf("n", 0, 1, func(int) []row.Value { return []row.Value{row.BigIntValue(1), row.StringValue("x")} })); err == nil ||
		!strings.Contains(err.Error(), "needs a key") {
		t.Fatalf("upsert without a key: %v", err)
	}
}

// Upsert mode into a table partitioned by a column outside the key (SeaTunnel's
// IcebergSinkCDCIT partitions by f_datetime and keys by id): a change that moves a row to
// another partition deletes it from the old one by its UPDATE_BEFORE, within a checkpoint
// and across two; a DELETE deletes from the partition its old image names; an INSERT of an
// existing key in the same partition replaces it.
func TestUpsertPartitionedOutsideTheKey(t *testing.T) {
	ctx := context.Background()
	in := &catalog.Table{Path: catalog.TablePath{Table: "p"}, Columns: []catalog.Column{
		{Name: "id", Type: types.Of(types.BigInt)}, {Name: "part", Type: types.Of(types.String), Nullable: true},
		{Name: "name", Type: types.Of(types.String), Nullable: true}}}
	conf := hadoopConf(t, "upsert-parts") + `iceberg.table.primary-keys = id
iceberg.table.partition-keys = part
iceberg.table.upsert-mode-enabled = true
`
	s := mustSink(t, conf, 23, in)
	w := newWriter(t, s, 0)
	add := func(b *row.Batch, kind row.Kind, id int64, part, name string) {
		r := b.Add(kind, "p", 0)
		r.Fields = []row.Value{row.BigIntValue(id), row.StringValue(part), row.StringValue(name)}
	}
	step := func(cp int64, fill func(b *row.Batch), want map[int64]string) {
		t.Helper()
		b := row.NewBatch(16)
		fill(b)
		if err := w.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
		commit(t, s, cp, checkpoint(t, cp, w))
		got := readBack(t, loadTable(t, s), "", in)
		var gotS []string
		for _, r := range got {
			gotS = append(gotS, fmt.Sprintf("%d:%s/%s", r[0].I, r[1].S, r[2].S))
		}
		var wantS []string
		for _, id := range slices.Sorted(maps.Keys(want)) {
			wantS = append(wantS, fmt.Sprintf("%d:%s", id, want[id]))
		}
		if strings.Join(gotS, " ") != strings.Join(wantS, " ") {
			t.Fatalf("checkpoint %d: rows %v, want %v", cp, gotS, wantS)
		}
	}
	step(1, func(b *row.Batch) {
		for i := int64(1); i <= 4; i++ {
			add(b, row.Insert, i, "a", "v1")
		}
	}, map[int64]string{1: "a/v1", 2: "a/v1", 3: "a/v1", 4: "a/v1"})
	step(2, func(b *row.Batch) {
		add(b, row.UpdateBefore, 1, "a", "v1") // moves to b
		add(b, row.UpdateAfter, 1, "b", "v2")
		add(b, row.Delete, 2, "a", "v1")
		add(b, row.Insert, 3, "a", "v2")       // replaces in its own partition
		add(b, row.UpdateBefore, 4, "a", "v1") // its UPDATE_AFTER comes with the next checkpoint
	}, map[int64]string{1: "b/v2", 3: "a/v2"})
	step(3, func(b *row.Batch) {
		add(b, row.UpdateAfter, 4, "c", "v2")
		add(b, row.UpdateBefore, 1, "b", "v2") // back to a
		add(b, row.UpdateAfter, 1, "a", "v3")
	}, map[int64]string{1: "a/v3", 3: "a/v2", 4: "c/v2"})
}
