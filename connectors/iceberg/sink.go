package iceberg

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	icecat "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/codec"
	"github.com/apache/iceberg-go/table"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/multitable"
	"github.com/strait-dev/strait/row"
)

func init() {
	multitable.RegisterSink("Iceberg", "Writes rows to an Apache Iceberg table (a Hadoop catalog on a local folder or S3, or a REST catalog) "+
		"as Parquet data files, committed exactly once per checkpoint in one snapshot; creates the table from the input's columns.", NewSink)
}

// SinkConfig is the Iceberg sink's options, SeaTunnel's.
type SinkConfig struct {
	CommonConfig
	WriteProps      map[string]string `opt:"iceberg.table.write-props" doc:"writer settings, over the table's properties: write.format.default (parquet, the only format written), write.target-file-size-bytes (a data file is closed once it reaches this size), write.parquet.compression-codec, write.parquet.row-group-limit and the other write.parquet.* properties iceberg-go reads"`
	AutoCreateProps map[string]string `opt:"iceberg.table.auto-create-props" doc:"the properties of a table the sink creates (format-version, write.format.default, ...)"`
	PrimaryKeys     string            `opt:"iceberg.table.primary-keys" doc:"comma-separated columns that identify a row: the identifier fields of a table the sink creates (required columns); without it the input's primary key"`
	PartitionKeys   string            `opt:"iceberg.table.partition-keys" doc:"comma-separated partition fields of a table the sink creates: a column (identity), or year(c), month(c), day(c), hour(c), bucket(c, n), truncate(c, n)"`
	UpsertMode      bool              `opt:"iceberg.table.upsert-mode-enabled" default:"false" doc:"write change rows by the primary key (the table's identifier fields, else iceberg.table.primary-keys, else the input's): an INSERT or UPDATE_AFTER replaces the key's row, a DELETE deletes it (equality deletes); without it the sink appends INSERT rows and refuses the others"`
	SchemaEvolution bool              `opt:"iceberg.table.schema-evolution-enabled" default:"false" doc:"before the job first writes, add the input's columns that the table lacks (and widen int to long, float to double) instead of failing; while the job runs, follow the schema changes a change source passes on (columns added, dropped, renamed, widened)"`
	CommitBranch    string            `opt:"iceberg.table.commit-branch" doc:"the branch snapshots are committed to instead of main; a missing branch is created at main's current snapshot"`
	SchemaSaveMode  string            `opt:"schema_save_mode" default:"CREATE_SCHEMA_WHEN_NOT_EXIST" enum:"RECREATE_SCHEMA,CREATE_SCHEMA_WHEN_NOT_EXIST,ERROR_WHEN_SCHEMA_NOT_EXIST,IGNORE" doc:"before the job's first run: RECREATE_SCHEMA drops the table (with its files) and creates it from the input's columns, CREATE_SCHEMA_WHEN_NOT_EXIST creates it when missing (and its namespace), ERROR_WHEN_SCHEMA_NOT_EXIST fails when it is missing, IGNORE does nothing"`
	DataSaveMode    string            `opt:"data_save_mode" default:"APPEND_DATA" enum:"DROP_DATA,APPEND_DATA,ERROR_WHEN_DATA_EXISTS" doc:"before the job's first run: DROP_DATA deletes the table's rows (a snapshot that removes every data file), APPEND_DATA keeps them, ERROR_WHEN_DATA_EXISTS fails when the table holds rows"`
}

// The snapshot summary properties a commit records: the job, the checkpoint and the
// writers' transactions it committed. A commit tried again finds them and does nothing.
const (
	propJobID        = "strait.job-id"
	propCheckpointID = "strait.checkpoint-id"
	propTransactions = "strait.transactions"
)

// flushRows is how many rows a writer buffers before it writes them as data files; a
// checkpoint writes what is buffered.
const flushRows = 64 * 1024

// Sink writes one table's rows to an Iceberg table.
type Sink struct {
	cfg        *SinkConfig
	where      string
	job        connector.Job
	input      *catalog.Table
	primary    []string
	partitions []partitionKey
	targetSize int64
}

// NewSink checks the options of one table's sink.
func NewSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	o := ctx.Options
	if len(ctx.Inputs) != 1 {
		return nil, o.Errorf("", "receives %d tables; it writes one per sink", len(ctx.Inputs))
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	in := ctx.Inputs[0]
	s := &Sink{cfg: c, where: o.Where(), job: ctx.Job, input: in}
	for _, k := range splitTopLevel(c.PrimaryKeys) {
		if in.ColumnIndex(k) < 0 {
			return nil, o.Errorf("iceberg.table.primary-keys", "%q is not a column of the input (%s)", k, columnNames(in))
		}
		s.primary = append(s.primary, k)
	}
	for _, k := range splitTopLevel(c.PartitionKeys) {
		pk, err := parsePartitionKey(k)
		if err != nil {
			return nil, o.Errorf("iceberg.table.partition-keys", "%v", err)
		}
		if in.ColumnIndex(pk.column) < 0 {
			return nil, o.Errorf("iceberg.table.partition-keys", "%q is not a column of the input (%s)", pk.column, columnNames(in))
		}
		s.partitions = append(s.partitions, pk)
	}
	for k, v := range c.WriteProps {
		switch k {
		case table.WriteFormatDefaultKey:
			if !strings.EqualFold(v, "parquet") {
				return nil, o.Errorf("iceberg.table.write-props", "write.format.default %q: Strait writes parquet data files only", v)
			}
		case table.WriteTargetFileSizeBytesKey:
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				return nil, o.Errorf("iceberg.table.write-props", "write.target-file-size-bytes %q: want a positive number of bytes", v)
			}
			s.targetSize = n
		}
	}
	if f, ok := c.AutoCreateProps[table.WriteFormatDefaultKey]; ok && !strings.EqualFold(f, "parquet") {
		return nil, o.Errorf("iceberg.table.auto-create-props", "write.format.default %q: Strait writes parquet data files only", f)
	}
	if c.CommitBranch != "" && strings.TrimSpace(c.CommitBranch) == "" {
		return nil, o.Errorf("iceberg.table.commit-branch", "must not be blank")
	}
	for _, col := range in.Columns {
		if _, err := icebergType(col.Type, new(int)); err != nil {
			return nil, o.Errorf("", "column %s: %v", col.Name, err)
		}
	}
	if c.UpsertMode {
		if v, ok := c.AutoCreateProps[table.PropertyFormatVersion]; ok && v == "1" {
			return nil, o.Errorf("iceberg.table.upsert-mode-enabled", "needs a table of format version 2 or later (iceberg.table.auto-create-props has format-version 1)")
		}
	}
	return s, nil
}

// splitTopLevel splits a comma-separated list at the commas outside parentheses
// (bucket(id, 16) is one item), trimming each.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '(':
				depth++
				continue
			case ')':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		if p := strings.TrimSpace(s[start:i]); p != "" {
			out = append(out, p)
		}
		start = i + 1
	}
	return out
}

// partitionKey is one field of iceberg.table.partition-keys.
type partitionKey struct {
	column    string
	transform string // identity, year, month, day, hour, bucket, truncate
	n         int
}

var transformCall = regexp.MustCompile(`^(\w+)\s*\((.+)\)$`)

func parsePartitionKey(s string) (partitionKey, error) {
	m := transformCall.FindStringSubmatch(s)
	if m == nil {
		return partitionKey{column: s, transform: "identity"}, nil
	}
	args := strings.Split(m[2], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	name := strings.ToLower(m[1])
	switch name {
	case "year", "years", "month", "months", "day", "days", "hour", "hours":
		if len(args) != 1 {
			return partitionKey{}, fmt.Errorf("%s: %s takes one column", s, name)
		}
		return partitionKey{column: args[0], transform: strings.TrimSuffix(name, "s")}, nil
	case "bucket", "truncate":
		if len(args) != 2 {
			return partitionKey{}, fmt.Errorf("%s: %s takes a column and a number", s, name)
		}
		col, num := args[0], args[1]
		n, err := strconv.Atoi(col)
		if err == nil { // bucket(16, id), as Iceberg's SQL writes it
			col = num
		} else if n, err = strconv.Atoi(num); err != nil {
			return partitionKey{}, fmt.Errorf("%s: %s takes a column and a number", s, name)
		}
		if n <= 0 {
			return partitionKey{}, fmt.Errorf("%s: the number must be positive", s)
		}
		return partitionKey{column: col, transform: name, n: n}, nil
	}
	return partitionKey{}, fmt.Errorf("%s: unknown transform %s (year, month, day, hour, bucket, truncate)", s, m[1])
}

func (k partitionKey) icebergTransform() (ice.Transform, string) {
	switch k.transform {
	case "year":
		return ice.YearTransform{}, k.column + "_year"
	case "month":
		return ice.MonthTransform{}, k.column + "_month"
	case "day":
		return ice.DayTransform{}, k.column + "_day"
	case "hour":
		return ice.HourTransform{}, k.column + "_hour"
	case "bucket":
		return ice.BucketTransform{NumBuckets: k.n}, k.column + "_bucket"
	case "truncate":
		return ice.TruncateTransform{Width: k.n}, k.column + "_trunc"
	}
	return ice.IdentityTransform{}, k.column
}

// partitionSpec is the spec of a table the sink creates.
func (s *Sink) partitionSpec(sc *ice.Schema) (ice.PartitionSpec, error) {
	if len(s.partitions) == 0 {
		return *ice.UnpartitionedSpec, nil
	}
	var opts []ice.PartitionOption
	for _, k := range s.partitions {
		tr, name := k.icebergTransform()
		opts = append(opts, ice.AddPartitionFieldByName(k.column, name, tr, sc, nil))
	}
	spec, err := ice.NewPartitionSpecOpts(opts...)
	if err != nil {
		return ice.PartitionSpec{}, fmt.Errorf("option iceberg.table.partition-keys: %w", err)
	}
	return spec, nil
}

func (s *Sink) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: table %s: %s", s.where, s.cfg.tableName(), fmt.Sprintf(format, args...))
}

// branch is the branch commits go to.
func (s *Sink) branch() string {
	if s.cfg.CommitBranch != "" {
		return s.cfg.CommitBranch
	}
	return table.MainBranch
}

// loadTable loads the target table.
func (s *Sink) loadTable(ctx context.Context) (icecat.Catalog, *table.Table, error) {
	cat, err := s.cfg.loadCatalog(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.where, err)
	}
	tbl, err := cat.LoadTable(ctx, s.cfg.ident())
	if err != nil {
		if errors.Is(err, icecat.ErrNoSuchTable) {
			return cat, nil, connector.Permanent(s.errorf("the table does not exist (schema_save_mode %s): %v", s.cfg.SchemaSaveMode, err))
		}
		return cat, nil, s.errorf("load: %v", err)
	}
	return cat, tbl, nil
}

// ---- save modes ----

// Setup applies the save modes once, before the job first writes: schema_save_mode
// RECREATE_SCHEMA drops the table with its files and creates it from the input's columns,
// CREATE_SCHEMA_WHEN_NOT_EXIST creates it (and its namespace) when missing,
// ERROR_WHEN_SCHEMA_NOT_EXIST fails when it is missing; then data_save_mode DROP_DATA
// commits a snapshot without the table's data files, ERROR_WHEN_DATA_EXISTS fails when the
// table holds rows. With schema evolution the table gets the input's missing columns.
func (s *Sink) Setup(ctx context.Context) error {
	if err := s.setup(ctx); err != nil {
		return fmt.Errorf("%s: table %s: %w", s.where, s.cfg.tableName(), err)
	}
	return nil
}

func (s *Sink) setup(ctx context.Context) error {
	c := s.cfg
	cat, err := c.loadCatalog(ctx)
	if err != nil {
		return err
	}
	id := c.ident()
	exists, err := cat.CheckTableExists(ctx, id)
	if err != nil {
		return fmt.Errorf("check whether it exists: %w", err)
	}
	switch c.SchemaSaveMode {
	case "RECREATE_SCHEMA":
		if exists {
			slog.Info("Iceberg sink: dropping the table before the job, as schema_save_mode RECREATE_SCHEMA says", "plugin", s.where, "table", c.tableName())
			if p, ok := cat.(icecat.PurgeableTable); ok {
				err = p.PurgeTable(ctx, id)
			} else {
				err = cat.DropTable(ctx, id)
			}
			if err != nil && !errors.Is(err, icecat.ErrNoSuchTable) {
				return fmt.Errorf("schema_save_mode RECREATE_SCHEMA: drop: %w", err)
			}
		}
		if err := s.create(ctx, cat); err != nil {
			return err
		}
	case "CREATE_SCHEMA_WHEN_NOT_EXIST":
		if !exists {
			if err := s.create(ctx, cat); err != nil {
				return err
			}
		}
	case "ERROR_WHEN_SCHEMA_NOT_EXIST":
		if !exists {
			return connector.Permanent(errors.New("the table does not exist (schema_save_mode ERROR_WHEN_SCHEMA_NOT_EXIST)"))
		}
	case "IGNORE":
		if !exists {
			return nil
		}
	}
	tbl, err := cat.LoadTable(ctx, id)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if c.SchemaEvolution {
		if tbl, err = s.evolve(ctx, tbl); err != nil {
			return err
		}
	}
	switch c.DataSaveMode {
	case "DROP_DATA":
		if snap := s.head(tbl); snap != nil {
			slog.Info("Iceberg sink: deleting the table's rows before the job, as data_save_mode DROP_DATA says", "plugin", s.where, "table", c.tableName(), "branch", s.branch())
			tx := tbl.NewTransactionOnBranch(s.branch())
			if err := tx.Delete(ctx, ice.AlwaysTrue{}, nil); err != nil {
				return fmt.Errorf("data_save_mode DROP_DATA: %w", err)
			}
			if _, err := tx.Commit(ctx); err != nil {
				return fmt.Errorf("data_save_mode DROP_DATA: commit: %w", err)
			}
		}
	case "ERROR_WHEN_DATA_EXISTS":
		if n := rowCount(s.head(tbl)); n > 0 {
			return connector.Permanent(fmt.Errorf("the table holds %d rows (data_save_mode ERROR_WHEN_DATA_EXISTS)", n))
		}
	}
	return nil
}

// head is the snapshot at the head of the sink's branch (main when the branch is new).
func (s *Sink) head(tbl *table.Table) *table.Snapshot {
	if snap := tbl.SnapshotByName(s.branch()); snap != nil {
		return snap
	}
	return tbl.CurrentSnapshot()
}

// rowCount is a snapshot's total-records, 0 for none.
func rowCount(snap *table.Snapshot) int64 {
	if snap == nil || snap.Summary == nil {
		return 0
	}
	n, _ := strconv.ParseInt(snap.Summary.Properties["total-records"], 10, 64)
	return n
}

// create creates the table (and its namespace) from the input's columns.
func (s *Sink) create(ctx context.Context, cat icecat.Catalog) error {
	c := s.cfg
	sc, err := icebergSchema(s.input, s.primary)
	if err != nil {
		return err
	}
	spec, err := s.partitionSpec(sc)
	if err != nil {
		return err
	}
	ns := icecat.NamespaceFromIdent(c.ident())
	if ok, err := cat.CheckNamespaceExists(ctx, ns); err != nil {
		return fmt.Errorf("check namespace %s: %w", c.Namespace, err)
	} else if !ok {
		if err := cat.CreateNamespace(ctx, ns, nil); err != nil && !errors.Is(err, icecat.ErrNamespaceAlreadyExists) {
			return fmt.Errorf("create namespace %s: %w", c.Namespace, err)
		}
	}
	props := ice.Properties{}
	for k, v := range c.AutoCreateProps {
		props[k] = v
	}
	opts := []icecat.CreateTableOpt{icecat.WithPartitionSpec(&spec)}
	if len(props) > 0 {
		opts = append(opts, icecat.WithProperties(props))
	}
	if _, err := cat.CreateTable(ctx, c.ident(), sc, opts...); err != nil {
		if errors.Is(err, icecat.ErrTableAlreadyExists) {
			return nil // a setup repeated after its own failure
		}
		return fmt.Errorf("create: %w", err)
	}
	slog.Info("Iceberg sink: table created", "plugin", s.where, "table", c.tableName(), "columns", len(sc.Fields()), "partitioned by", c.PartitionKeys)
	return nil
}

// evolve adds the input's columns the table lacks, widening types where Iceberg allows.
func (s *Sink) evolve(ctx context.Context, tbl *table.Table) (*table.Table, error) {
	sc, err := icebergSchema(s.input, nil)
	if err != nil {
		return nil, err
	}
	tx := tbl.NewTransaction()
	if err := tx.UpdateSchema(s.cfg.CaseSensitive, false).UnionByNameWith(sc).Commit(); err != nil {
		return nil, fmt.Errorf("iceberg.table.schema-evolution-enabled: %w", err)
	}
	out, err := tx.Commit(ctx)
	if err != nil {
		return nil, fmt.Errorf("iceberg.table.schema-evolution-enabled: commit the schema: %w", err)
	}
	return out, nil
}

// ---- the writer ----

// CreateWriter makes the writer of one subtask. A restored writer starts empty: what it
// prepared before is in the checkpoints' commit infos, and rows after them are read again;
// its state keeps only the input's columns after the schema changes it followed.
func (s *Sink) CreateWriter(ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	in, err := s.restoredInput(states)
	if err != nil {
		return nil, err
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	return &writer{s: s, input: in, evolved: in != s.input, id: fmt.Sprintf("%d-e%d-%s", ctx.Index, ctx.Epoch, hex.EncodeToString(rnd[:]))}, nil
}

// CreateCommitter makes the committer, which adds the prepared files to the table.
func (s *Sink) CreateCommitter() (connector.Committer, error) { return &committer{s: s}, nil }

// writer turns a subtask's rows into Parquet data files in the table's data folder. It
// buffers rows in Arrow builders and writes them every flushRows rows and at each
// checkpoint; the files written since the last checkpoint are its commit info.
type writer struct {
	s  *Sink
	id string // the subtask, the attempt and a random part: names its transactions
	// input is the input table's columns as the rows have them: the plan's, or as they
	// are after the schema changes the writer followed (evolved)
	input   *catalog.Table
	evolved bool

	tbl     *table.Table // the target, with the write properties over its own
	schema  *arrow.Schema
	fields  []ice.NestedField
	cols    []int // per table field, the input column, -1 for none
	rb      *array.RecordBuilder
	rows    int
	pending []ice.DataFile

	// upsert mode: the key's fields, the partition source fields outside the key, and each
	// key's last change since the last checkpoint
	keys    []int // table fields
	keyIDs  []int
	parts   []int // table fields
	delSc   *arrow.Schema
	delPos  []int // per field of delSc: its index in key, or len(keys)+its index in parts
	changes map[string]*change
	order   []string
}

// change is a key's last change in a checkpoint: its row, or a delete.
type change struct {
	fields []row.Value // input columns; nil for a delete
	key    []row.Value // the key's values, in the order of keys
	// where the table is partitioned by fields outside the key, the partitions the key is
	// deleted from: those fields' values in each row that deleted or replaced it (the old
	// image of an UPDATE_BEFORE or DELETE, the new row of an INSERT or UPDATE_AFTER),
	// distinct
	olds  [][]row.Value
	oldKs []string
}

// open loads the table and matches the input's columns to its fields by name.
func (w *writer) open(ctx context.Context) error {
	s := w.s
	_, tbl, err := s.loadTable(ctx)
	if err != nil {
		return err
	}
	if len(s.cfg.WriteProps) > 0 {
		b, err := table.MetadataBuilderFromBase(tbl.Metadata(), tbl.MetadataLocation())
		if err == nil {
			err = b.SetProperties(s.cfg.WriteProps)
		}
		var meta table.Metadata
		if err == nil {
			meta, err = b.Build()
		}
		if err != nil {
			return connector.Permanent(s.errorf("option iceberg.table.write-props: %v", err))
		}
		base := tbl
		tbl = table.New(base.Identifier(), meta, base.MetadataLocation(), base.FS, nil)
	}
	sc := tbl.Schema()
	w.fields = sc.Fields()
	w.cols = make([]int, len(w.fields))
	used := make([]bool, len(w.input.Columns))
	for i, f := range w.fields {
		w.cols[i] = -1
		for j, c := range w.input.Columns {
			if c.Name == f.Name || !s.cfg.CaseSensitive && strings.EqualFold(c.Name, f.Name) {
				w.cols[i], used[j] = j, true
				break
			}
		}
		if w.cols[i] < 0 && f.Required {
			return connector.Permanent(s.errorf("required column %s is not in the input (%s)", f.Name, columnNames(w.input)))
		}
	}
	for j, u := range used {
		if !u {
			return connector.Permanent(s.errorf("the table has no column %s (case_sensitive = %t); with iceberg.table.schema-evolution-enabled the sink adds it before the job", w.input.Columns[j].Name, s.cfg.CaseSensitive))
		}
	}
	w.schema, err = table.SchemaToArrowSchema(sc, nil, true, false)
	if err != nil {
		return connector.Permanent(s.errorf("the table's schema in Arrow: %v", err))
	}
	w.tbl = tbl
	if s.cfg.UpsertMode {
		if err := w.openUpsert(sc); err != nil {
			w.tbl = nil
			return err
		}
	}
	w.rb = array.NewRecordBuilder(memory.DefaultAllocator, w.schema)
	slog.Debug("Iceberg sink: writer open", "plugin", s.where, "table", s.cfg.tableName(), "writer", w.id, "location", tbl.Location())
	return nil
}

func (w *writer) Write(ctx context.Context, b *row.Batch) error {
	if w.rb == nil {
		if err := w.open(ctx); err != nil {
			return err
		}
	}
	s := w.s
	if s.cfg.UpsertMode {
		return w.upsert(b)
	}
	for r := range b.Rows {
		rw := &b.Rows[r]
		if rw.Kind != row.Insert {
			return connector.Permanent(s.errorf("a %s row: without iceberg.table.upsert-mode-enabled the sink appends INSERT rows only", rw.Kind))
		}
		if err := w.appendRow(rw.Fields); err != nil {
			return err
		}
		if w.rows >= flushRows {
			if err := w.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendRow buffers a row of input columns in the table's fields.
func (w *writer) appendRow(fields []row.Value) error {
	s := w.s
	for i, f := range w.fields {
		fb := w.rb.Field(i)
		j := w.cols[i]
		if j < 0 {
			fb.AppendNull()
			continue
		}
		v := fields[j]
		if v.IsNull() && f.Required {
			w.reset()
			return connector.Permanent(s.errorf("column %s is required and the row's value is null", f.Name))
		}
		if err := appendValue(fb, v, f.Type, w.input.Columns[j].Type); err != nil {
			// the builders hold part of this row: drop what is buffered and fail
			w.reset()
			return connector.Permanent(s.errorf("column %s: %v", f.Name, err))
		}
	}
	w.rows++
	return nil
}

// reset drops the buffered rows.
func (w *writer) reset() {
	if w.rb != nil {
		w.rb.Release()
		w.rb = array.NewRecordBuilder(memory.DefaultAllocator, w.schema)
	}
	w.rows = 0
}

// flush writes the buffered rows as data files.
func (w *writer) flush(ctx context.Context) error {
	if w.rows == 0 {
		return nil
	}
	rec := w.rb.NewRecordBatch()
	n := w.rows
	w.rows = 0
	var opts []table.WriteRecordOption
	if w.s.targetSize > 0 {
		opts = append(opts, table.WithTargetFileSize(w.s.targetSize))
	}
	records := func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	written := 0
	for df, err := range table.WriteRecords(ctx, w.tbl, w.schema, records, opts...) {
		if err != nil {
			return w.s.errorf("write %d rows as data files: %v", n, err)
		}
		w.pending = append(w.pending, df)
		written++
	}
	slog.Debug("Iceberg sink: data files written", "plugin", w.s.where, "table", w.s.cfg.tableName(), "writer", w.id, "rows", n, "files", written)
	return nil
}

// commitInfo is a writer's prepared transaction: its data files in Iceberg's manifest
// entry encoding for the table's schema and partition spec, and their paths (what an abort
// deletes).
type commitInfo struct {
	Transaction   string   `json:"transaction"`
	SchemaID      int      `json:"schema_id"`
	SpecID        int      `json:"spec_id"`
	FormatVersion int      `json:"format_version"`
	Files         [][]byte `json:"files"`
	Paths         []string `json:"paths"`
	// Deletes are equality delete files (upsert mode), in the same encoding.
	Deletes     [][]byte `json:"deletes,omitempty"`
	DeletePaths []string `json:"delete_paths,omitempty"`
}

// PrepareCommit writes what is buffered and returns the data files written since the last
// checkpoint.
func (w *writer) PrepareCommit(ctx context.Context, checkpointID int64) ([]byte, error) {
	if w.rb == nil {
		return nil, nil
	}
	var deletes []ice.DataFile
	if w.s.cfg.UpsertMode {
		var err error
		if deletes, err = w.prepareUpsert(ctx); err != nil {
			return nil, err
		}
	}
	if err := w.flush(ctx); err != nil {
		return nil, err
	}
	if len(w.pending) == 0 && len(deletes) == 0 {
		return nil, nil
	}
	meta := w.tbl.Metadata()
	info := commitInfo{
		Transaction:   fmt.Sprintf("%s-c%d", w.id, checkpointID),
		SchemaID:      meta.CurrentSchema().ID,
		SpecID:        meta.DefaultPartitionSpec(),
		FormatVersion: meta.Version(),
	}
	for _, df := range w.pending {
		b, err := codec.EncodeDataFile(df, meta.PartitionSpec(), meta.CurrentSchema(), meta.Version())
		if err != nil {
			return nil, w.s.errorf("data file %s: %v", df.FilePath(), err)
		}
		info.Files = append(info.Files, b)
		info.Paths = append(info.Paths, df.FilePath())
	}
	for _, df := range deletes {
		b, err := codec.EncodeDataFile(df, meta.PartitionSpec(), meta.CurrentSchema(), meta.Version())
		if err != nil {
			return nil, w.s.errorf("delete file %s: %v", df.FilePath(), err)
		}
		info.Deletes = append(info.Deletes, b)
		info.DeletePaths = append(info.DeletePaths, df.FilePath())
	}
	out, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	slog.Debug("Iceberg sink: prepared", "plugin", w.s.where, "table", w.s.cfg.tableName(), "transaction", info.Transaction, "files", len(info.Files))
	w.pending = nil
	return out, nil
}

// SnapshotState keeps the input's columns once a schema change altered them (nil before):
// prepared files travel in the commit infos, and rows not prepared are read again after a
// restore.
func (w *writer) SnapshotState(int64) ([]byte, error) {
	if !w.evolved {
		return nil, nil
	}
	return json.Marshal(writerState{Input: w.input})
}

func (w *writer) Close(context.Context) error {
	if w.rb != nil {
		w.rb.Release()
		w.rb = nil
	}
	if len(w.pending) > 0 {
		slog.Debug("Iceberg sink: writer closed with data files no checkpoint prepared; they stay unreferenced", "plugin", w.s.where, "files", len(w.pending))
	}
	return nil
}
