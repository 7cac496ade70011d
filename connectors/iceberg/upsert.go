package iceberg

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
)

// Upsert mode, as SeaTunnel's delta writer does it: an INSERT or UPDATE_AFTER row deletes
// its key and writes the row, a DELETE deletes its key, an UPDATE_BEFORE is passed over
// (its UPDATE_AFTER does the work). A writer keeps each key's last change of a checkpoint
// and writes them at the checkpoint: an equality delete file of every key changed and a
// data file of the rows that stand. In one snapshot the equality deletes apply to the rows
// of earlier snapshots only, so a key's row written in this checkpoint is never deleted by
// its own delete, and a key changed twice keeps its last change.

// openUpsert finds the key's fields: the table's identifier fields, else the sink's
// primary keys, else the input's.
func (w *writer) openUpsert(sc *ice.Schema) error {
	s := w.s
	var names []string
	for _, id := range sc.IdentifierFieldIDs {
		if n, ok := sc.FindColumnName(id); ok {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		names = s.primary
	}
	if len(names) == 0 && s.input.PrimaryKey != nil {
		names = s.input.PrimaryKey.Columns
	}
	if len(names) == 0 {
		return connector.Permanent(s.errorf("iceberg.table.upsert-mode-enabled needs a key: the table has no identifier fields, and neither iceberg.table.primary-keys nor the input names one"))
	}
	var keyNames []string
	for _, n := range names {
		k := -1
		for i, f := range w.fields {
			if f.Name == n || !s.cfg.CaseSensitive && strings.EqualFold(f.Name, n) {
				k = i
				break
			}
		}
		if k < 0 || w.cols[k] < 0 {
			return connector.Permanent(s.errorf("upsert key column %s is not in both the table and the input", n))
		}
		w.keys = append(w.keys, k)
		w.keyIDs = append(w.keyIDs, w.fields[k].ID)
		keyNames = append(keyNames, w.fields[k].Name)
	}
	spec := w.tbl.Spec()
	for _, pf := range spec.Fields() {
		inKey := false
		for _, id := range w.keyIDs {
			inKey = inKey || id == pf.SourceID()
		}
		if !inKey {
			return connector.Permanent(s.errorf("upsert mode: the table is partitioned by %s, which is not a key column (%s): a key's old row may lie in another partition than its delete",
				pf.Name, strings.Join(keyNames, ", ")))
		}
	}
	del, err := sc.Select(true, keyNames...)
	if err != nil {
		return connector.Permanent(s.errorf("upsert key: %v", err))
	}
	if w.delSc, err = table.SchemaToArrowSchema(del, nil, true, false); err != nil {
		return connector.Permanent(s.errorf("upsert key in Arrow: %v", err))
	}
	w.changes = map[string]*change{}
	return nil
}

// upsert keeps each row's change by its key.
func (w *writer) upsert(b *row.Batch) error {
	s := w.s
	var kb []byte
	for r := range b.Rows {
		rw := &b.Rows[r]
		if rw.Kind == row.UpdateBefore {
			continue
		}
		kb = kb[:0]
		key := make([]row.Value, len(w.keys))
		for i, k := range w.keys {
			v := rw.Fields[w.cols[k]]
			if v.IsNull() {
				return connector.Permanent(s.errorf("a %s row's key column %s is null", rw.Kind, w.fields[k].Name))
			}
			key[i] = v.Clone()
			kb = row.AppendJSONAs(kb, v, s.input.Columns[w.cols[k]].Type)
			kb = append(kb, 0)
		}
		c := &change{key: key}
		if rw.Kind != row.Delete {
			c.fields = make([]row.Value, len(rw.Fields))
			for i, v := range rw.Fields {
				c.fields[i] = v.Clone()
			}
		}
		ks := string(kb)
		if _, ok := w.changes[ks]; !ok {
			w.order = append(w.order, ks)
		}
		w.changes[ks] = c
	}
	return nil
}

// prepareUpsert buffers the rows that stand and writes the equality deletes of every key
// changed since the last checkpoint.
func (w *writer) prepareUpsert(ctx context.Context) ([]ice.DataFile, error) {
	s := w.s
	if len(w.order) == 0 {
		return nil, nil
	}
	db := array.NewRecordBuilder(memory.DefaultAllocator, w.delSc)
	defer db.Release()
	// the delete schema's fields are the key's, in the table's order
	pos := make([]int, w.delSc.NumFields())
	for j, f := range w.delSc.Fields() {
		pos[j] = -1
		for i, k := range w.keys {
			if w.fields[k].Name == f.Name {
				pos[j] = i
			}
		}
	}
	for _, ks := range w.order {
		c := w.changes[ks]
		for j := range pos {
			k := w.keys[pos[j]]
			if err := appendValue(db.Field(j), c.key[pos[j]], w.fields[k].Type, s.input.Columns[w.cols[k]].Type); err != nil {
				return nil, connector.Permanent(s.errorf("key column %s: %v", w.fields[k].Name, err))
			}
		}
		if c.fields != nil {
			if err := w.appendRow(c.fields); err != nil {
				return nil, err
			}
		}
	}
	n := len(w.order)
	w.changes, w.order = map[string]*change{}, nil
	rec := db.NewRecordBatch()
	records := func(yield func(arrow.RecordBatch, error) bool) { yield(rec, nil) }
	deletes, err := w.tbl.NewTransaction().WriteEqualityDeletes(ctx, w.keyIDs, records)
	rec.Release()
	if err != nil {
		return nil, s.errorf("write the equality deletes of %d keys: %v", n, err)
	}
	return deletes, nil
}
