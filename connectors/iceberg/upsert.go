package iceberg

import (
	"context"
	"log/slog"
	"slices"
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
//
// An equality delete of a partitioned table applies in its own partition only. Where the
// table is partitioned by fields outside the key, a key's old row may lie in another
// partition than its new one: a delete then goes to the partition of each row image that
// removes the key's row, the old image an UPDATE_BEFORE or DELETE carries (change sources
// send them) and the new row of an INSERT or UPDATE_AFTER. A row that moves partition in
// a stream without UPDATE_BEFORE rows keeps its old row, as in SeaTunnel and Flink.

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
	if len(names) == 0 && w.input.PrimaryKey != nil {
		names = w.input.PrimaryKey.Columns
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
	// the partition source fields outside the key go into the deletes too, so that each
	// lands in the partition of the row it removes
	delNames := append([]string(nil), keyNames...)
	spec := w.tbl.Spec()
	for _, pf := range spec.Fields() {
		if slices.Contains(w.keyIDs, pf.SourceID()) {
			continue
		}
		k := slices.IndexFunc(w.fields, func(f ice.NestedField) bool { return f.ID == pf.SourceID() })
		if k < 0 || w.cols[k] < 0 {
			return connector.Permanent(s.errorf("upsert mode: the partition field %s's source column is not in both the table and the input", pf.Name))
		}
		if !slices.Contains(w.parts, k) {
			w.parts = append(w.parts, k)
			delNames = append(delNames, w.fields[k].Name)
		}
	}
	if len(w.parts) > 0 {
		slog.Warn("Iceberg upsert into a table partitioned by columns outside the key: a row that moves partition is deleted from its old one by its UPDATE_BEFORE or DELETE row",
			"where", s.where, "key", strings.Join(keyNames, ", "), "partition", strings.Join(delNames[len(keyNames):], ", "))
	}
	del, err := sc.Select(true, delNames...)
	if err != nil {
		return connector.Permanent(s.errorf("upsert key: %v", err))
	}
	if w.delSc, err = table.SchemaToArrowSchema(del, nil, true, false); err != nil {
		return connector.Permanent(s.errorf("upsert key in Arrow: %v", err))
	}
	// the delete schema's fields are in the table's order
	w.delPos = make([]int, w.delSc.NumFields())
	for j, f := range w.delSc.Fields() {
		w.delPos[j] = -1
		for i, k := range w.keys {
			if w.fields[k].Name == f.Name {
				w.delPos[j] = i
			}
		}
		for i, k := range w.parts {
			if w.fields[k].Name == f.Name {
				w.delPos[j] = len(w.keys) + i
			}
		}
	}
	w.changes = map[string]*change{}
	return nil
}

// upsert keeps each row's change by its key.
func (w *writer) upsert(b *row.Batch) error {
	s := w.s
	var kb, pb []byte
	for r := range b.Rows {
		rw := &b.Rows[r]
		if rw.Kind == row.UpdateBefore && len(w.parts) == 0 {
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
			kb = row.AppendJSONAs(kb, v, w.input.Columns[w.cols[k]].Type)
			kb = append(kb, 0)
		}
		ks := string(kb)
		prev, seen := w.changes[ks]
		if !seen {
			w.order = append(w.order, ks)
		}
		c := &change{key: key}
		if prev != nil {
			c.olds, c.oldKs = prev.olds, prev.oldKs
		}
		// an UPDATE_BEFORE removes the old row as a DELETE does (its partition kept above);
		// its UPDATE_AFTER, in this checkpoint or the next, writes the new one
		if rw.Kind == row.Insert || rw.Kind == row.UpdateAfter {
			c.fields = cloneFields(rw.Fields)
		}
		if len(w.parts) > 0 {
			pb = pb[:0]
			part := make([]row.Value, len(w.parts))
			for i, k := range w.parts {
				v := rw.Fields[w.cols[k]]
				part[i] = v.Clone()
				pb = row.AppendJSONAs(pb, v, w.input.Columns[w.cols[k]].Type)
				pb = append(pb, 0)
			}
			if !slices.Contains(c.oldKs, string(pb)) {
				c.olds, c.oldKs = append(c.olds, part), append(c.oldKs, string(pb))
			}
		}
		w.changes[ks] = c
	}
	return nil
}

func cloneFields(fields []row.Value) []row.Value {
	out := make([]row.Value, len(fields))
	for i, v := range fields {
		out[i] = v.Clone()
	}
	return out
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
	// one delete of the key, or one per partition it is deleted from
	appendDelete := func(c *change, part []row.Value) error {
		for j, p := range w.delPos {
			k, v := 0, row.Value{}
			if p < len(w.keys) {
				k, v = w.keys[p], c.key[p]
			} else {
				k, v = w.parts[p-len(w.keys)], part[p-len(w.keys)]
			}
			if err := appendValue(db.Field(j), v, w.fields[k].Type, w.input.Columns[w.cols[k]].Type); err != nil {
				return connector.Permanent(s.errorf("key column %s: %v", w.fields[k].Name, err))
			}
		}
		return nil
	}
	for _, ks := range w.order {
		c := w.changes[ks]
		if len(w.parts) == 0 {
			if err := appendDelete(c, nil); err != nil {
				return nil, err
			}
		}
		for _, part := range c.olds {
			if err := appendDelete(c, part); err != nil {
				return nil, err
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
