package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	ice "github.com/apache/iceberg-go"
	icecat "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/codec"
	"github.com/apache/iceberg-go/table"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/splitassign"
	"github.com/strait-dev/strait/row"
)

func init() {
	connector.RegisterSource("Iceberg", "Reads an Apache Iceberg table's snapshot once (the current one, or the one use_snapshot_id or use_snapshot_timestamp names, "+
		"or the files appended between two snapshots), a split per data file, as rows of the declared schema or of the table's columns.", NewSource)
}

// SourceConfig is the Iceberg source's options, SeaTunnel's.
type SourceConfig struct {
	CommonConfig
	Schema                 *hocon.Value `opt:"schema" doc:"the columns read, by name, and their types (SeaTunnel's schema): a projection of the table; without it every column, typed as the table's (int, long as bigint, timestamps as timestamp, fixed and binary as bytes)"`
	UseSnapshotID          *int64       `opt:"use_snapshot_id" doc:"read this snapshot instead of the current one"`
	UseSnapshotTimestamp   *int64       `opt:"use_snapshot_timestamp" doc:"read the newest snapshot at or before this time (milliseconds since the epoch)"`
	StartSnapshotID        *int64       `opt:"start_snapshot_id" doc:"read only the data files appended after this snapshot (exclusive), up to end_snapshot_id or the current snapshot"`
	StartSnapshotTimestamp *int64       `opt:"start_snapshot_timestamp" doc:"as start_snapshot_id, from the newest snapshot at or before this time (milliseconds since the epoch)"`
	EndSnapshotID          *int64       `opt:"end_snapshot_id" doc:"the last snapshot (inclusive) of an incremental read; the snapshot read without start options"`
	StreamScanStrategy     string       `opt:"stream_scan_strategy,noeffect" default:"FROM_LATEST_SNAPSHOT" enum:"TABLE_SCAN_THEN_INCREMENTAL,FROM_LATEST_SNAPSHOT,FROM_EARLIEST_SNAPSHOT,FROM_SNAPSHOT_ID,FROM_SNAPSHOT_TIMESTAMP" doc:"accepted for SeaTunnel's configs: Strait's Iceberg source reads once and ends, in either job mode"`
}

// Source reads one table.
type Source struct {
	cfg    *SourceConfig
	where  string
	table  *catalog.Table
	fields []string // the Iceberg field read for each column
}

// NewSource checks the options and reads the table's schema.
func NewSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	o := ctx.Options
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.UseSnapshotID != nil && c.UseSnapshotTimestamp != nil {
		return nil, o.Errorf("use_snapshot_timestamp", "is set with use_snapshot_id: give one")
	}
	if c.StartSnapshotID != nil && c.StartSnapshotTimestamp != nil {
		return nil, o.Errorf("start_snapshot_timestamp", "is set with start_snapshot_id: give one")
	}
	if (c.StartSnapshotID != nil || c.StartSnapshotTimestamp != nil) && (c.UseSnapshotID != nil || c.UseSnapshotTimestamp != nil) {
		return nil, o.Errorf("start_snapshot_id", "an incremental read (start_snapshot_*) reads up to end_snapshot_id, not use_snapshot_*")
	}
	s := &Source{cfg: c, where: o.Where()}
	cat, err := c.loadCatalog(ctx.Context)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	tbl, err := cat.LoadTable(ctx.Context, c.ident())
	if err != nil {
		return nil, o.Errorf("table", "load %s: %v", c.tableName(), err)
	}
	sc := tbl.Schema()
	path := catalog.TablePath{Database: c.Namespace, Table: c.Table}
	if c.Schema != nil {
		t, err := catalog.ParseSchema(o, "schema", path.String())
		if err != nil {
			return nil, err
		}
		if len(t.Columns) > 0 {
			if t.Path.Table == "" {
				t.Path = path
			}
			for _, col := range t.Columns {
				f, ok := s.find(sc, col.Name)
				if !ok {
					return nil, o.Errorf("schema", "column %s is not in table %s (case_sensitive = %t)", col.Name, c.tableName(), c.CaseSensitive)
				}
				s.fields = append(s.fields, f.Name)
			}
			s.table = t
		}
	}
	if s.table == nil {
		t := &catalog.Table{Path: path}
		for _, f := range sc.Fields() {
			typ, err := straitType(f.Type)
			if err != nil {
				return nil, o.Errorf("table", "column %s: %v", f.Name, err)
			}
			t.Columns = append(t.Columns, catalog.Column{Name: f.Name, Type: typ, Nullable: !f.Required, Comment: f.Doc})
			s.fields = append(s.fields, f.Name)
		}
		if ids := sc.IdentifierFieldIDs; len(ids) > 0 {
			pk := &catalog.PrimaryKey{Name: "pk"}
			for _, id := range ids {
				if name, ok := sc.FindColumnName(id); ok {
					pk.Columns = append(pk.Columns, name)
				}
			}
			t.PrimaryKey = pk
		}
		s.table = t
	}
	return s, nil
}

// find is the table's field of a column name, with case unless case_sensitive.
func (s *Source) find(sc *ice.Schema, name string) (ice.NestedField, bool) {
	if s.cfg.CaseSensitive {
		return sc.FindFieldByName(name)
	}
	return sc.FindFieldByNameCaseInsensitive(name)
}

func (s *Source) Boundedness() connector.Boundedness { return connector.Bounded }

func (s *Source) Tables() []*catalog.Table { return []*catalog.Table{s.table} }

// loadTable loads the table to read.
func (s *Source) loadTable(ctx context.Context) (*table.Table, error) {
	cat, err := s.cfg.loadCatalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	tbl, err := cat.LoadTable(ctx, s.cfg.ident())
	if err != nil {
		err = fmt.Errorf("%s: table %s: load: %w", s.where, s.cfg.tableName(), err)
		if errors.Is(err, icecat.ErrNoSuchTable) {
			err = connector.Permanent(err)
		}
		return nil, err
	}
	return tbl, nil
}

// scan is the scan whose tasks the readers read: the snapshot, the columns.
func (s *Source) scan(tbl *table.Table, snapshot int64) *table.Scan {
	return tbl.Scan(table.WithSnapshotID(snapshot), table.WithSelectedFields(s.fields...), table.WithCaseSensitive(true))
}

// ---- splits ----

// splitData is a split's encoding: a file scan task (a data file with its deletes) in
// iceberg-go's encoding for its spec and the table's schema, the snapshot it is read at,
// and how many of its rows were emitted before the last checkpoint.
type splitData struct {
	Snapshot int64  `json:"snapshot"`
	SpecID   int    `json:"spec_id"`
	SchemaID int    `json:"schema_id"`
	Version  int    `json:"format_version"`
	Task     []byte `json:"task"`
	Path     string `json:"path"`
	Emitted  int64  `json:"emitted,omitempty"`
}

// enumState is the enumerator's snapshot: the table snapshot read (a restored job reads
// the same one) and the splits handed out.
type enumState struct {
	Snapshot int64    `json:"snapshot"`
	Assigned []string `json:"assigned"`
}

// CreateEnumerator plans the snapshot's data files, one split each, handed to the readers
// in turn.
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	st, err := splitassign.RestoreAs[enumState](state)
	if err != nil {
		return nil, fmt.Errorf("%s: enumerator state: %w", s.where, err)
	}
	return &enumerator{Static: splitassign.New(ctx, st.Assigned), src: s, snapshot: st.Snapshot}, nil
}

type enumerator struct {
	*splitassign.Static
	src      *Source
	snapshot int64 // 0 until planned
}

// Run resolves the snapshot and plans its files.
func (e *enumerator) Run(ctx context.Context) error {
	s := e.src
	c := s.cfg
	tbl, err := s.loadTable(ctx)
	if err != nil {
		return err
	}
	snapAt := func(opt string, ts int64) (*table.Snapshot, error) {
		snap := tbl.SnapshotAsOf(ts, true)
		if snap == nil {
			return nil, connector.Permanent(fmt.Errorf("%s: %s %d: table %s has no snapshot at or before it", s.where, opt, ts, c.tableName()))
		}
		return snap, nil
	}
	if e.snapshot == 0 {
		var snap *table.Snapshot
		switch {
		case c.UseSnapshotID != nil:
			snap = tbl.SnapshotByID(*c.UseSnapshotID)
			if snap == nil {
				return connector.Permanent(fmt.Errorf("%s: use_snapshot_id %d: table %s has no such snapshot", s.where, *c.UseSnapshotID, c.tableName()))
			}
		case c.UseSnapshotTimestamp != nil:
			if snap, err = snapAt("use_snapshot_timestamp", *c.UseSnapshotTimestamp); err != nil {
				return err
			}
		case c.EndSnapshotID != nil:
			snap = tbl.SnapshotByID(*c.EndSnapshotID)
			if snap == nil {
				return connector.Permanent(fmt.Errorf("%s: end_snapshot_id %d: table %s has no such snapshot", s.where, *c.EndSnapshotID, c.tableName()))
			}
		default:
			snap = tbl.CurrentSnapshot()
		}
		if snap == nil {
			slog.Info("Iceberg source: the table has no snapshot: nothing to read", "plugin", s.where, "table", c.tableName())
			e.Start(nil)
			return nil
		}
		e.snapshot = snap.SnapshotID
	}
	var tasks []table.FileScanTask
	var from *table.Snapshot
	switch {
	case c.StartSnapshotID != nil:
		if from = tbl.SnapshotByID(*c.StartSnapshotID); from == nil {
			return connector.Permanent(fmt.Errorf("%s: start_snapshot_id %d: table %s has no such snapshot", s.where, *c.StartSnapshotID, c.tableName()))
		}
	case c.StartSnapshotTimestamp != nil:
		if from, err = snapAt("start_snapshot_timestamp", *c.StartSnapshotTimestamp); err != nil {
			return err
		}
	}
	if from != nil {
		tasks, err = tbl.NewIncrementalAppendScan(table.WithSelectedFields(s.fields...), table.WithCaseSensitive(true)).
			FromSnapshotExclusive(from.SnapshotID).ToSnapshot(e.snapshot).PlanFiles(ctx)
	} else {
		tasks, err = s.scan(tbl, e.snapshot).PlanFiles(ctx)
	}
	if err != nil {
		return fmt.Errorf("%s: table %s: plan the files of snapshot %d: %w", s.where, c.tableName(), e.snapshot, err)
	}
	meta := tbl.Metadata()
	sc := tbl.Schema()
	splits := make([]connector.Split, 0, len(tasks))
	for _, t := range tasks {
		spec := meta.PartitionSpecByID(int(t.File.SpecID()))
		if spec == nil {
			return fmt.Errorf("%s: data file %s: partition spec %d is not the table's", s.where, t.File.FilePath(), t.File.SpecID())
		}
		b, err := codec.EncodeFileScanTask(t, *spec, sc, meta.Version())
		if err != nil {
			return fmt.Errorf("%s: data file %s: %w", s.where, t.File.FilePath(), err)
		}
		d := splitData{Snapshot: e.snapshot, SpecID: spec.ID(), SchemaID: sc.ID, Version: meta.Version(), Task: b, Path: t.File.FilePath()}
		raw, _ := json.Marshal(d)
		splits = append(splits, connector.Split{ID: fmt.Sprintf("%s@%d", t.File.FilePath(), t.Start), Data: raw})
	}
	slog.Info("Iceberg source: planned", "plugin", s.where, "table", c.tableName(), "snapshot", e.snapshot, "files", len(splits))
	e.Start(splits)
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) {
	return json.Marshal(enumState{Snapshot: e.snapshot, Assigned: e.Assigned()})
}

// ---- the reader ----

// CreateReader makes the reader of one subtask.
func (s *Source) CreateReader(connector.ReaderContext) (connector.Reader, error) {
	return &reader{src: s}, nil
}

// split is a split being read.
type split struct {
	connector.Split
	data splitData
}

// reader reads its splits one after the other, a record batch at a time.
type reader struct {
	src    *Source
	tbl    *table.Table
	queue  []*split
	noMore bool

	cur  *split
	next func() (arrow.RecordBatch, error, bool)
	stop func()
	rec  arrow.RecordBatch
	cols []int // per column, its index in rec
	at   int   // the next row of rec
	pos  int64 // rows of the current split passed: emitted, or skipped as emitted before
}

func (r *reader) Open(context.Context) error { return nil }

func (r *reader) AddSplits(splits []connector.Split) {
	for _, sp := range splits {
		x := &split{Split: sp}
		if err := json.Unmarshal(sp.Data, &x.data); err != nil {
			// kept, so PollNext fails naming it
			x.data.Path = ""
		}
		r.queue = append(r.queue, x)
	}
}

func (r *reader) NoMoreSplits() { r.noMore = true }

// start opens the next split's rows.
func (r *reader) start(ctx context.Context) error {
	s := r.src
	x := r.queue[0]
	r.queue = r.queue[1:]
	if x.data.Path == "" || len(x.data.Task) == 0 {
		return connector.Permanent(fmt.Errorf("%s: split %s: bad split data", s.where, x.ID))
	}
	if r.tbl == nil {
		tbl, err := s.loadTable(ctx)
		if err != nil {
			return err
		}
		r.tbl = tbl
	}
	meta := r.tbl.Metadata()
	spec := meta.PartitionSpecByID(x.data.SpecID)
	var sc *ice.Schema
	for _, x2 := range meta.Schemas() {
		if x2.ID == x.data.SchemaID {
			sc = x2
		}
	}
	if spec == nil || sc == nil {
		return connector.Permanent(fmt.Errorf("%s: data file %s: the table no longer has partition spec %d or schema %d", s.where, x.data.Path, x.data.SpecID, x.data.SchemaID))
	}
	task, err := codec.DecodeFileScanTask(x.data.Task, *spec, sc, x.data.Version)
	if err != nil {
		return connector.Permanent(fmt.Errorf("%s: data file %s: %w", s.where, x.data.Path, err))
	}
	_, recs, err := s.scan(r.tbl, x.data.Snapshot).ReadTasks(ctx, []table.FileScanTask{task})
	if err != nil {
		return fmt.Errorf("%s: data file %s: %w", s.where, x.data.Path, err)
	}
	r.next, r.stop = iter.Pull2(recs)
	r.cur, r.pos = x, 0
	return nil
}

// finish closes the current split.
func (r *reader) finish() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.stop != nil {
		r.stop()
	}
	r.cur, r.next, r.stop = nil, nil, nil
}

func (r *reader) PollNext(ctx context.Context, out *row.Batch) (bool, error) {
	s := r.src
	id := s.table.ID()
	width := len(s.table.Columns)
	for out.Len() < out.Cap() {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if r.cur == nil {
			if len(r.queue) == 0 {
				return r.noMore, nil
			}
			if err := r.start(ctx); err != nil {
				return false, err
			}
		}
		if r.rec == nil || r.at >= int(r.rec.NumRows()) {
			if r.rec != nil {
				r.rec.Release()
				r.rec = nil
			}
			rec, err, ok := r.next()
			if !ok {
				r.finish()
				continue
			}
			if err != nil {
				path := r.cur.data.Path
				r.finish()
				return false, fmt.Errorf("%s: data file %s: %w", s.where, path, err)
			}
			if err := r.match(rec); err != nil {
				rec.Release()
				r.finish()
				return false, err
			}
			r.rec, r.at = rec, 0
		}
		// rows emitted before the checkpoint this split was restored from
		if r.pos < r.cur.data.Emitted {
			n := min(r.rec.NumRows()-int64(r.at), r.cur.data.Emitted-r.pos)
			r.at += int(n)
			r.pos += n
			continue
		}
		rw := out.Add(row.Insert, id, width)
		for j, col := range s.table.Columns {
			v, err := valueOf(r.rec.Column(r.cols[j]), r.at, col.Type)
			if err != nil {
				return false, connector.Permanent(fmt.Errorf("%s: data file %s: column %s: %w", s.where, r.cur.data.Path, col.Name, err))
			}
			rw.Fields[j] = v
		}
		r.at++
		r.pos++
	}
	return false, nil
}

// match finds the columns in a record batch.
func (r *reader) match(rec arrow.RecordBatch) error {
	s := r.src
	sc := rec.Schema()
	r.cols = make([]int, len(s.fields))
	for j, f := range s.fields {
		idx := sc.FieldIndices(f)
		if len(idx) == 0 {
			for k := 0; k < sc.NumFields(); k++ {
				if strings.EqualFold(sc.Field(k).Name, f) {
					idx = []int{k}
					break
				}
			}
		}
		if len(idx) == 0 {
			return connector.Permanent(fmt.Errorf("%s: data file %s holds no column %s", s.where, r.cur.data.Path, f))
		}
		r.cols[j] = idx[0]
	}
	return nil
}

// SnapshotState returns the splits not finished, each with the rows it emitted.
func (r *reader) SnapshotState(int64) ([]connector.Split, error) {
	var out []connector.Split
	if r.cur != nil {
		d := r.cur.data
		d.Emitted = max(r.pos, d.Emitted)
		raw, _ := json.Marshal(d)
		out = append(out, connector.Split{ID: r.cur.ID, Data: raw})
	}
	for _, x := range r.queue {
		out = append(out, x.Split)
	}
	return out, nil
}

func (r *reader) Close() error {
	r.finish()
	return nil
}
