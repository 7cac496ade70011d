package jdbc

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
)

func init() {
	connector.RegisterSource("Jdbc", "Reads the rows of queries or tables of a PostgreSQL, MySQL or MariaDB database once, split into key ranges read in parallel, as SeaTunnel's Jdbc source does.", NewSource)
}

// SourceConfig is the Jdbc source's options.
type SourceConfig struct {
	ConnOptions
	SourceTable
	TableList []ListedTable `opt:"table_list" doc:"several tables or queries, each entry with the options of one (table_path, query, where_condition, partition_column, ...); instead of table_path and query"`

	SplitSize       int64   `opt:"split.size" default:"8096" doc:"rows per split when a table is split by its key"`
	FactorUpper     float64 `opt:"split.even-distribution.factor.upper-bound" default:"100" doc:"a numeric split column whose distribution factor, (max - min + 1) / rows, is at most this is cut into ranges of even width"`
	FactorLower     float64 `opt:"split.even-distribution.factor.lower-bound" default:"0.05" doc:"a numeric split column whose distribution factor is at least this is cut into ranges of even width"`
	SampleThreshold int64   `opt:"split.sample-sharding.threshold" default:"1000" doc:"above this many expected splits, the boundaries of an unevenly distributed column are sampled rather than queried split by split"`
	InverseRate     int64   `opt:"split.inverse-sampling.rate" default:"1000" doc:"sampling reads every this-th value of the split column"`
	StringSplit     string  `opt:"split.string_split_mode" default:"sample" enum:"sample,charset_based" doc:"how a string split column is cut: at sampled or queried boundaries, or (charset_based) in ranges of even width of its values read as base-95 numbers"`
	StringCollate   string  `opt:"split.string_split_mode_collate" doc:"the collation charset_based ranges are compared in; default C, byte order"`
	Narrowing       bool    `opt:"decimal_type_narrowing" default:"false" doc:"read numeric(p,0) as int when p <= 9 and as bigint when p <= 18; off unless set, since SeaTunnel narrows Oracle's numbers only and reads PostgreSQL's numeric(p,0) as decimal(p,0)"`

	FetchSize      int64 `opt:"fetch_size,noeffect" default:"0" doc:"rows fetched per round trip; rows stream from the server as they are read, so nothing needs it to bound memory"`
	UseSelectCount bool  `opt:"use_select_count,noeffect" default:"false" doc:"count a table's rows with SELECT COUNT; Strait estimates a table read whole from its statistics and counts the rows of anything else"`
	SkipAnalyze    bool  `opt:"skip_analyze,noeffect" default:"false" doc:"skip analysing a table before counting it; Strait never analyses tables"`
}

// SourceTable are the options of one table the source reads.
type SourceTable struct {
	TablePath       string  `opt:"table_path" doc:"the table to read whole: database.schema.table, schema.table or table"`
	Query           string  `opt:"query" doc:"the SELECT whose rows are read; with table_path too, the table names the rows and lends its keys"`
	Where           *string `opt:"where_condition" doc:"a filter of the rows read, starting with where (where id > 10); a table_list entry's defaults to the source's"`
	PartitionColumn string  `opt:"partition_column" doc:"the column splits are ranges of; default the first column of the primary key or of a unique index that can be split on"`
	PartitionNum    *int64  `opt:"partition_num" doc:"with a query and partition_column, the number of splits; default the parallelism"`
	LowerBound      *string `opt:"partition_lower_bound" doc:"with a query and partition_column, the smallest value read; default the column's minimum"`
	UpperBound      *string `opt:"partition_upper_bound" doc:"with a query and partition_column, the largest value read; default the column's maximum"`
}

// ListedTable is one entry of table_list.
type ListedTable struct {
	SourceTable

	At *config.Options `opt:"."`
}

// defaultSplitSize is SeaTunnel's split.size: rows per split when a table is split by its key.
const defaultSplitSize = 8096

// Source is a configured Jdbc source: it reads the rows of one or more queries or tables of a
// database once, split into key ranges read in parallel. What follows is said of
// PostgreSQL; MySQL's driver reads the same with MySQL's catalog (mysql_source.go).
//
// What it reads, per table (one for query or table_path, one per entry of table_list):
//
//   - query: the rows of the query. The table's columns are the query's result columns; its
//     path is <table> when the first result column comes straight from a table (as
//     PostgreSQL's JDBC driver reports it) and default.default.default otherwise. With
//     table_path as well, the path is table_path's and the table's primary key and indexes
//     are kept where the query returns all their columns.
//   - table_path: every row of the table (SELECT *), with its primary key, indexes, column
//     nullability and comments from the catalog. The path is table_path as written:
//     database.schema.table, schema.table or table.
//   - where_condition (must start with "where") filters either: the rows read are
//     SELECT * FROM (<query or table>) tmp <where_condition>.
//
// How it splits, as SeaTunnel does (splitplan.go), on a partition_column or else the first
// column of the primary key or of a unique index whose type SeaTunnel splits on (integers,
// decimals, floats, strings, dates; an explicit partition_column may be a timestamp too):
//
//   - query with partition_column (not in table_list), SeaTunnel's fixed splitter:
//     partition_num splits (default: the parallelism). A string column is read in hash
//     buckets of its text; any other in ranges of even width between partition_lower_bound
//     and partition_upper_bound (default: the column's minimum and maximum, read when the
//     job starts). Rows beyond a bound that is set are not read; a bound taken from the data
//     leaves the outer range open on that side.
//   - otherwise, SeaTunnel's dynamic splitter, splits of about split.size rows (the row count
//     from the statistics of a table read whole, a count otherwise): a numeric column whose
//     distribution factor, (max - min + 1) / rows, is within
//     split.even-distribution.factor.lower-bound and .upper-bound in ranges of even width; a
//     date column by days; any other column at boundaries sampled from every
//     split.inverse-sampling.rate-th value when more than split.sample-sharding.threshold
//     splits are expected, else at boundaries queried split by split; with
//     split.string_split_mode = charset_based a string column in ranges of even width of
//     its values read as base-95 numbers.
//
// The first split also holds the rows whose split column is NULL (which SeaTunnel loses).
//
// Rows stream from the server as they are read (fetch_size is accepted but not needed to
// bound memory). PostgreSQL types map to SeaTunnel types as SeaTunnel's PostgresTypeConverter
// maps them, with these choices: an unbounded numeric is decimal(38,18) in a query and
// decimal(38,10) in a table read whole (as SeaTunnel's catalog reads it), and each of its
// values keeps the scale it has in the database (500 stays 500, 1.50 stays 1.50), as
// SeaTunnel's BigDecimal does; timestamptz and timetz values are read in
// UTC; arrays are one-dimensional; types SeaTunnel does not map (interval, point, ranges,
// enums, arrays of them...) are read as strings in their text form.
// decimal_type_narrowing reads numeric(p,0) as int when p ≤ 9 and as bigint when p ≤ 18; it
// is off unless set, since SeaTunnel applies it to Oracle only and reads PostgreSQL's
// numeric(p,0) as decimal(p,0).
//
// A split is read by one query and keeps no progress: a split being read when a checkpoint
// is taken is read again from its beginning after a restore.
type Source struct {
	where       string
	db          database
	tables      []*srcTable
	byID        map[string]*srcTable
	splitSize   int64
	tuning      splitTuning
	parallelism int
}

// srcTable is one table the source reads: its catalog table, the statement that reads all
// its rows, how to decode them (the driver's columns) and how to split them.
type srcTable struct {
	table *catalog.Table
	id    string
	sql   string // SELECT of every row, where_condition applied
	cols  columnSet
	// rel names the table read whole (table_path without query or where_condition), whose
	// statistics estimate its row count, as its driver finds them; "" when rows are
	// counted instead.
	rel   string
	key   string // split column; "" reads everything in one split
	split splitKey
	fixed bool    // partition_num ranges between bounds (a query with partition_column)
	parts int     // partition_num
	lower *string // partition_lower_bound
	upper *string // partition_upper_bound
}

// srcEntry is what the options say about one table.
type srcEntry struct {
	o               *config.Options
	tablePath       string
	query           string
	where           string
	partitionColumn string
	partitionNum    int64
	lower, upper    *string
}

// NewSource builds a Jdbc source from its options. It connects to the database to learn the
// columns of every query and table, within the planning deadline and at most
// connection_check_timeout_sec for every attempt to connect.
func NewSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	o := c.At
	s := &Source{where: o.Where(), byID: map[string]*srcTable{}, parallelism: max(ctx.Parallelism, 1)}
	var err error
	if s.db, err = databaseOf(&c.ConnOptions); err != nil {
		return nil, err
	}
	if c.FetchSize < 0 {
		return nil, o.Errorf("fetch_size", "must not be negative, got %d", c.FetchSize)
	}
	if s.splitSize = c.SplitSize; s.splitSize < 1 {
		return nil, o.Errorf("split.size", "must be at least 1, got %d", s.splitSize)
	}
	if s.tuning, err = splitTuningOf(c); err != nil {
		return nil, err
	}
	where, err := whereCondition(o, c.Where, "")
	if err != nil {
		return nil, err
	}
	entries, fixed, err := srcEntries(c, where)
	if err != nil {
		return nil, err
	}

	cctx, cancel := context.WithTimeout(planContext(ctx.Context), s.db.connectTimeout()+time.Minute)
	defer cancel()
	conn, err := s.db.openSource(cctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	defer conn.close()
	for i, e := range entries {
		t, err := conn.resolve(cctx, s.where, e, c.Narrowing)
		if err != nil {
			return nil, err
		}
		t.table.KeepPresentKeys() // a query may read some of a key's columns only
		t.id = t.table.ID()
		if err := s.resolveSplit(t, e, fixed); err != nil {
			return nil, err
		}
		if s.byID[t.id] != nil {
			return nil, o.Errorf(fmt.Sprintf("table_list[%d]", i), "a second entry reads table %s; give each entry its own table_path", t.id)
		}
		s.byID[t.id] = t
		s.tables = append(s.tables, t)
	}
	return s, nil
}

// srcEntries are the tables the options name: those of table_list, or the one of the
// source's own options. fixed is SeaTunnel's fixed partitioning: a query with
// partition_column, not in table_list.
func srcEntries(c *SourceConfig, where string) (entries []srcEntry, fixed bool, err error) {
	o := c.At
	if !o.Has("table_list") {
		e, err := srcEntryOf(o, &c.SourceTable, where)
		if err != nil {
			return nil, false, err
		}
		return []srcEntry{e}, e.query != "" && e.partitionColumn != "", nil
	}
	for _, k := range []string{"query", "table_path"} {
		if o.Has(k) {
			return nil, false, o.Errorf("table_list", "set either table_list or table_path/query, not both")
		}
	}
	if len(c.TableList) == 0 {
		return nil, false, o.Errorf("table_list", "the list is empty")
	}
	for i := range c.TableList {
		e, err := srcEntryOf(c.TableList[i].At, &c.TableList[i].SourceTable, where)
		if err != nil {
			return nil, false, err
		}
		entries = append(entries, e)
	}
	return entries, false, nil
}

// splitTuningOf checks the tuning of dynamic splitting.
func splitTuningOf(c *SourceConfig) (splitTuning, error) {
	t := splitTuning{factorUpper: c.FactorUpper, factorLower: c.FactorLower, sampleThreshold: c.SampleThreshold,
		inverseRate: c.InverseRate, charset: c.StringSplit == stringSplitCharset, collate: strings.TrimSpace(c.StringCollate)}
	if t.factorLower > t.factorUpper {
		return t, c.At.Errorf("split.even-distribution.factor.lower-bound", "%g is above split.even-distribution.factor.upper-bound %g", t.factorLower, t.factorUpper)
	}
	if t.inverseRate < 1 {
		return t, c.At.Errorf("split.inverse-sampling.rate", "must be at least 1, got %d", t.inverseRate)
	}
	if t.collate == "" {
		t.collate = "C" // byte order, the order of the arithmetic
	}
	return t, nil
}

// whereCondition checks where_condition, which must start with "where" as in SeaTunnel;
// def is the condition when it is not set.
func whereCondition(o *config.Options, w *string, def string) (string, error) {
	if w == nil {
		return def, nil
	}
	v := strings.TrimSpace(*w)
	if v != "" && !strings.HasPrefix(strings.ToLower(v), "where") {
		return "", o.Errorf("where_condition", "must start with `where`, as in `where id > 10`; got %q", v)
	}
	return v, nil
}

// srcEntryOf checks the options of one table: those of the source, or of one table_list
// entry (whose where_condition defaults to the source's). o is where they are written.
func srcEntryOf(o *config.Options, t *SourceTable, where string) (srcEntry, error) {
	e := srcEntry{o: o, tablePath: strings.TrimSpace(t.TablePath), query: trimSourceQuery(t.Query)}
	if e.query == "" && e.tablePath == "" {
		if o.Has("query") {
			return e, o.Errorf("query", "the query is empty")
		}
		return e, o.Errorf("query", "set query, table_path or table_list to say what to read")
	}
	var err error
	if e.where, err = whereCondition(o, t.Where, where); err != nil {
		return e, err
	}
	e.partitionColumn = strings.TrimSpace(t.PartitionColumn)
	if t.PartitionNum != nil {
		if *t.PartitionNum < 1 {
			return e, o.Errorf("partition_num", "must be at least 1, got %d", *t.PartitionNum)
		}
		e.partitionNum = *t.PartitionNum
	}
	for _, b := range []struct {
		v   *string
		dst **string
	}{{t.LowerBound, &e.lower}, {t.UpperBound, &e.upper}} {
		if b.v != nil {
			v := strings.TrimSpace(*b.v)
			*b.dst = &v
		}
	}
	return e, nil
}

// fromQuery is the SELECT of every row of the entry's query, nested.
func (e srcEntry) fromQuery() string { return "SELECT * FROM (" + e.query + "\n) st_jdbc_query" }

// filtered is the SELECT of every row of base that where_condition keeps.
func (e srcEntry) filtered(base string) string {
	if e.where == "" {
		return base
	}
	return "SELECT * FROM (" + base + "\n) tmp " + e.where
}

// trimSourceQuery drops the spaces and semicolons that end a query, so it can be nested.
// Nesting puts a line break after a query, so a comment that ends it stays harmless.
func trimSourceQuery(q string) string {
	return strings.TrimRight(strings.TrimSpace(q), "; \t\r\n")
}

// resolveSplit picks the table's split column and reads the bounds of fixed partitioning.
func (s *Source) resolveSplit(t *srcTable, e srcEntry, fixed bool) error {
	tbl := t.table
	t.fixed = fixed
	if e.partitionColumn != "" {
		i := tbl.ColumnIndex(e.partitionColumn)
		if i < 0 {
			return e.o.Errorf("partition_column", "column %q is not among the columns read (%s)", e.partitionColumn, srcColumnNames(tbl))
		}
		k, ok := t.cols.splitKey(i, true)
		if !ok {
			return e.o.Errorf("partition_column", "column %q is %s; Strait splits on numeric, string, date and timestamp columns",
				e.partitionColumn, tbl.Columns[i].Type)
		}
		t.key, t.split = e.partitionColumn, k
	} else {
		t.key = firstKeyColumn(tbl, func(i int) bool {
			_, ok := t.cols.splitKey(i, false)
			return ok
		})
		if i := tbl.ColumnIndex(t.key); i >= 0 {
			t.split, _ = t.cols.splitKey(i, false)
		}
	}
	if t.key != "" {
		t.split.nullable = tbl.Columns[tbl.ColumnIndex(t.key)].Nullable
		if t.split.kind == keyString && s.tuning.charset && !fixed {
			t.split.charset = true
			t.split.expr = s.db.collated(t.split.expr, s.tuning.collate)
		}
	}
	if !fixed {
		return nil
	}
	t.parts = s.parallelism
	if e.partitionNum > 0 {
		t.parts = int(min(e.partitionNum, 1<<20))
	}
	t.lower, t.upper = e.lower, e.upper
	if t.split.kind != keyInt {
		return nil
	}
	lo, err := intBound(e.o, "partition_lower_bound", t.lower)
	if err != nil {
		return err
	}
	hi, err := intBound(e.o, "partition_upper_bound", t.upper)
	if err != nil {
		return err
	}
	if lo != nil && hi != nil && *lo > *hi {
		return e.o.Errorf("partition_lower_bound", "%d is above partition_upper_bound %d", *lo, *hi)
	}
	return nil
}

// intBound reads a partition bound of an integer split column.
func intBound(o *config.Options, key string, v *string) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(*v, 10, 64)
	if err != nil {
		return nil, o.Errorf(key, "%q is not an integer, and the split column is one", *v)
	}
	return &n, nil
}

func srcColumnNames(t *catalog.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// firstKeyColumn is the first column of t's primary key, else of a unique key, that splits
// (splits says so of a column by its index); "" when none does.
func firstKeyColumn(t *catalog.Table, splits func(i int) bool) string {
	pick := func(name string) bool {
		i := t.ColumnIndex(name)
		return i >= 0 && splits(i)
	}
	if t.PrimaryKey != nil {
		for _, c := range t.PrimaryKey.Columns {
			if pick(c) {
				return c
			}
		}
	}
	for _, k := range t.ConstraintKeys {
		if k.Type != "UNIQUE_KEY" {
			continue
		}
		for _, c := range k.Columns {
			if pick(c.Name) {
				return c.Name
			}
		}
	}
	return ""
}

// Boundedness: the source reads its tables once, in BATCH and STREAMING jobs alike.
func (s *Source) Boundedness() connector.Boundedness { return connector.Bounded }

// Tables lists the tables the source reads, in the order of the options.
func (s *Source) Tables() []*catalog.Table {
	return sourcekit.Tables(s.tables, func(t *srcTable) *catalog.Table { return t.table })
}
