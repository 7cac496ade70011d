package postgrescdc

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// PostgreSQL keeps the scale of every numeric value: an unbounded numeric holds 500 and
// 500.00 as different values, and numeric(10,2) stores 1.5 as 1.50. Debezium's values keep
// it too, so a row of Postgres-CDC carries each decimal at the scale PostgreSQL gives it (the
// dscale of its binary form), not at the scale of the column's catalog type: 500 is written
// to a sink as 500, never as 500.0000000000.
//
// Numeric columns and arrays of numeric are therefore read as their raw binary form (a bytea
// column of package pgwire, keeping the numeric's type and modifier for the checks of the
// result's columns) and turned into decimals here, in the snapshot and in the stream alike.

// numKind says how a column's raw binary value becomes its row value.
type numKind uint8

const (
	numNone   numKind = iota // not a numeric column: decoded by pgwire
	numScalar                // numeric → decimal at the value's scale
	numArray                 // numeric[] → array<decimal>, each element at its scale
)

// numericKind tells whether a result column is one this file decodes.
func numericKind(f pgconn.FieldDescription) numKind {
	switch f.DataTypeOID {
	case pgtype.NumericOID:
		return numScalar
	case pgtype.NumericArrayOID:
		return numArray
	}
	return numNone
}

// rawColumn returns a column that reads c's values as their raw binary form (bytes), with
// c's name, type, modifier and catalog type.
func rawColumn(c pgwire.Column) pgwire.Column {
	raw := pgwire.ColumnOf(pgconn.FieldDescription{Name: c.Name, DataTypeOID: pgtype.ByteaOID, TypeModifier: -1}, pgwire.TypeOptions{})
	raw.OID, raw.Typmod, raw.Type, raw.Length, raw.Scale = c.OID, c.Typmod, c.Type, c.Length, c.Scale
	return raw
}

// decodeNumerics turns the raw values of the numeric columns of rows (just read by pgwire)
// into decimals; arrays take their elements from out's arena.
func (t *cdcTable) decodeNumerics(rows []row.Row, out *row.Batch) error {
	for _, j := range t.numCols {
		k := t.num[j]
		for i := range rows {
			v := &rows[i].Fields[j]
			if v.T == types.Null {
				continue
			}
			if err := decodeNumber(k, v.S, v, out); err != nil {
				return fmt.Errorf("column %q: %w", t.cols[j].Name, err)
			}
		}
	}
	return nil
}

// decodeNumber reads the binary form b of a numeric (k numScalar) or numeric[] (numArray)
// value into v.
func decodeNumber[B ~string | ~[]byte](k numKind, b B, v *row.Value, out *row.Batch) error {
	if k == numArray {
		return decodeNumericArray(b, v, out)
	}
	d, err := decodeNumeric(b)
	if err != nil {
		return err
	}
	*v = d
	return nil
}

func u16[B ~string | ~[]byte](b B, i int) uint16 { return uint16(b[i])<<8 | uint16(b[i+1]) }

func u32[B ~string | ~[]byte](b B, i int) uint32 {
	return uint32(b[i])<<24 | uint32(b[i+1])<<16 | uint32(b[i+2])<<8 | uint32(b[i+3])
}

// pow10 holds the powers of ten a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// decodeNumeric reads a numeric in PostgreSQL's binary form (ndigits, weight, sign and
// dscale, then base-10000 digits, the first worth 10000^weight) as a decimal of scale
// dscale. NaN and the infinities are not decimals.
func decodeNumeric[B ~string | ~[]byte](b B) (row.Value, error) {
	if len(b) < 8 {
		return row.Value{}, fmt.Errorf("malformed numeric value of %d bytes", len(b))
	}
	nd := int(int16(u16(b, 0)))
	weight := int(int16(u16(b, 2)))
	sign := u16(b, 4)
	scale := int(int16(u16(b, 6)))
	if nd < 0 || len(b) != 8+2*nd || scale < 0 {
		return row.Value{}, fmt.Errorf("malformed numeric value of %d bytes", len(b))
	}
	switch sign {
	case 0x0000, 0x4000:
	case 0xC000:
		return row.Value{}, fmt.Errorf("numeric NaN cannot be read as a decimal")
	case 0xD000:
		return row.Value{}, fmt.Errorf("numeric infinity cannot be read as a decimal")
	case 0xF000:
		return row.Value{}, fmt.Errorf("numeric -infinity cannot be read as a decimal")
	default:
		return row.Value{}, fmt.Errorf("numeric with unknown sign %#x", sign)
	}
	// the value is the digits read as one integer times 10^exp, the unscaled value that
	// times 10^scale; PostgreSQL sends no digit beyond dscale, so a division is exact
	exp := 4*(weight-nd+1) + scale
	u := unscaled(b[8:], nd, exp)
	if sign == 0x4000 {
		u.Neg(u)
	}
	return row.DecimalValue(u, scale), nil
}

// unscaled returns the nd base-10000 digits as one integer times 10^exp, rounded half away
// from zero when exp is negative.
func unscaled[B ~string | ~[]byte](digits B, nd, exp int) *big.Int {
	if nd == 0 {
		return new(big.Int)
	}
	if nd <= 4 { // at most 16 decimal digits: a uint64
		var acc uint64
		for i := 0; i < nd; i++ {
			acc = acc*10000 + uint64(u16(digits, 2*i))
		}
		switch {
		case exp >= 0 && exp < len(pow10):
			if hi, lo := bits.Mul64(acc, pow10[exp]); hi == 0 && lo <= math.MaxInt64 {
				return new(big.Int).SetUint64(lo)
			}
		case exp < 0:
			if -exp >= len(pow10) {
				return new(big.Int)
			}
			d := pow10[-exp]
			q, r := acc/d, acc%d
			if 2*r >= d {
				q++
			}
			return new(big.Int).SetUint64(q)
		}
	}
	acc := new(big.Int)
	var dg big.Int
	tenK := big.NewInt(10000)
	for i := 0; i < nd; i++ {
		acc.Mul(acc, tenK)
		acc.Add(acc, dg.SetUint64(uint64(u16(digits, 2*i))))
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
	if exp >= 0 {
		return acc.Mul(acc, p)
	}
	r := new(big.Int)
	acc.QuoRem(acc, p, r)
	if r.Lsh(r, 1).Cmp(p) >= 0 {
		acc.Add(acc, big.NewInt(1))
	}
	return acc
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// arenaElems is the most elements of an array taken from the batch's arena (as pgwire
// does); longer arrays get their own slice.
const arenaElems = 32

// decodeNumericArray reads a one-dimensional numeric[] in binary form: the number of
// dimensions, a null flag, the element type, each dimension's length and lower bound, then
// the elements, each its length (-1 for null) and its bytes.
func decodeNumericArray[B ~string | ~[]byte](b B, v *row.Value, out *row.Batch) error {
	if len(b) < 12 {
		return fmt.Errorf("malformed array value of %d bytes", len(b))
	}
	ndim := int32(u32(b, 0))
	if ndim == 0 {
		*v = row.ArrayValue(out.Values(0))
		return nil
	}
	if ndim != 1 {
		return fmt.Errorf("a %d-dimensional array cannot be read as an array of decimals; only one-dimensional arrays can", ndim)
	}
	if len(b) < 20 {
		return fmt.Errorf("malformed array value of %d bytes", len(b))
	}
	if oid := u32(b, 8); oid != pgtype.NumericOID {
		return fmt.Errorf("array of type %d where numeric elements were expected", oid)
	}
	n := int(int32(u32(b, 12)))
	if n < 0 || n > (len(b)-20)/4 {
		return fmt.Errorf("malformed array of %d elements in %d bytes", n, len(b))
	}
	var elems []row.Value
	if n <= arenaElems {
		elems = out.Values(n)
	} else {
		elems = make([]row.Value, n)
	}
	p := 20
	for i := range elems {
		if p+4 > len(b) {
			return fmt.Errorf("malformed array value of %d bytes", len(b))
		}
		l := int(int32(u32(b, p)))
		p += 4
		if l < 0 {
			continue // null: the values start out null
		}
		if p+l > len(b) {
			return fmt.Errorf("malformed array value of %d bytes", len(b))
		}
		d, err := decodeNumeric(b[p : p+l])
		if err != nil {
			return fmt.Errorf("element %d: %w", i+1, err)
		}
		elems[i] = d
		p += l
	}
	*v = row.ArrayValue(elems)
	return nil
}
