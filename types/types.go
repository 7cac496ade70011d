// Package types is Strait's type system: the SeaTunnel data types as they are written in job
// configs (`int`, `"decimal(30, 8)"`, `"map<string, {a = int}>"`) and as they travel with a plan.
package types

import (
	"fmt"
	"math"
	"strings"
)

// Kind names one SeaTunnel SQL type.
type Kind uint8

// The kinds. Null is both the type of the `"null"` column and the tag of a null value.
const (
	Null Kind = iota
	String
	Boolean
	TinyInt
	SmallInt
	Int
	BigInt
	Float
	Double
	Decimal
	Bytes
	Date
	Time
	Timestamp
	Array
	Map
	Row
)

var kindNames = [...]string{
	Null: "null", String: "string", Boolean: "boolean", TinyInt: "tinyint", SmallInt: "smallint",
	Int: "int", BigInt: "bigint", Float: "float", Double: "double", Decimal: "decimal",
	Bytes: "bytes", Date: "date", Time: "time", Timestamp: "timestamp", Array: "array",
	Map: "map", Row: "row",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// IsNumeric reports whether values of the kind are numbers.
func (k Kind) IsNumeric() bool { return k >= TinyInt && k <= Decimal }

// IsInteger reports whether the kind is one of the integer kinds.
func (k Kind) IsInteger() bool { return k >= TinyInt && k <= BigInt }

// IntRange is the smallest and the largest value of an integer kind (of bigint for any
// other kind).
func (k Kind) IntRange() (min, max int64) {
	switch k {
	case TinyInt:
		return math.MinInt8, math.MaxInt8
	case SmallInt:
		return math.MinInt16, math.MaxInt16
	case Int:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// Fits reports whether n is a value of the integer kind k (any int64 is a bigint, and fits
// a kind that is not an integer).
func (k Kind) Fits(n int64) bool {
	lo, hi := k.IntRange()
	return n >= lo && n <= hi
}

// DataType is a complete type: a kind and, for the parameterised kinds, its parameters.
// The zero value is the null type. DataType is comparable only through Equal.
type DataType struct {
	Kind      Kind      `json:"kind"`
	Precision int       `json:"precision,omitempty"` // decimal
	Scale     int       `json:"scale,omitempty"`     // decimal
	Key       *DataType `json:"key,omitempty"`       // map key
	Elem      *DataType `json:"elem,omitempty"`      // array element, map value
	Row       *RowType  `json:"row,omitempty"`       // nested row
}

// RowType is an ordered list of named fields.
type RowType struct {
	Names []string   `json:"names"`
	Types []DataType `json:"types"`
}

// Of returns the type of a kind that takes no parameters.
func Of(k Kind) DataType { return DataType{Kind: k} }

// DecimalOf returns decimal(p, s).
func DecimalOf(p, s int) DataType { return DataType{Kind: Decimal, Precision: p, Scale: s} }

// ArrayOf returns array<elem>.
func ArrayOf(elem DataType) DataType { return DataType{Kind: Array, Elem: &elem} }

// MapOf returns map<key, val>.
func MapOf(key, val DataType) DataType { return DataType{Kind: Map, Key: &key, Elem: &val} }

// RowOf returns the nested row type.
func RowOf(rt *RowType) DataType { return DataType{Kind: Row, Row: rt} }

// Len is the number of fields.
func (r *RowType) Len() int { return len(r.Names) }

// Index returns the position of the field with exactly this name, or -1.
func (r *RowType) Index(name string) int {
	for i, n := range r.Names {
		if n == name {
			return i
		}
	}
	return -1
}

// Equal reports whether two row types have the same names and types in the same order.
func (r *RowType) Equal(o *RowType) bool {
	if r == nil || o == nil {
		return r == o
	}
	if len(r.Names) != len(o.Names) {
		return false
	}
	for i := range r.Names {
		if r.Names[i] != o.Names[i] || !r.Types[i].Equal(o.Types[i]) {
			return false
		}
	}
	return true
}

// Equal compares types structurally.
func (t DataType) Equal(o DataType) bool {
	if t.Kind != o.Kind {
		return false
	}
	switch t.Kind {
	case Decimal:
		return t.Precision == o.Precision && t.Scale == o.Scale
	case Array:
		return t.Elem.Equal(*o.Elem)
	case Map:
		return t.Key.Equal(*o.Key) && t.Elem.Equal(*o.Elem)
	case Row:
		return t.Row.Equal(o.Row)
	}
	return true
}

// String renders the type as a job config writes it.
func (t DataType) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t DataType) write(b *strings.Builder) {
	switch t.Kind {
	case Decimal:
		fmt.Fprintf(b, "decimal(%d, %d)", t.Precision, t.Scale)
	case Array:
		b.WriteString("array<")
		t.Elem.write(b)
		b.WriteByte('>')
	case Map:
		b.WriteString("map<")
		t.Key.write(b)
		b.WriteString(", ")
		t.Elem.write(b)
		b.WriteByte('>')
	case Row:
		t.Row.write(b)
	default:
		b.WriteString(t.Kind.String())
	}
}

func (r *RowType) write(b *strings.Builder) {
	b.WriteByte('{')
	for i, n := range r.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		if plainName(n) {
			b.WriteString(n)
		} else {
			b.WriteByte('"')
			b.WriteString(n)
			b.WriteByte('"')
		}
		b.WriteString(" = ")
		r.Types[i].write(b)
	}
	b.WriteByte('}')
}

// String renders the row type as `{a = int, b = string}`.
func (r *RowType) String() string {
	var b strings.Builder
	r.write(&b)
	return b.String()
}

// plainName reports whether a field name can be written without quotes.
func plainName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if !isIdent(n[i]) {
			return false
		}
	}
	return true
}
