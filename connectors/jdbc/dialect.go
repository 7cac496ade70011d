package jdbc

import (
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
)

// dialect is what the SQL of one database kind differs in: how names are quoted, how a row
// is upserted, and which column type a SeaTunnel type is created as. The dialect is chosen
// from the JDBC url (jdbc:postgresql:, jdbc:mysql:, jdbc:mariadb:); the driver option, when
// set, must name a driver of that database.
//
// The PostgreSQL dialect (dialect_pg.go) reads and writes through pgx (source.go,
// writer.go: COPY, arrays bound to unnest, PREPARE TRANSACTION); the MySQL dialect
// (dialect_mysql.go) through go-sql-driver/mysql (mysql_*.go: multi-row INSERTs, XA).
type dialect interface {
	// name is the database kind, as errors and logs name it.
	name() string
	// quoteIdent quotes one identifier.
	quoteIdent(s string) string
	// upsertClause is what follows an INSERT INTO t (cols) VALUES ... so that a row whose
	// key exists updates it: cols are the quoted columns, pk the indexes of the key's.
	upsertClause(cols []string, pk []int) string
	// columnType is the column type a SeaTunnel column is created as.
	columnType(col catalog.Column) (string, error)
}

// The JDBC url prefixes and driver classes of the dialects.
const (
	pgPrefix      = "jdbc:postgresql:"
	mysqlPrefix   = "jdbc:mysql:"
	mariadbPrefix = "jdbc:mariadb:"
)

// driverClasses are the JDBC drivers each dialect accepts in the driver option.
var driverClasses = map[string][]string{
	dialectPostgres: {postgresDriver},
	dialectMySQL:    {"com.mysql.cj.jdbc.Driver", "com.mysql.jdbc.Driver", "org.mariadb.jdbc.Driver"},
}

// Names of the dialects.
const (
	dialectPostgres = "PostgreSQL"
	dialectMySQL    = "MySQL"
)

// dialectName picks the dialect of a JDBC url and checks that driver (when set) is one of
// its drivers. Its errors name the option at fault.
func dialectName(o *config.Options, url, driver string) (string, error) {
	u := strings.ToLower(strings.TrimSpace(url))
	var name string
	switch {
	case strings.HasPrefix(u, pgPrefix):
		name = dialectPostgres
	case strings.HasPrefix(u, mysqlPrefix), strings.HasPrefix(u, mariadbPrefix):
		name = dialectMySQL
	default:
		return "", o.Errorf("url", "%q is not a PostgreSQL JDBC url (jdbc:postgresql://host:port/database), nor a MySQL or MariaDB one (jdbc:mysql://host:port/database, jdbc:mariadb://...)", url)
	}
	d := strings.TrimSpace(driver)
	if d == "" {
		return name, nil
	}
	for _, c := range driverClasses[name] {
		if d == c {
			return name, nil
		}
	}
	return "", o.Errorf("driver", "the url is a %s url, whose drivers are %s; %q is not supported", name, strings.Join(driverClasses[name], ", "), driver)
}

// isMySQL reports whether the options connect to MySQL or MariaDB (a url that is neither
// dialect's is left to the PostgreSQL path, whose errors name it).
func isMySQL(c *ConnOptions) bool {
	u := strings.ToLower(strings.TrimSpace(c.URL))
	return strings.HasPrefix(u, mysqlPrefix) || strings.HasPrefix(u, mariadbPrefix)
}
