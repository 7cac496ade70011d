package jdbc

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/types"
)

// keyKind is how a split column's values are cut into ranges.
type keyKind uint8

const (
	keyInt    keyKind = iota // integers (and numeric(p,0), p ≤ 18): int64 ranges
	keyNumber                // other numbers: decimal, float, double, money
	keyString                // strings, ordered as the database orders them
	keyDate                  // dates, cut by days
	keyTime                  // timestamps
)

// splitKey is a table's split column: how to cut it, and the SQL expression its values
// are compared by (the quoted column, cast to text for string columns of other types such
// as uuid, and to numeric for money).
type splitKey struct {
	kind     keyKind
	expr     string
	sqlType  string // the type bounds are cast to when computed in SQL (dates, timestamps)
	nullable bool
	charset  bool // a string column cut arithmetically (split.string_split_mode = charset_based)
}

// textOIDs are the string types compared as they are; other types read as strings are
// compared by their text.
var textOIDs = map[uint32]bool{pgtype.TextOID: true, pgtype.VarcharOID: true, pgtype.BPCharOID: true, pgtype.NameOID: true}

// splitKeyOf says how column c splits; ok is false for a type that does not split. The
// types are SeaTunnel's split types (integers, decimals, floats, strings, dates), and
// timestamps when explicit (a partition_column: SeaTunnel picks no timestamp column
// itself).
func splitKeyOf(c *pgwire.Column, explicit bool) (splitKey, bool) {
	k := splitKey{expr: pgwire.QuoteIdent(c.Name)}
	switch c.Type.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		k.kind = keyInt
	case types.Decimal:
		switch {
		case c.OID == pgwire.MoneyOID:
			k.kind, k.expr = keyNumber, k.expr+"::numeric"
		case c.Type.Scale == 0 && c.Type.Precision > 0 && c.Type.Precision <= 18:
			k.kind = keyInt
		default:
			k.kind = keyNumber
		}
	case types.Float, types.Double:
		k.kind = keyNumber
	case types.String:
		k.kind = keyString
		if !textOIDs[c.OID] {
			k.expr += "::text"
		}
	case types.Date:
		k.kind, k.sqlType = keyDate, "date"
	case types.Timestamp:
		if !explicit {
			return k, false
		}
		k.kind, k.sqlType = keyTime, "timestamp"
		if c.OID == pgtype.TimestamptzOID {
			k.sqlType = "timestamptz"
		}
	default:
		return k, false
	}
	return k, true
}

// splitTuning is SeaTunnel's tuning of dynamic splitting: the distribution factor, (max -
// min + 1) / rows, within whose bounds a numeric column is cut into ranges of even width;
// outside them, the estimated split count above which split boundaries are sampled (every
// inverse-rate-th value) rather than queried split by split.
type splitTuning struct {
	factorUpper, factorLower float64
	sampleThreshold          int64
	inverseRate              int64
	// charset cuts string columns arithmetically, as strings of ASCII 32-126 compared in
	// the collation collate (split.string_split_mode = charset_based), instead of sampling
	// or querying their boundaries
	charset bool
	collate string
}

// Values of split.string_split_mode.
const (
	stringSplitSample  = "sample"
	stringSplitCharset = "charset_based"
)
