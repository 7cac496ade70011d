package jdbc

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/types"
)

// mySource is the Jdbc source on a MySQL or MariaDB database. It reads what the Source
// documentation describes, with MySQL's catalog: a table_path is database.table (or table,
// in the url's database), a query's columns are typed by the server (a temporary table of
// its shape, LIMIT 0), and a split's rows stream from the server as they are read.
type mySource struct {
	where       string
	conn        *myConn
	tables      []*myTable
	byID        map[string]*myTable
	splitSize   int64
	tuning      splitTuning
	parallelism int
}

// myTable is one table the source reads.
type myTable struct {
	table *catalog.Table
	id    string
	sql   string // SELECT of every row, where_condition applied
	cols  []mysqlColumn
	// whole is database.table when the table is read whole, whose statistics estimate its
	// row count; "" when rows are counted instead
	whole string
	key   string
	kind  keyKind
	null  bool // the split column is nullable
	// charset cuts a string split column in ranges of even width compared byte by byte
	// (split.string_split_mode = charset_based)
	charset bool
	fixed   bool
	parts   int
	lower   *string
	upper   *string
}

// newMySQLSource builds the source on a MySQL database: it connects to learn the columns,
// keys and split columns of every table.
func newMySQLSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	o := c.At
	s := &mySource{where: o.Where(), byID: map[string]*myTable{}, parallelism: max(ctx.Parallelism, 1)}
	var err error
	if s.conn, err = mysqlConnOf(&c.ConnOptions); err != nil {
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
	cctx, cancel := context.WithTimeout(planContext(ctx.Context), s.conn.Timeout+time.Minute)
	defer cancel()
	db, err := s.conn.open(cctx, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	defer db.Close()
	conn, err := db.Conn(cctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	defer conn.Close()
	for i, e := range entries {
		t, err := s.resolve(cctx, conn, e, fixed)
		if err != nil {
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

// splitMySQLPath reads database.table or table (in the url's database).
func (s *mySource) splitMySQLPath(p string) (db, table string, err error) {
	parts := strings.Split(p, ".")
	switch len(parts) {
	case 1:
		db, table = s.conn.Database, parts[0]
	case 2:
		db, table = parts[0], parts[1]
	default:
		return "", "", fmt.Errorf("%q: want database.table or table", p)
	}
	db, table = unquoteMySQL(db), unquoteMySQL(table)
	if db == "" {
		return "", "", fmt.Errorf("%q names no database, and the url names none", p)
	}
	if table == "" {
		return "", "", fmt.Errorf("%q names no table", p)
	}
	return db, table, nil
}

func unquoteMySQL(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

// resolve learns one table's columns, keys and split column.
func (s *mySource) resolve(ctx context.Context, conn *sql.Conn, e srcEntry, fixed bool) (*myTable, error) {
	t := &myTable{}
	tbl := &catalog.Table{}
	var dbName, name string
	exists := false
	if e.tablePath != "" {
		var err error
		if dbName, name, err = s.splitMySQLPath(e.tablePath); err != nil {
			return nil, e.o.Errorf("table_path", "%v", err)
		}
		tbl.Path = catalog.TablePath{Database: dbName, Table: name}
		if exists, err = mysqlTableExists(ctx, conn, dbName, name); err != nil {
			return nil, fmt.Errorf("%s: look up table %s.%s: %w", s.where, dbName, name, err)
		}
		if !exists && e.query == "" {
			return nil, e.o.Errorf("table_path", "table %s does not exist in database %s", name, dbName)
		}
	}
	fromTable := e.query == ""
	base := "SELECT * FROM " + mysqlQuote(dbName) + "." + mysqlQuote(name)
	if !fromTable {
		base = "SELECT * FROM (" + e.query + "\n) st_jdbc_query"
	}
	t.sql = base
	if e.where != "" {
		t.sql = "SELECT * FROM (" + base + "\n) tmp " + e.where
	}
	var err error
	if fromTable {
		if t.cols, err = mysqlTableColumns(ctx, conn, dbName, name); err != nil {
			return nil, fmt.Errorf("%s: %w", s.where, err)
		}
		if e.where == "" {
			t.whole = mysqlQuote(dbName) + "." + mysqlQuote(name)
		} else if err = checkStatement(ctx, conn, t.sql); err != nil {
			return nil, e.o.Errorf("where_condition", "MySQL rejects %q: %v", e.where, err)
		}
	} else {
		t.cols, err = s.queryColumns(ctx, conn, e, t.sql)
	}
	if err != nil {
		return nil, err
	}
	if len(t.cols) == 0 {
		return nil, e.o.Errorf("query", "the query returns no columns")
	}
	for _, c := range t.cols {
		tbl.Columns = append(tbl.Columns, c.Column)
	}
	if e.tablePath == "" {
		tbl.Path = queryPath(e.query, s.conn.Database)
	}
	if exists {
		if err := mysqlTableKeys(ctx, conn, dbName, name, tbl); err != nil {
			return nil, fmt.Errorf("%s: read the keys of %s.%s: %w", s.where, dbName, name, err)
		}
		keepPresentKeys(tbl)
	}
	t.table = tbl
	t.id = tbl.ID()
	if err := s.resolveSplit(t, e, fixed); err != nil {
		return nil, err
	}
	return t, nil
}

// queryColumns types the columns of a statement as the server does: a temporary table of
// its shape (no rows) is described and dropped. Its errors quote the server's.
func (s *mySource) queryColumns(ctx context.Context, conn *sql.Conn, e srcEntry, stmt string) ([]mysqlColumn, error) {
	key := "query"
	if e.where != "" {
		key = "where_condition"
	}
	if s.conn.Database == "" {
		return nil, e.o.Errorf(key, "the url names no database, which reading a query needs (jdbc:mysql://host:port/database)")
	}
	const probe = "st_jdbc_probe"
	_, _ = conn.ExecContext(ctx, "DROP TEMPORARY TABLE IF EXISTS "+probe)
	if _, err := conn.ExecContext(ctx, "CREATE TEMPORARY TABLE "+probe+" AS SELECT * FROM ("+stmt+"\n) st_jdbc_shape LIMIT 0"); err != nil {
		return nil, e.o.Errorf(key, "MySQL rejects the query: %v", err)
	}
	defer conn.ExecContext(context.Background(), "DROP TEMPORARY TABLE IF EXISTS "+probe) //nolint:errcheck // a temporary table ends with the session anyway
	rows, err := conn.QueryContext(ctx, "SHOW FULL COLUMNS FROM "+probe)
	if err != nil {
		return nil, fmt.Errorf("%s: describe the query: %w", s.where, err)
	}
	return scanShowColumns(rows, e.o.Where())
}

// scanShowColumns maps the rows of SHOW FULL COLUMNS (Field, Type, Collation, Null, Key,
// Default, Extra, Privileges, Comment).
func scanShowColumns(rows *sql.Rows, where string) ([]mysqlColumn, error) {
	defer rows.Close()
	var out []mysqlColumn
	for rows.Next() {
		var field, typ, null string
		var collation, key, def, extra, priv, comment sql.NullString
		if err := rows.Scan(&field, &typ, &collation, &null, &key, &def, &extra, &priv, &comment); err != nil {
			return nil, fmt.Errorf("%s: describe the columns: %w", where, err)
		}
		c, err := mysqlColumnOf(field, typ)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		c.Nullable = null == "YES"
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: describe the columns: %w", where, err)
	}
	return out, nil
}

// mysqlColumnOf maps a column of the given type.
func mysqlColumnOf(name, typ string) (mysqlColumn, error) {
	mt, err := parseMySQLType(typ)
	if err != nil {
		return mysqlColumn{}, fmt.Errorf("column %s: %w", name, err)
	}
	return mt.column(name)
}

// checkStatement has the server check a SELECT without reading its rows.
func checkStatement(ctx context.Context, conn *sql.Conn, stmt string) error {
	rows, err := conn.QueryContext(ctx, "SELECT * FROM ("+stmt+"\n) st_jdbc_check LIMIT 0")
	if err != nil {
		return err
	}
	return rows.Close()
}

func mysqlTableExists(ctx context.Context, conn *sql.Conn, db, table string) (bool, error) {
	var n int
	err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", db, table).Scan(&n)
	return n > 0, err
}

// mysqlTableColumns reads a table's columns from the catalog, with their comments.
func mysqlTableColumns(ctx context.Context, conn *sql.Conn, db, table string) ([]mysqlColumn, error) {
	rows, err := conn.QueryContext(ctx, "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", db, table)
	if err != nil {
		return nil, fmt.Errorf("table %s.%s: read its columns: %w", db, table, err)
	}
	defer rows.Close()
	var out []mysqlColumn
	for rows.Next() {
		var name, typ, null, comment string
		if err := rows.Scan(&name, &typ, &null, &comment); err != nil {
			return nil, fmt.Errorf("table %s.%s: read its columns: %w", db, table, err)
		}
		c, err := mysqlColumnOf(name, typ)
		if err != nil {
			return nil, fmt.Errorf("table %s.%s: %w", db, table, err)
		}
		c.Nullable, c.Comment = null == "YES", comment
		out = append(out, c)
	}
	return out, rows.Err()
}

// mysqlTableKeys reads a table's primary key and its other indexes.
func mysqlTableKeys(ctx context.Context, conn *sql.Conn, db, table string, t *catalog.Table) error {
	rows, err := conn.QueryContext(ctx, "SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME, COALESCE(COLLATION, 'A') FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX", db, table)
	if err != nil {
		return err
	}
	defer rows.Close()
	byName := map[string]int{}
	for rows.Next() {
		var index, col, coll string
		var nonUnique int
		if err := rows.Scan(&index, &nonUnique, &col, &coll); err != nil {
			return err
		}
		if index == "PRIMARY" {
			if t.PrimaryKey == nil {
				t.PrimaryKey = &catalog.PrimaryKey{Name: index}
			}
			t.PrimaryKey.Columns = append(t.PrimaryKey.Columns, col)
			continue
		}
		i, ok := byName[index]
		if !ok {
			kind := "INDEX_KEY"
			if nonUnique == 0 {
				kind = "UNIQUE_KEY"
			}
			t.ConstraintKeys = append(t.ConstraintKeys, catalog.ConstraintKey{Name: index, Type: kind})
			i = len(t.ConstraintKeys) - 1
			byName[index] = i
		}
		sort := "ASC"
		if coll == "D" {
			sort = "DESC"
		}
		t.ConstraintKeys[i].Columns = append(t.ConstraintKeys[i].Columns, catalog.ConstraintCol{Name: col, Sort: sort})
	}
	return rows.Err()
}

// keepPresentKeys drops the keys some of whose columns the table does not read.
func keepPresentKeys(t *catalog.Table) {
	has := func(c string) bool { return t.ColumnIndex(c) >= 0 }
	if t.PrimaryKey != nil {
		for _, c := range t.PrimaryKey.Columns {
			if !has(c) {
				t.PrimaryKey = nil
				break
			}
		}
	}
	kept := t.ConstraintKeys[:0]
	for _, k := range t.ConstraintKeys {
		ok := true
		for _, c := range k.Columns {
			ok = ok && has(c.Name)
		}
		if ok {
			kept = append(kept, k)
		}
	}
	t.ConstraintKeys = kept
}

// simpleFrom finds the table of a query that reads one: select ... from [db.]table.
var simpleFrom = regexp.MustCompile("(?is)^\\s*select\\s.+?\\sfrom\\s+(`[^`]+`|\\w+)(?:\\.(`[^`]+`|\\w+))?\\s*(?:$|\\swhere\\s|\\sorder\\s|\\slimit\\s|;)")

// queryPath names a query's table as MySQL's JDBC driver reports its first column's:
// database.table of a query that reads one table, default.default.default otherwise.
func queryPath(query, db string) catalog.TablePath {
	m := simpleFrom.FindStringSubmatch(query)
	if m == nil {
		return catalog.TablePath{Database: "default", Schema: "default", Table: "default"}
	}
	if m[2] != "" {
		return catalog.TablePath{Database: unquoteMySQL(m[1]), Table: unquoteMySQL(m[2])}
	}
	return catalog.TablePath{Database: db, Table: unquoteMySQL(m[1])}
}

// mysqlSplitKind says how a column splits; ok is false for a type that does not.
func mysqlSplitKind(c *mysqlColumn, explicit bool) (keyKind, bool) {
	switch c.Type.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return keyInt, true
	case types.Decimal:
		if c.Type.Scale == 0 && c.Type.Precision <= 18 {
			return keyInt, true
		}
		return keyNumber, true
	case types.Float, types.Double:
		return keyNumber, true
	case types.String:
		return keyString, c.dec == myString && !strings.HasPrefix(c.SourceType, "json")
	case types.Date:
		return keyDate, true
	case types.Timestamp:
		return keyTime, explicit
	}
	return 0, false
}

// resolveSplit picks the table's split column as SeaTunnel does.
func (s *mySource) resolveSplit(t *myTable, e srcEntry, fixed bool) error {
	tbl := t.table
	t.fixed = fixed
	if e.partitionColumn != "" {
		i := tbl.ColumnIndex(e.partitionColumn)
		if i < 0 {
			return e.o.Errorf("partition_column", "column %q is not among the columns read (%s)", e.partitionColumn, srcColumnNames(tbl))
		}
		k, ok := mysqlSplitKind(&t.cols[i], true)
		if !ok {
			return e.o.Errorf("partition_column", "column %q is %s; Strait splits on numeric, string, date and timestamp columns", e.partitionColumn, t.cols[i].Type)
		}
		t.key, t.kind = tbl.Columns[i].Name, k
	} else if t.key = s.autoKey(t); t.key != "" {
		t.kind, _ = mysqlSplitKind(&t.cols[tbl.ColumnIndex(t.key)], false)
	}
	if t.key != "" {
		t.null = tbl.Columns[tbl.ColumnIndex(t.key)].Nullable
		t.charset = t.kind == keyString && s.tuning.charset && !fixed
	}
	if !fixed {
		return nil
	}
	t.parts = s.parallelism
	if e.partitionNum > 0 {
		t.parts = int(min(e.partitionNum, 1<<20))
	}
	t.lower, t.upper = e.lower, e.upper
	if t.kind != keyInt {
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

// autoKey is the first column of the primary key, else of a unique index, that splits.
func (s *mySource) autoKey(t *myTable) string {
	return firstKeyColumn(t.table, func(i int) bool {
		_, ok := mysqlSplitKind(&t.cols[i], false)
		return ok
	})
}

// Boundedness: the source reads its tables once.
func (s *mySource) Boundedness() connector.Boundedness { return connector.Bounded }

// Tables lists the tables the source reads, in the order of the options.
func (s *mySource) Tables() []*catalog.Table {
	out := make([]*catalog.Table, len(s.tables))
	for i, t := range s.tables {
		out[i] = t.table
	}
	return out
}

// CreateEnumerator makes the enumerator, which plans the splits when the job starts.
func (s *mySource) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	return newSourceEnumerator(s.where, s.plan, ctx, state)
}
