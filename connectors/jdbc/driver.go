package jdbc

import (
	"context"
	"strings"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
)

// The Jdbc connector is a core and a driver per kind of database. The core is what every
// database shares: the options, the tables a source reads and how they split
// (splitplan.go), the reader's queue of splits (reader.go), the sink's save modes, the
// buffer that reduces a changelog by key (rowbuf.go), checkpoints, exactly-once and schema
// changes. A driver is a connection configuration that implements the interfaces below
// (database); PostgreSQL's is connConfig (pg_*.go, on pgx), MySQL's and MariaDB's myConn
// (mysql_*.go, on go-sql-driver/mysql). The driver of a job is picked by its url (drivers).

// database is one database's connection configuration and what its SQL differs in.
type database interface {
	dialect
	sourceDB
	sinkDB
}

// dialect is what the SQL of one database kind differs in: how names are quoted, how a row
// is upserted, and which column type a SeaTunnel type is created as.
type dialect interface {
	// name is the database kind, as errors and logs name it.
	name() string
	// quoteIdent quotes one identifier.
	quoteIdent(s string) string
	// quoteTable quotes a table's name (PostgreSQL's schema.table, MySQL's database.table).
	quoteTable(t pgwire.TableName) string
	// upsertClause is what follows an INSERT INTO t (cols) VALUES ... so that a row whose
	// key exists updates it: cols are the quoted columns, pk the indexes of the key's.
	upsertClause(cols []string, pk []int) string
	// columnType is the column type a SeaTunnel column is created as.
	columnType(col catalog.Column) (string, error)
}

// sourceDB is what the source asks of a driver.
type sourceDB interface {
	// dbName is the url's database, "" when it names none.
	dbName() string
	// connectTimeout bounds an attempt to connect (connection_check_timeout_sec).
	connectTimeout() time.Duration
	// openSource opens a connection to describe tables and plan splits on; its errors name
	// the server.
	openSource(ctx context.Context) (sourceConn, error)
	// collated is a string split column's expression compared in a collation (the
	// charset_based splitting's).
	collated(expr, collation string) string
	// text is the SQL of an expression's value as text (splitting reads values as text).
	text(expr string, kind keyKind) string
	// literal is a split column's value as an SQL literal.
	literal(kind keyKind, v string) string
	// boundExpr is what a split's bounds are compared with: the split column's expression,
	// as t's split key says.
	boundExpr(t *srcTable) string
	// hashCondition keeps the rows of a string column col whose hash is h modulo mod.
	hashCondition(col string, mod, h int) string
	// newCursor makes what one reader reads its splits with.
	newCursor() splitCursor
}

// sinkDB is what the sink asks of a driver.
type sinkDB interface {
	// bindQuery reads the placeholders of a sink's query: n positional ones (?), else the
	// fields of the named ones (:field) in order; q is the query as the writer runs it.
	bindQuery(query string) (q sinkQuery, n int, names []string, err error)
	// target is the table the sink writes, from the database and table options (table as
	// the options or the input name it, its prefix, suffix and field_ide not applied yet).
	target(sc *SinkConfig, table string) (pgwire.TableName, error)
	// openSink opens a connection to prepare the table and commit prepared transactions on.
	openSink(ctx context.Context) (sinkConn, error)
	// newWriter connects a writer of config c; restored from states, it first settles the
	// prepared transactions they list and those its subtask left behind.
	newWriter(c *sinkConfig, ctx connector.WriterContext, states [][]byte) (connector.Writer, error)
}

// sinkConn is a connection of the sink's setup and committer.
type sinkConn interface {
	// tableExists looks the target up.
	tableExists(ctx context.Context, c *sinkConfig) (bool, error)
	exec(ctx context.Context, q string) error
	queryRow(ctx context.Context, q string, args ...any) rowScanner
	// createTable creates the target from the input's columns and key.
	createTable(ctx context.Context, c *sinkConfig) error
	commitPrepared(ctx context.Context, gid string) error
	rollbackPrepared(ctx context.Context, gid string) error
	close()
}

// sinkQuery is a sink's query as its driver runs it: PostgreSQL's text with $n
// placeholders, or MySQL's parts, between which each row's literals go.
type sinkQuery struct {
	sql   string
	parts []string
}

// sourceConn is a connection of the source: it learns a table's columns and keys, and
// runs the queries of split planning (those the core writes with the sourceDB's SQL, and
// its own).
type sourceConn interface {
	// resolve learns the columns, keys and statement of the table e names.
	resolve(ctx context.Context, where string, e srcEntry, narrow bool) (*srcTable, error)
	// queryRow runs a query of one row.
	queryRow(ctx context.Context, q string, args ...any) rowScanner
	// estimate is a table's row count by its statistics, 0 when they say nothing.
	estimate(ctx context.Context, t *srcTable) (int64, error)
	// days counts the days from lo to hi, both included.
	days(ctx context.Context, lo, hi string) (int64, error)
	// dayBounds are the dates lo + step, lo + 2 step, ..., n of them.
	dayBounds(ctx context.Context, lo string, step, n int64) ([]string, error)
	// evenBounds are the n-1 boundaries that cut the dates or timestamps lo..hi into n
	// ranges of even width.
	evenBounds(ctx context.Context, t *srcTable, lo, hi string, n int) ([]string, error)
	// sample reads every rate-th value of the split column, in order; ok is false when
	// the driver does not sample (boundaries are queried split by split instead).
	sample(ctx context.Context, t *srcTable, rate int64) (values []string, ok bool, err error)
	// fewRowsOneSplit: a table whose estimate is at most split.size rows is read whole,
	// whatever its split column.
	fewRowsOneSplit() bool
	// explain is a server's error as split planning reports it.
	explain(err error) error
	close()
}

// rowScanner is a row of a query's result (pgx.Row, *sql.Row).
type rowScanner interface{ Scan(dest ...any) error }

// columnSet is a driver's columns of a table read: how each decodes and splits.
type columnSet interface {
	// splitKey says how the i-th column splits; ok is false for a type that does not.
	// explicit is a partition_column's (which may be a timestamp).
	splitKey(i int, explicit bool) (k splitKey, ok bool)
}

// splitCursor reads the rows of one split after another, on one connection it opens for
// the first.
type splitCursor interface {
	// start runs a split's statement.
	start(ctx context.Context, sql string, t *srcTable) error
	// read decodes rows of the running statement into out until out is full or the
	// statement ends (done).
	read(out *row.Batch, t *srcTable) (done bool, err error)
	// close closes the connection without reading the rest of a result.
	close()
}

// The JDBC url prefixes and driver classes of the dialects.
const (
	pgPrefix      = "jdbc:postgresql:"
	mysqlPrefix   = "jdbc:mysql:"
	mariadbPrefix = "jdbc:mariadb:"
)

// Names of the dialects.
const (
	dialectPostgres = "PostgreSQL"
	dialectMySQL    = "MySQL"
)

// driverKind is one kind of database: the url prefixes and JDBC driver classes that name
// it, and how its connection options are read.
type driverKind struct {
	name     string
	prefixes []string
	classes  []string
	open     func(c *ConnOptions) (database, error)
}

// drivers are the databases Jdbc reaches, by url (set in init: their configurations check
// the url against them).
var drivers []driverKind

func init() {
	drivers = []driverKind{
		{name: dialectPostgres, prefixes: []string{pgPrefix}, classes: []string{postgresDriver},
			open: func(c *ConnOptions) (database, error) { return connOf(c) }},
		{name: dialectMySQL, prefixes: []string{mysqlPrefix, mariadbPrefix},
			classes: []string{"com.mysql.cj.jdbc.Driver", "com.mysql.jdbc.Driver", "org.mariadb.jdbc.Driver"},
			open:    func(c *ConnOptions) (database, error) { return mysqlConnOf(c) }},
	}
}

// driverOf picks the driver of a JDBC url and checks that driver (when set) is one of its
// classes. Its errors name the option at fault.
func driverOf(o *config.Options, url, driver string) (*driverKind, error) {
	u := strings.ToLower(strings.TrimSpace(url))
	var k *driverKind
	for i := range drivers {
		for _, p := range drivers[i].prefixes {
			if strings.HasPrefix(u, p) {
				k = &drivers[i]
			}
		}
	}
	if k == nil {
		return nil, o.Errorf("url", "%q is not a PostgreSQL JDBC url (jdbc:postgresql://host:port/database), nor a MySQL or MariaDB one (jdbc:mysql://host:port/database, jdbc:mariadb://...)", url)
	}
	d := strings.TrimSpace(driver)
	if d == "" {
		return k, nil
	}
	for _, c := range k.classes {
		if d == c {
			return k, nil
		}
	}
	return nil, o.Errorf("driver", "the url is a %s url, whose drivers are %s; %q is not supported", k.name, strings.Join(k.classes, ", "), driver)
}

// databaseOf reads the connection options into the configuration of their database.
func databaseOf(c *ConnOptions) (database, error) {
	k, err := driverOf(c.At, c.URL, c.Driver)
	if err != nil {
		return nil, err
	}
	return k.open(c)
}
