package pgwire

import (
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/types"
)

// PostgreSQL type OIDs that pgtype does not name.
const (
	MoneyOID      = 790
	moneyArrayOID = 791
)

// Wire formats of result columns.
const (
	TextFormat   int16 = pgtype.TextFormatCode
	BinaryFormat int16 = pgtype.BinaryFormatCode
)

// decKind says how the wire bytes of a column, or of an array element, become a value.
type decKind uint8

const (
	decText        decKind = iota // text form, or a binary form equal to it: the bytes as a string
	decBytea                      // bytea → bytes
	decBool                       // bool → boolean
	decInt2                       // int2 → smallint
	decInt4                       // int4 → int
	decInt8                       // int8 → bigint
	decFloat4                     // float4 → float
	decFloat8                     // float8 → double
	decNumeric                    // numeric → decimal at the column's scale
	decNumericInt                 // numeric(p,0), p ≤ 9, narrowed to int
	decNumericLong                // numeric(p,0), p ≤ 18, narrowed to bigint
	decMoney                      // money → decimal(30,2)
	decDate                       // date → date
	decTime                       // time → time
	decTimetz                     // timetz → time, in UTC
	decTimestamp                  // timestamp and timestamptz → timestamp (timestamptz in UTC)
	decUUID                       // binary uuid (array elements) → string
	decJSONB                      // binary jsonb (array elements): a version byte, then the text
	decArray                      // one-dimensional array of one of the kinds above
	decBinText                    // the binary form of a value read as a string, turned into its text (UseBinary)
)

// Column is one column of a result or a table: what it becomes in the catalog table and how
// its values are read.
type Column struct {
	Name   string
	OID    uint32 // the type, the base type for a domain
	Typmod int32
	Type   types.DataType
	Length int64 // catalog length: 4 bytes per character of char(n) and varchar(n), as SeaTunnel counts
	Scale  int   // catalog scale: the fractional digits of time and timestamp columns
	Format int16 // the wire format to ask for: TextFormat or BinaryFormat

	kind     decKind
	elem     decKind // element kind of arrays
	elemOID  uint32
	dscale   int       // scale of decimal values (of the column, or of its elements)
	text     textKind  // how the binary form of a string column's value becomes its text (UseBinary)
	textType *TypeInfo // the type of such a column
}

// TypeOptions are the choices the mapping of PostgreSQL types depends on.
type TypeOptions struct {
	// Narrow maps numeric(p,0) to int (p ≤ 9) or bigint (p ≤ 18): decimal_type_narrowing.
	Narrow bool
	// UnboundedScale is the scale of numeric columns without a declared precision: SeaTunnel
	// reads them as decimal(38,18) from a query and as decimal(38,10) from a table's catalog.
	UnboundedScale int
	// OwnScale keeps each value of such a column at the scale it has in the database (500
	// stays 500, 1.50 stays 1.50) instead of rounding it to UnboundedScale, as SeaTunnel's
	// Jdbc source reads them (a BigDecimal of its own scale under the column's type).
	OwnScale bool
}

// ownScale marks a column whose decimal values keep the scale they have on the wire.
const ownScale = -1

// ColumnOf maps one result column to a SeaTunnel type and a way to read it, as SeaTunnel's
// PostgresTypeConverter does. Types SeaTunnel has no mapping for are read in their text form
// as strings. Domains arrive as their base types.
func ColumnOf(f pgconn.FieldDescription, opts TypeOptions) Column {
	c := Column{Name: f.Name, OID: f.DataTypeOID, Typmod: f.TypeModifier}
	if elem, ok := arrayElemOID[f.DataTypeOID]; ok {
		e := scalarOf(elem, f.TypeModifier, TypeOptions{UnboundedScale: opts.UnboundedScale, OwnScale: opts.OwnScale})
		c.Type = types.ArrayOf(e.Type)
		c.Format, c.kind, c.elemOID, c.dscale = BinaryFormat, decArray, elem, e.dscale
		c.elem = e.kind
		switch elem {
		case pgtype.UUIDOID:
			c.elem = decUUID
		case pgtype.JSONBOID:
			c.elem = decJSONB
		}
		return c
	}
	s := scalarOf(f.DataTypeOID, f.TypeModifier, opts)
	s.Name, s.Typmod = f.Name, f.TypeModifier
	return s
}

// scalarOf maps a non-array type with its type modifier.
func scalarOf(oid uint32, typmod int32, opts TypeOptions) Column {
	c := Column{OID: oid, Format: BinaryFormat}
	switch oid {
	case pgtype.BoolOID:
		c.Type, c.kind = types.Of(types.Boolean), decBool
	case pgtype.Int2OID:
		c.Type, c.kind = types.Of(types.SmallInt), decInt2
	case pgtype.Int4OID:
		c.Type, c.kind = types.Of(types.Int), decInt4
	case pgtype.Int8OID:
		c.Type, c.kind = types.Of(types.BigInt), decInt8
	case pgtype.Float4OID:
		c.Type, c.kind = types.Of(types.Float), decFloat4
	case pgtype.Float8OID:
		c.Type, c.kind = types.Of(types.Double), decFloat8
	case pgtype.NumericOID:
		p, s, ok := readNumericTypmod(typmod)
		switch {
		case !ok:
			c.Type, c.kind, c.dscale = types.DecimalOf(38, opts.UnboundedScale), decNumeric, opts.UnboundedScale
			if opts.OwnScale {
				c.dscale = ownScale
			}
		case opts.Narrow && s == 0 && p <= 9:
			c.Type, c.kind = types.Of(types.Int), decNumericInt
		case opts.Narrow && s == 0 && p <= 18:
			c.Type, c.kind = types.Of(types.BigInt), decNumericLong
		default:
			c.Type, c.kind, c.dscale = types.DecimalOf(p, s), decNumeric, s
		}
	case MoneyOID:
		c.Type, c.kind, c.dscale, c.Length = types.DecimalOf(30, 2), decMoney, 2, 30
	case pgtype.ByteaOID:
		c.Type, c.kind = types.Of(types.Bytes), decBytea
	case pgtype.DateOID:
		c.Type, c.kind = types.Of(types.Date), decDate
	case pgtype.TimeOID, pgtype.TimetzOID:
		c.Type, c.kind = types.Of(types.Time), decTime
		if oid == pgtype.TimetzOID {
			c.kind = decTimetz
		}
		if typmod >= 0 {
			c.Scale = int(typmod)
		}
	case pgtype.TimestampOID, pgtype.TimestamptzOID:
		c.Type, c.kind = types.Of(types.Timestamp), decTimestamp
		if typmod >= 0 {
			c.Scale = int(typmod)
		}
	default:
		// Character types, uuid, json, jsonb, xml, inet, interval and everything else:
		// strings in their text form.
		c.Type, c.kind, c.Format = types.Of(types.String), decText, TextFormat
		switch oid {
		case pgtype.BPCharOID:
			c.Length = 4
			if typmod >= 4 {
				c.Length = 4 * int64(typmod-4)
			}
		case pgtype.VarcharOID:
			if typmod >= 4 {
				c.Length = 4 * int64(typmod-4)
			}
		case pgtype.UUIDOID:
			c.Length = 128
		}
	}
	return c
}

// readNumericTypmod reads numeric(p,s) from a type modifier; ok is false for an unbounded
// numeric. A negative scale (PostgreSQL 15) rounds to tens, hundreds...: such values are
// integers of up to p-s digits.
func readNumericTypmod(typmod int32) (p, s int, ok bool) {
	if typmod < 4 {
		return 0, 0, false
	}
	m := typmod - 4
	p = int(m>>16) & 0xffff
	s = int(m & 0x7ff)
	if s&0x400 != 0 {
		s -= 0x800
	}
	if s < 0 {
		p, s = p-s, 0
	}
	return p, s, true
}

// arrayElemOID maps the array types read as SeaTunnel arrays to their element types. Other
// arrays are read as strings in their text form.
var arrayElemOID = map[uint32]uint32{
	pgtype.BoolArrayOID:        pgtype.BoolOID,
	pgtype.Int2ArrayOID:        pgtype.Int2OID,
	pgtype.Int4ArrayOID:        pgtype.Int4OID,
	pgtype.Int8ArrayOID:        pgtype.Int8OID,
	pgtype.Float4ArrayOID:      pgtype.Float4OID,
	pgtype.Float8ArrayOID:      pgtype.Float8OID,
	pgtype.NumericArrayOID:     pgtype.NumericOID,
	moneyArrayOID:              MoneyOID,
	pgtype.TextArrayOID:        pgtype.TextOID,
	pgtype.VarcharArrayOID:     pgtype.VarcharOID,
	pgtype.BPCharArrayOID:      pgtype.BPCharOID,
	pgtype.NameArrayOID:        pgtype.NameOID,
	pgtype.QCharArrayOID:       pgtype.QCharOID,
	pgtype.JSONArrayOID:        pgtype.JSONOID,
	pgtype.JSONBArrayOID:       pgtype.JSONBOID,
	pgtype.XMLArrayOID:         pgtype.XMLOID,
	pgtype.UUIDArrayOID:        pgtype.UUIDOID,
	pgtype.ByteaArrayOID:       pgtype.ByteaOID,
	pgtype.DateArrayOID:        pgtype.DateOID,
	pgtype.TimeArrayOID:        pgtype.TimeOID,
	pgtype.TimetzArrayOID:      pgtype.TimetzOID,
	pgtype.TimestampArrayOID:   pgtype.TimestampOID,
	pgtype.TimestamptzArrayOID: pgtype.TimestamptzOID,
}
