// Package sql is the Sql transform: SeaTunnel's SQL dialect for reshaping and filtering rows,
// one `SELECT ... FROM <input> [WHERE ...]` per transform.
//
// The query is parsed and type-checked when the transform is built, so a bad column,
// function or type is a configuration error with its place in the query. Expressions compile
// once into a tree of typed closures over row.Value, with batch loops for the common shapes;
// a batch is filtered in place, a projection no wider than the input is written into the
// rows' own fields, a wider one into a new pooled batch. docs/sql.md describes the dialect,
// the functions, the typing rules and the choices made.
package sql

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/transform/internal/xform"
)

// Name is the plugin name.
const Name = "Sql"

func init() {
	xform.Register(Name, "Reshapes and filters rows with one SELECT ... FROM ... WHERE query in SeaTunnel's SQL dialect.", New)
}

// Config is the Sql transform's options.
type Config struct {
	Query  string `opt:"query,required" doc:"the query: SELECT expressions FROM the input table, optionally WHERE a condition (docs/sql.md)"`
	Engine string `opt:"engine" default:"zeta" enum:"zeta" doc:"SeaTunnel's SQL engine; Strait implements zeta"`
}

// Transform is a configured Sql transform.
type Transform struct {
	xform.Base
	where  string
	progs  []*Program
	router *xform.Router
	widths []int
}

// New builds the transform: it compiles the query against every input table.
func New(o *config.Options, inputs []*catalog.Table, c *Config) (*Transform, error) {
	query := c.Query
	if strings.TrimSpace(query) == "" {
		return nil, o.Errorf("query", "the query is empty")
	}
	sel, perr := Parse(query)
	if perr != nil {
		return nil, o.Errorf("query", "%v", perr)
	}
	var names []string
	for _, key := range []string{"plugin_input", "source_table_name"} {
		if l, err := o.StringList(key); err == nil && len(l) > 0 {
			names = append(names, l...)
		}
	}
	t := &Transform{where: o.Where(), router: xform.NewRouter(inputs)}
	for _, in := range inputs {
		quals := append(append([]string{}, names...), in.Path.Table, in.ID())
		if !matchesAny(sel.From, quals) {
			// SeaTunnel reads its input whatever FROM says; so does Strait, with a warning
			slog.Warn("Sql transform: the table in FROM is not the input table; reading the input",
				"transform", o.Where(), "from", sel.From, "input", in.ID())
		}
		prog, cerr := compileSelect(query, sel, in.RowType(), quals)
		if cerr != nil {
			return nil, o.Errorf("query", "%v", cerr)
		}
		t.progs = append(t.progs, prog)
		t.widths = append(t.widths, len(in.Columns))
		t.Tables = append(t.Tables, outputTable(in, prog))
	}
	return t, nil
}

func matchesAny(s string, names []string) bool {
	for _, n := range names {
		if strings.EqualFold(s, n) {
			return true
		}
	}
	return false
}

// outputTable derives the output table: the input's path, the query's columns (a column
// copied unchanged keeps the input column's length, scale, nullability, default and
// comment), the primary key and constraint keys whose columns all survive.
func outputTable(in *catalog.Table, p *Program) *catalog.Table {
	out := in.Copy()
	rt := p.Output()
	out.Columns = make([]catalog.Column, rt.Len())
	for i, name := range rt.Names {
		col := catalog.Column{Name: name, Type: rt.Types[i], Nullable: true}
		if src := p.SourceColumn(i); src >= 0 {
			col = in.Columns[src]
			col.Name, col.Type = name, rt.Types[i]
		}
		out.Columns[i] = col
	}
	out.KeepPresentKeys()
	return out
}

// Process filters and projects a batch. SELECT * with a WHERE clause filters the batch in
// place; a projection no wider than the input rewrites the rows in their own fields (the
// batch is returned); a wider one builds a new pooled batch and releases the input.
func (t *Transform) Process(_ context.Context, in *row.Batch) (out *row.Batch, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%s: internal error evaluating the query: %v", t.where, r)
		}
	}()
	if len(in.Rows) == 0 {
		return in, nil
	}
	inPlace := true
	for _, p := range t.progs {
		p.fr.now = time.Time{}
		p.fr.err = nil
		inPlace = inPlace && p.inPlace
	}
	if len(t.progs) == 1 {
		if p := t.progs[0]; p.identity || p.inPlace && len(p.late) == 0 {
			return t.batchInPlace(p, in)
		}
	}
	if inPlace {
		return t.projectInPlace(in)
	}
	return t.project(in)
}

// batchInPlace runs a single-table query over the batch at once: the WHERE clause narrows a
// selection of rows, then each output column is computed for the selected rows into their
// own fields (no item overwrites a column a later one reads), and the kept rows move up.
func (t *Transform) batchInPlace(p *Program, in *row.Batch) (*row.Batch, error) {
	if p.identity && p.wsel == nil {
		return in, nil
	}
	rows := in.Rows
	width := t.widths[0]
	fr := &p.fr
	if cap(fr.sel) < tileRows {
		fr.sel = make([]int32, tileRows)
	}
	// The batch goes through in tiles small enough to stay in the first-level cache while
	// the WHERE clause and every output column pass over them, and the tile's kept rows move
	// up to follow the rows kept before them.
	w := len(p.items)
	kept := 0
	for lo := 0; lo < len(rows); lo += tileRows {
		hi := min(lo+tileRows, len(rows))
		ts := fr.sel[:hi-lo]
		for k := range ts {
			if len(rows[lo+k].Fields) != width {
				return nil, xform.WidthError(t.where, &rows[lo+k], width)
			}
			ts[k] = int32(lo + k)
		}
		if p.wsel != nil {
			ts = p.wsel(fr, rows, ts)
			if fr.err != nil {
				return nil, t.whereError(p)
			}
		}
		if !p.identity && len(ts) > 0 {
			if err := t.projectTile(p, rows, ts); err != nil {
				return nil, err
			}
		}
		for _, i := range ts {
			if w != width {
				rows[i].Fields = rows[i].Fields[:w]
			}
			if int(i) != kept {
				rows[kept] = rows[i]
			}
			kept++
		}
	}
	if kept < len(rows) {
		clear(rows[kept:])
		in.Rows = rows[:kept]
	}
	return in, nil
}

// tileRows is how many rows batchInPlace handles at a time: 128 rows of a few fields stay in
// the first-level cache from the WHERE clause through the last output column and the move
// of the kept rows.
const tileRows = 128

// projectTile computes the output columns of the rows at sel into their own fields.
func (t *Transform) projectTile(p *Program, rows []row.Row, sel []int32) error {
	fr := &p.fr
	for j := range p.items {
		it := &p.items[j]
		switch {
		case it.skip:
		case it.col >= 0:
			col := it.col
			for _, i := range sel {
				f := rows[i].Fields
				f[j] = f[col]
			}
		case it.kern != nil:
			it.kern(fr, rows, sel, j)
		default:
			ev := it.eval
			for _, i := range sel {
				f := rows[i].Fields
				fr.fields = f
				f[j] = ev(fr)
				if fr.err != nil {
					return t.itemError(p, j)
				}
			}
		}
		if fr.err != nil {
			return t.itemError(p, j)
		}
	}
	return nil
}

// projectInPlace rewrites each kept row in its own fields and drops the others.
func (t *Transform) projectInPlace(in *row.Batch) (*row.Batch, error) {
	rows := in.Rows
	n := 0
	for i := range rows {
		r := &rows[i]
		p, keep, err := t.route(r)
		if !keep {
			if err != nil {
				return nil, err
			}
			continue
		}
		fields, fr := r.Fields, &p.fr
		items := p.items
		for j := range items {
			it := &items[j]
			if it.skip {
				continue
			}
			var v row.Value
			if it.col >= 0 {
				v = fields[it.col]
			} else {
				v = it.eval(fr)
				if fr.err != nil {
					return nil, t.itemError(p, j)
				}
			}
			if it.direct {
				fields[j] = v
			} else {
				p.scratch[j] = v
			}
		}
		for _, j := range p.late {
			fields[j] = p.scratch[j]
		}
		r.Fields = fields[:len(items)]
		if n != i {
			rows[n] = rows[i]
		}
		n++
	}
	clear(rows[n:])
	in.Rows = rows[:n]
	return in, nil
}

// project evaluates every kept row into a new batch.
func (t *Transform) project(in *row.Batch) (*row.Batch, error) {
	out := row.NewBatch(max(in.Cap(), len(in.Rows)))
	moves := false
	for _, q := range t.progs {
		moves = moves || q.moves
	}
	for i := range in.Rows {
		r := &in.Rows[i]
		p, keep, err := t.route(r)
		if !keep {
			if err != nil {
				out.Release()
				return nil, err
			}
			continue
		}
		dst := out.Add(r.Kind, r.Table, len(p.items)).Fields
		if j := p.evalItems(dst); j >= 0 {
			out.Release()
			return nil, t.itemError(p, j)
		}
		if moves {
			for j := range dst {
				if isComposite(dst[j].T) {
					dst[j] = xform.Move(dst[j])
				}
			}
		}
	}
	in.Release()
	return out, nil
}

// route returns the program of row r, with the frame set to the row, and whether the row
// passes the WHERE clause. A row of an unknown table or of the wrong width, or a WHERE
// clause that fails, does not pass and returns the error.
func (t *Transform) route(r *row.Row) (*Program, bool, error) {
	k, ok := t.router.Row(r)
	if !ok {
		return nil, false, t.router.RowError(t.where, r)
	}
	p := t.progs[k]
	fr := &p.fr
	fr.fields = r.Fields
	if p.where == nil {
		return p, true, nil
	}
	keep := p.where(fr)
	if fr.err != nil {
		return nil, false, t.whereError(p)
	}
	return p, keep, nil
}

func (t *Transform) whereError(p *Program) error {
	err := p.fr.err
	p.fr.err = nil
	return fmt.Errorf("%s: %w", t.where, &RowError{Expr: "WHERE " + clip(p.sel.Where.String()), Err: err})
}

func (t *Transform) itemError(p *Program, j int) error {
	err := p.fr.err
	p.fr.err = nil
	return fmt.Errorf("%s: %w", t.where, &RowError{Expr: clip(p.items[j].text), Err: err})
}
