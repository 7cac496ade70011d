package sql

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The test table has a column of every type; testRow is its one row.
var testSchema = func() *types.RowType {
	inner := &types.RowType{Names: []string{"x", "y"}, Types: []types.DataType{types.Of(types.Int), types.Of(types.String)}}
	nested := &types.RowType{Names: []string{"inner", "z", "m"}, Types: []types.DataType{types.RowOf(inner), types.Of(types.Double), types.MapOf(types.Of(types.String), types.Of(types.String))}}
	cols := []struct {
		name string
		t    types.DataType
	}{
		{"i", types.Of(types.Int)}, {"b", types.Of(types.BigInt)}, {"ti", types.Of(types.TinyInt)},
		{"si", types.Of(types.SmallInt)}, {"f", types.Of(types.Float)}, {"d", types.Of(types.Double)},
		{"dec", types.DecimalOf(10, 2)}, {"s", types.Of(types.String)}, {"e", types.Of(types.String)},
		{"ns", types.Of(types.String)}, {"ni", types.Of(types.Int)}, {"bo", types.Of(types.Boolean)},
		{"byt", types.Of(types.Bytes)}, {"dt", types.Of(types.Date)}, {"tm", types.Of(types.Time)},
		{"ts", types.Of(types.Timestamp)}, {"m", types.MapOf(types.Of(types.String), types.Of(types.Int))},
		{"arr", types.ArrayOf(types.Of(types.Int))}, {"r", types.RowOf(nested)}, {"neg", types.Of(types.Int)},
		{"nd", types.Of(types.Double)}, {"ndec", types.DecimalOf(10, 2)}, {"nts", types.Of(types.Timestamp)},
		{"Mixed", types.Of(types.String)}, {"zero", types.Of(types.Int)}, {"fz", types.Of(types.Double)},
		{"u", types.Of(types.String)},
	}
	rt := &types.RowType{}
	for _, c := range cols {
		rt.Names = append(rt.Names, c.name)
		rt.Types = append(rt.Types, c.t)
	}
	return rt
}()

func testRow() []row.Value {
	m := row.MapOfValues(&row.MapValue{Keys: []row.Value{S("a"), S("b")}, Vals: []row.Value{I(1), I(2)}})
	innerMap := row.MapOfValues(&row.MapValue{Keys: []row.Value{S("k")}, Vals: []row.Value{S("v")}})
	nested := row.RowValue([]row.Value{row.RowValue([]row.Value{I(5), S("why")}), D(0.25), innerMap})
	return []row.Value{
		I(7), L(10000000000), row.TinyIntValue(3), row.SmallIntValue(-4), row.FloatValue(1.5), D(2.5),
		Dec("12.34", 2), S("Hello World"), S(""), N, N, B(true), row.BytesValue([]byte("abc")),
		Date("2021-04-08"), Tm("13:34:45.235"), TS("2021-04-08T13:34:45.235"), m,
		row.ArrayValue([]row.Value{I(1), I(2)}), nested, I(-3), N, N, N, S("mixed"), I(0), D(0),
		S("Ünïcödé ß"),
	}
}

// value constructors for the tables
var N = row.Value{}

func I(n int32) row.Value   { return row.IntValue(n) }
func L(n int64) row.Value   { return row.BigIntValue(n) }
func D(f float64) row.Value { return row.DoubleValue(f) }
func F(f float32) row.Value { return row.FloatValue(f) }
func S(s string) row.Value  { return row.StringValue(s) }
func B(b bool) row.Value    { return row.BoolValue(b) }
func By(s string) row.Value { return row.BytesValue([]byte(s)) }
func TI(n int8) row.Value   { return row.TinyIntValue(n) }
func SI(n int16) row.Value  { return row.SmallIntValue(n) }
func Dec(s string, scale int) row.Value {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	v, err := row.DecimalFromRat(r, 0, scale)
	if err != nil {
		panic(err)
	}
	return v
}

func Date(s string) row.Value {
	d, err := parseISODate(s)
	if err != nil {
		panic(err)
	}
	return row.DateValue(d)
}

func Tm(s string) row.Value {
	t, err := parseISOTime(s)
	if err != nil {
		panic(err)
	}
	return row.TimeValue(t)
}

func TS(s string) row.Value {
	t, err := parseISOTimestamp(s)
	if err != nil {
		panic(err)
	}
	return row.TimestampValue(t)
}

// eval compiles `SELECT expr FROM t` and evaluates it on testRow.
func eval(t *testing.T, expr string) (row.Value, types.DataType, error) {
	t.Helper()
	p, err := Compile("select "+expr+" from t", testSchema, "t")
	if err != nil {
		return row.Value{}, types.DataType{}, err
	}
	out := make([]row.Value, len(p.Output().Names))
	fields := testRow()
	keep, err := p.Eval(fields, out)
	if err != nil {
		return row.Value{}, p.Output().Types[0], err
	}
	if !keep {
		t.Fatalf("%s: row dropped", expr)
	}
	return out[0], p.Output().Types[0], nil
}

// same compares values exactly: same type tag and content (floats by bits, except that any
// NaN equals NaN).
func same(a, b row.Value) bool {
	if a.T != b.T {
		return false
	}
	if a.T == types.Double || a.T == types.Float {
		fa, _ := a.AsFloat64()
		fb, _ := b.AsFloat64()
		if math.IsNaN(fa) && math.IsNaN(fb) {
			return true
		}
	}
	if a.T == types.Decimal {
		return a.I == b.I && a.Unscaled().Cmp(b.Unscaled()) == 0
	}
	return row.Equal(a, b)
}

// show prints a value with its type for failure messages.
func show(v row.Value) string {
	if v.T == types.Decimal {
		return v.T.String() + "(scale " + strconv.FormatInt(v.I, 10) + ") " + string(appendText(nil, v))
	}
	return v.T.String() + " " + string(appendText(nil, v))
}

type exprCase struct {
	expr string
	typ  string // the output type as types.DataType prints it
	want row.Value
}

func runExprCases(t *testing.T, cases []exprCase) {
	t.Helper()
	restore := SetLocalZone(time.UTC)
	defer restore()
	for _, c := range cases {
		got, typ, err := eval(t, c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if typ.String() != c.typ {
			t.Errorf("%s: type %s, want %s", c.expr, typ, c.typ)
		}
		if !same(got, c.want) {
			t.Errorf("%s = %s, want %s", c.expr, show(got), show(c.want))
		}
	}
}

type errCase struct {
	query string // a whole query; FROM t
	want  string // a substring of the error
}

func runErrCases(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		_, err := Compile(c.query, testSchema, "t")
		if err == nil {
			t.Errorf("%s: no error, want %q", c.query, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want %q", c.query, err, c.want)
		}
	}
}

// runtimeErr evaluates expr and returns the error the row gets.
func runtimeErr(t *testing.T, expr string) error {
	t.Helper()
	_, _, err := eval(t, expr)
	return err
}

type rowValue = row.Value

func errorsAs(err error, target **Error) bool { return errors.As(err, target) }
