package file

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// fmtGenOptions says what a format keeps, so random schemas and rows stay within it.
type fmtGenOptions struct {
	excel    bool          // cells: no nested rows in rows, no composite map keys
	tsUnit   time.Duration // timestamps are kept to this unit
	timeUnit time.Duration // times of day are kept to this unit
}

type fmtGen struct {
	r   *rand.Rand
	opt fmtGenOptions
}

var fmtScalars = []types.DataType{
	types.Of(types.String), types.Of(types.Boolean), types.Of(types.TinyInt), types.Of(types.SmallInt),
	types.Of(types.Int), types.Of(types.BigInt), types.Of(types.Float), types.Of(types.Double),
	types.Of(types.Bytes), types.Of(types.Date), types.Of(types.Time), types.Of(types.Timestamp),
}

func (g *fmtGen) dataType(depth int) types.DataType {
	n := g.r.IntN(20)
	switch {
	case n < 12:
		return fmtScalars[n]
	case n < 15:
		p := 1 + g.r.IntN(38)
		return types.DecimalOf(p, g.r.IntN(p+1))
	case n < 17 && depth < 2:
		return types.ArrayOf(g.elemType(depth + 1))
	case n < 18 && depth < 2:
		return types.MapOf(fmtScalars[g.r.IntN(6)], g.elemType(depth+1))
	case n < 20 && depth < 2 && !(g.opt.excel && depth > 0):
		rt := &types.RowType{}
		for i, k := 0, 1+g.r.IntN(4); i < k; i++ {
			rt.Names = append(rt.Names, fmt.Sprintf("f%d", i))
			t := g.dataType(depth + 1)
			if g.opt.excel {
				t = fmtScalars[g.r.IntN(len(fmtScalars))]
			}
			rt.Types = append(rt.Types, t)
		}
		return types.RowOf(rt)
	}
	return fmtScalars[g.r.IntN(len(fmtScalars))]
}

// elemType is the type of array elements and map values.
func (g *fmtGen) elemType(depth int) types.DataType {
	if g.opt.excel {
		// cells hold arrays and maps as JSON, which keeps numbers, strings and booleans
		return []types.DataType{types.Of(types.String), types.Of(types.Int), types.Of(types.BigInt), types.Of(types.Boolean), types.Of(types.Double)}[g.r.IntN(5)]
	}
	return g.dataType(depth)
}

func (g *fmtGen) table(cols int) *catalog.Table {
	t := &catalog.Table{Path: catalog.TablePath{Database: "db", Table: "t"}}
	for i := 0; i < cols; i++ {
		t.Columns = append(t.Columns, catalog.Column{Name: fmt.Sprintf("c%d", i), Type: g.dataType(0), Nullable: true})
	}
	return t
}

func (g *fmtGen) text() string {
	const alphabet = "abcXYZ019 _-é€😀\"\\"
	runes := []rune(alphabet)
	var b strings.Builder
	for i, n := 0, 1+g.r.IntN(12); i < n; i++ {
		b.WriteRune(runes[g.r.IntN(len(runes))])
	}
	return b.String()
}

func (g *fmtGen) value(t types.DataType, nullable bool) row.Value {
	if nullable && g.r.IntN(8) == 0 {
		return row.NullValue()
	}
	switch t.Kind {
	case types.String:
		return row.StringValue(g.text())
	case types.Bytes:
		if g.opt.excel {
			return row.BytesValue([]byte(g.text()))
		}
		b := make([]byte, g.r.IntN(10))
		for i := range b {
			b[i] = byte(g.r.UintN(256))
		}
		return row.BytesValue(b)
	case types.Boolean:
		return row.BoolValue(g.r.IntN(2) == 1)
	case types.TinyInt:
		return row.TinyIntValue(int8(g.r.Uint32()))
	case types.SmallInt:
		return row.SmallIntValue(int16(g.r.Uint32()))
	case types.Int:
		return row.IntValue(int32(g.r.Uint32()))
	case types.BigInt:
		if g.opt.excel {
			// a number cell is a double: whole numbers up to 2^53 are exact
			return row.BigIntValue(g.r.Int64N(1<<53) - 1<<52)
		}
		return row.BigIntValue(int64(g.r.Uint64()))
	case types.Float:
		return row.FloatValue(float32(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(20)-10))))
	case types.Double:
		return row.DoubleValue(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(200)-100)))
	case types.Decimal:
		digits := g.r.IntN(t.Precision) + 1
		n := new(big.Int)
		for i := 0; i < digits; i++ {
			n.Mul(n, big.NewInt(10))
			n.Add(n, big.NewInt(int64(g.r.IntN(10))))
		}
		if g.r.IntN(2) == 0 {
			n.Neg(n)
		}
		return row.DecimalValue(n, t.Scale)
	case types.Date:
		return row.DateValue(int64(g.r.IntN(60000)))
	case types.Time:
		return row.TimeValue(g.r.Int64N(civil.NanosPerDay) / int64(g.opt.timeUnit) * int64(g.opt.timeUnit))
	case types.Timestamp:
		return row.TimestampValue(g.r.Int64N(4e18) / int64(g.opt.tsUnit) * int64(g.opt.tsUnit))
	case types.Array:
		elems := make([]row.Value, g.r.IntN(4))
		for i := range elems {
			elems[i] = g.value(*t.Elem, !g.opt.excel || t.Elem.Kind != types.Boolean)
		}
		return row.ArrayValue(elems)
	case types.Map:
		m := &row.MapValue{}
		seen := map[string]bool{}
		for i, n := 0, g.r.IntN(4); i < n; i++ {
			k := g.value(*t.Key, false)
			if seen[k.String()] {
				continue
			}
			seen[k.String()] = true
			m.Keys = append(m.Keys, k)
			m.Vals = append(m.Vals, g.value(*t.Elem, true))
		}
		return row.MapOfValues(m)
	case types.Row:
		fields := make([]row.Value, len(t.Row.Types))
		for i := range fields {
			fields[i] = g.value(t.Row.Types[i], true)
		}
		return row.RowValue(fields)
	}
	return row.NullValue()
}

// TestParquetRoundTripRandom writes random schemas and rows as parquet and reads them back
// with the schema taken from the file: every value comes back equal.
func TestParquetRoundTripRandom(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		g := &fmtGen{r: rand.New(rand.NewPCG(seed, 7)), opt: fmtGenOptions{tsUnit: time.Millisecond, timeUnit: time.Microsecond}}
		tbl := g.table(1 + g.r.IntN(8))
		roundTripRandom(t, g, tbl, "file_format_type = parquet\ncompress_codec = snappy", "file_format_type = parquet", seed)
	}
}

// TestExcelRoundTripRandom does the same for excel, with the declared schema.
func TestExcelRoundTripRandom(t *testing.T) {
	for seed := uint64(1); seed <= 25; seed++ {
		g := &fmtGen{r: rand.New(rand.NewPCG(seed, 11)), opt: fmtGenOptions{excel: true, tsUnit: time.Millisecond, timeUnit: time.Millisecond}}
		tbl := g.table(1 + g.r.IntN(6))
		roundTripRandom(t, g, tbl, "file_format_type = excel\nfield_delimiter = \";\"", "file_format_type = excel\nfield_delimiter = \";\"\nskip_header_row_number = 1\n"+schemaOf(tbl), seed)
	}
}

func roundTripRandom(t *testing.T, g *fmtGen, tbl *catalog.Table, sinkOpts, srcOpts string, seed uint64) {
	t.Helper()
	n := 1 + g.r.IntN(60)
	rows := make([][]row.Value, n)
	for i := range rows {
		rows[i] = make([]row.Value, len(tbl.Columns))
		for j, c := range tbl.Columns {
			rows[i][j] = g.value(c.Type, true)
			if g.opt.excel {
				rows[i][j] = excelKeeps(rows[i][j], c.Type)
			}
		}
	}
	dir := t.TempDir()
	s, err := newTestSink(t, sinkConf(dir, sinkOpts), tbl)
	if err != nil {
		t.Fatalf("seed %d, schema %s: %v", seed, schemaOf(tbl), err)
	}
	writeAll(t, s, batchOf(tbl, rows...))
	src := mustSource(t, srcConf(filepath.Join(dir, "out"), srcOpts))
	got := readRows(t, src, 1)
	if len(got) != n {
		t.Fatalf("seed %d: %d rows, want %d", seed, len(got), n)
	}
	for i, r := range got {
		for j, c := range tbl.Columns {
			if !row.Equal(r.Fields[j], rows[i][j]) {
				t.Fatalf("seed %d, schema %s, row %d, column %s %s: got %v, want %v", seed, schemaOf(tbl), i, c.Name, c.Type, r.Fields[j], rows[i][j])
			}
		}
	}
}

// excelKeeps is what an excel cell gives back: a double cell keeps 15 significant digits,
// as Excel does; a nested row's strings must not hold the delimiter it is joined with.
func excelKeeps(v row.Value, t types.DataType) row.Value {
	switch {
	case v.T == types.Double:
		f, _ := strconv.ParseFloat(strconv.FormatFloat(v.Float64(), 'g', 15, 64), 64)
		return row.DoubleValue(f)
	case v.T == types.Row && len(v.Fields()) == 1 && v.Fields()[0].T == types.Null:
		return row.NullValue() // its text is empty: an empty cell
	case v.T == types.Row:
		fields := v.Fields()
		for i := range fields {
			if fields[i].T == types.Timestamp || fields[i].T == types.Time {
				// written in datetime_format and time_format: whole seconds
				fields[i].I = civil.FloorDiv(fields[i].I, int64(time.Second)) * int64(time.Second)
			}
			if fields[i].T == types.String || fields[i].T == types.Bytes {
				// the row's text is split at ";", which its strings must not hold
				fields[i].S = strings.ReplaceAll(fields[i].S, ";", ",")
			}
		}
	}
	return v
}
