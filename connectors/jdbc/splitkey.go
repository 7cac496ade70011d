package jdbc

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
// are compared by (the quoted column; on PostgreSQL cast to text for string columns of
// other types such as uuid, and to numeric for money).
type splitKey struct {
	kind     keyKind
	expr     string
	sqlType  string // the type bounds are cast to when computed in SQL (dates, timestamps)
	nullable bool
	charset  bool // a string column cut arithmetically (split.string_split_mode = charset_based)
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
