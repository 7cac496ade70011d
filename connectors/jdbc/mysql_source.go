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
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// The source's MySQL and MariaDB driver. It reads what the Source documentation
// describes, with MySQL's catalog: a table_path is database.table (or table, in the url's
// database), a query's columns are typed by the server (a temporary table of its shape,
// LIMIT 0), and a split's rows stream from the server as they are read.

func (c *myConn) dbName() string                { return c.Database }
func (c *myConn) connectTimeout() time.Duration { return c.Timeout }

// collated leaves the column as it is: charset_based bounds are compared byte by byte
// (condition).
func (c *myConn) collated(expr, _ string) string { return expr }

// openSource opens a connection of the source.
func (c *myConn) openSource(ctx context.Context) (sourceConn, error) {
	db, err := c.open(ctx, 1)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &mySourceConn{cfg: c, db: db, conn: conn}, nil
}

// mySourceConn is a connection the source describes tables and plans splits on.
type mySourceConn struct {
	cfg  *myConn
	db   *sql.DB
	conn *sql.Conn
}

func (c *mySourceConn) close() {
	c.conn.Close()
	c.db.Close()
}

// mysqlColumns are the columns of a table read from MySQL.
type mysqlColumns []mysqlColumn

// splitMySQLPath reads database.table or table (in the url's database).
func splitMySQLPath(p, database string) (db, table string, err error) {
	parts := strings.Split(p, ".")
	switch len(parts) {
	case 1:
		db, table = database, parts[0]
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

// resolve learns one table's columns, keys and statement from MySQL's catalog.
func (c *mySourceConn) resolve(ctx context.Context, where string, e srcEntry, _ bool) (*srcTable, error) {
	conn := c.conn
	t := &srcTable{}
	var cols mysqlColumns
	tbl := &catalog.Table{}
	var dbName, name string
	exists := false
	if e.tablePath != "" {
		var err error
		if dbName, name, err = splitMySQLPath(e.tablePath, c.cfg.Database); err != nil {
			return nil, e.o.Errorf("table_path", "%v", err)
		}
		tbl.Path = catalog.TablePath{Database: dbName, Table: name}
		if exists, err = mysqlTableExists(ctx, conn, dbName, name); err != nil {
			return nil, fmt.Errorf("%s: look up table %s.%s: %w", where, dbName, name, err)
		}
		if !exists && e.query == "" {
			return nil, e.o.Errorf("table_path", "table %s does not exist in database %s", name, dbName)
		}
	}
	fromTable := e.query == ""
	base := "SELECT * FROM " + mysqlQuote(dbName) + "." + mysqlQuote(name)
	if !fromTable {
		base = e.fromQuery()
	}
	t.sql = e.filtered(base)
	var err error
	if fromTable {
		if cols, err = mysqlTableColumns(ctx, conn, dbName, name); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if e.where == "" {
			t.rel = mysqlQuote(dbName) + "." + mysqlQuote(name)
		} else if err = checkStatement(ctx, conn, t.sql); err != nil {
			return nil, e.o.Errorf("where_condition", "MySQL rejects %q: %v", e.where, err)
		}
	} else {
		cols, err = c.queryColumns(ctx, where, e, t.sql)
	}
	if err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, e.o.Errorf("query", "the query returns no columns")
	}
	t.cols = cols
	for _, c := range cols {
		tbl.Columns = append(tbl.Columns, c.Column)
	}
	if e.tablePath == "" {
		tbl.Path = queryPath(e.query, c.cfg.Database)
	}
	if exists {
		if err := mysqlTableKeys(ctx, conn, dbName, name, tbl); err != nil {
			return nil, fmt.Errorf("%s: read the keys of %s.%s: %w", where, dbName, name, err)
		}
	}
	t.table = tbl
	return t, nil
}

// queryColumns types the columns of a statement as the server does: a temporary table of
// its shape (no rows) is described and dropped. Its errors quote the server's.
func (c *mySourceConn) queryColumns(ctx context.Context, where string, e srcEntry, stmt string) ([]mysqlColumn, error) {
	conn := c.conn
	key := "query"
	if e.where != "" {
		key = "where_condition"
	}
	if c.cfg.Database == "" {
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
		return nil, fmt.Errorf("%s: describe the query: %w", where, err)
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

// splitKey says how a column splits.
func (cols mysqlColumns) splitKey(i int, explicit bool) (splitKey, bool) {
	c := &cols[i]
	k := splitKey{expr: mysqlQuote(c.Name)}
	switch c.Type.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		k.kind = keyInt
	case types.Decimal:
		k.kind = keyNumber
		if c.Type.Scale == 0 && c.Type.Precision <= 18 {
			k.kind = keyInt
		}
	case types.Float, types.Double:
		k.kind = keyNumber
	case types.String:
		k.kind = keyString
		return k, c.dec == myString && !strings.HasPrefix(c.SourceType, "json")
	case types.Date:
		k.kind = keyDate
	case types.Timestamp:
		k.kind = keyTime
		return k, explicit
	default:
		return k, false
	}
	return k, true
}

// myCursor reads splits through the driver's text protocol: the driver reads a row off the
// socket when the next one is wanted, and each column decodes its raw bytes.
type myCursor struct {
	cfg  *myConn
	db   *sql.DB
	conn *sql.Conn
	rows *sql.Rows
	raw  []sql.RawBytes
	ptrs []any
}

func (c *myConn) newCursor() splitCursor { return &myCursor{cfg: c} }

func (c *myCursor) start(ctx context.Context, stmt string, t *srcTable) error {
	if c.conn == nil {
		db, err := c.cfg.open(ctx, 1)
		if err != nil {
			return err
		}
		conn, err := db.Conn(ctx)
		if err != nil {
			db.Close()
			return err
		}
		c.db, c.conn = db, conn
	}
	rows, err := c.conn.QueryContext(ctx, stmt)
	if err != nil {
		return err
	}
	c.rows = rows
	n := len(t.cols.(mysqlColumns))
	if cap(c.raw) < n {
		c.raw, c.ptrs = make([]sql.RawBytes, n), make([]any, n)
	}
	c.raw, c.ptrs = c.raw[:n], c.ptrs[:n]
	for i := range c.raw {
		c.ptrs[i] = &c.raw[i]
	}
	return nil
}

func (c *myCursor) read(out *row.Batch, t *srcTable) (bool, error) {
	cols := t.cols.(mysqlColumns)
	for !out.Full() {
		if !c.rows.Next() {
			err := c.rows.Err()
			c.rows.Close()
			c.rows = nil
			return err == nil, err
		}
		if err := c.rows.Scan(c.ptrs...); err != nil {
			return false, err
		}
		rw := out.Add(row.Insert, t.id, len(cols))
		for i := range cols {
			if err := cols[i].decode(&rw.Fields[i], c.raw[i]); err != nil {
				return false, connector.Permanent(fmt.Errorf("column %s: %w", cols[i].Name, err))
			}
		}
	}
	return false, nil
}

func (c *myCursor) close() {
	if c.rows != nil {
		c.rows.Close()
		c.rows = nil
	}
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
	if c.db != nil {
		c.db.Close()
		c.db = nil
	}
}
