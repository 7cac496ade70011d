package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// myConn is how to reach a MySQL or MariaDB server: the driver's configuration made from
// the JDBC url, the user and password options and the properties.
type myConn struct {
	mysqlDialect
	cfg      *mysql.Config
	Database string // the url's database, "" when it names none
	Timeout  time.Duration
	Retries  int
}

// mysqlProps say what each of Connector/J's (and MariaDB Connector/J's) connection
// properties does here; the ones not listed are accepted and have no effect.
var mysqlProps = map[string]func(c *myConn, v string) error{
	"user":     func(c *myConn, v string) error { c.cfg.User = v; return nil },
	"password": func(c *myConn, v string) error { c.cfg.Passwd = v; return nil },
	"useSSL": func(c *myConn, v string) error {
		if isTrue(v) {
			c.setTLS("skip-verify")
		} else {
			c.setTLS("false")
		}
		return nil
	},
	"requireSSL": func(c *myConn, v string) error {
		if isTrue(v) && c.cfg.TLSConfig == "false" {
			c.setTLS("skip-verify")
		}
		return nil
	},
	"verifyServerCertificate": func(c *myConn, v string) error {
		if isTrue(v) && c.cfg.TLSConfig != "false" {
			c.setTLS("true")
		}
		return nil
	},
	"sslMode": func(c *myConn, v string) error {
		switch strings.ToUpper(v) {
		case "DISABLED":
			c.setTLS("false")
		case "PREFERRED":
			c.setTLS("preferred")
		case "REQUIRED":
			c.setTLS("skip-verify")
		case "VERIFY_CA", "VERIFY_IDENTITY":
			c.setTLS("true")
		default:
			return fmt.Errorf("sslMode %q: want DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY", v)
		}
		return nil
	},
	"connectTimeout": func(c *myConn, v string) error {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return fmt.Errorf("connectTimeout %q: want milliseconds", v)
		}
		if ms > 0 {
			c.cfg.Timeout = time.Duration(ms) * time.Millisecond
		}
		return nil
	},
	"socketTimeout": func(c *myConn, v string) error {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return fmt.Errorf("socketTimeout %q: want milliseconds", v)
		}
		c.cfg.ReadTimeout = time.Duration(ms) * time.Millisecond
		c.cfg.WriteTimeout = c.cfg.ReadTimeout
		return nil
	},
	"characterEncoding": func(c *myConn, v string) error {
		switch strings.ToLower(strings.ReplaceAll(v, "-", "")) {
		case "utf8", "utf8mb4", "utf8mb3":
			return nil
		}
		return fmt.Errorf("characterEncoding %q: Strait exchanges text with the server in utf8mb4 (UTF-8) only", v)
	},
	"sessionVariables": func(c *myConn, v string) error {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return fmt.Errorf("sessionVariables %q: want name=value,...", v)
			}
			c.cfg.Params[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
		return nil
	},
}

// mysqlNoEffect are the connection properties SeaTunnel's configs set that the Go driver
// has no use for; they are accepted in silence. Any other unknown property is accepted and
// logged once per connection configuration by the caller.
var mysqlNoEffect = map[string]bool{
	"rewriteBatchedStatements": true, "useUnicode": true, "serverTimezone": true, "connectionTimeZone": true,
	"zeroDateTimeBehavior": true, "allowPublicKeyRetrieval": true, "useServerPrepStmts": true, "cachePrepStmts": true,
	"prepStmtCacheSize": true, "prepStmtCacheSqlLimit": true, "allowMultiQueries": true, "autoReconnect": true,
	"useInformationSchema": true, "nullCatalogMeansCurrent": true, "tinyInt1isBit": true, "transformedBitIsBoolean": true,
	"useCursorFetch": true, "defaultFetchSize": true, "preserveInstants": true, "forceConnectionTimeZoneToSession": true,
	"useLegacyDatetimeCode": true, "useJDBCCompliantTimezoneShift": true, "serverRsaPublicKeyFile": true,
	"failOverReadOnly": true, "maxReconnects": true, "initialTimeout": true, "permitMysqlScheme": true,
}

func isTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

func (c *myConn) setTLS(mode string) { c.cfg.TLSConfig = mode }

// parseMySQLURL reads jdbc:mysql://host[:port][/database][?property=value&...] (and
// jdbc:mariadb:), the properties applied in order after the url's.
func parseMySQLURL(raw string) (*myConn, []string, error) {
	s := strings.TrimSpace(raw)
	lower := strings.ToLower(s)
	var rest string
	switch {
	case strings.HasPrefix(lower, mysqlPrefix):
		rest = s[len(mysqlPrefix):]
	case strings.HasPrefix(lower, mariadbPrefix):
		rest = s[len(mariadbPrefix):]
	default:
		return nil, nil, fmt.Errorf("%q is not a MySQL JDBC url (jdbc:mysql://host:port/database)", raw)
	}
	if !strings.HasPrefix(rest, "//") {
		return nil, nil, fmt.Errorf("%q: want jdbc:mysql://host:port/database", raw)
	}
	u, err := url.Parse("mysql:" + rest)
	if err != nil {
		return nil, nil, fmt.Errorf("%q: %v", raw, err)
	}
	if strings.Contains(u.Host, ",") || strings.Contains(u.Host, "(") {
		return nil, nil, fmt.Errorf("%q: several hosts are not supported", raw)
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "localhost"
	}
	if port == "" {
		port = "3306"
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return nil, nil, fmt.Errorf("%q: bad port %q", raw, port)
	}
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	cfg.Params = map[string]string{}
	c := &myConn{cfg: cfg, Database: strings.Trim(u.Path, "/")}
	cfg.DBName = c.Database
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	var unknown []string
	q := u.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if bad, err := c.property(k, q.Get(k)); err != nil {
			return nil, nil, fmt.Errorf("%q: %v", raw, err)
		} else if bad {
			unknown = append(unknown, k)
		}
	}
	return c, unknown, nil
}

// property applies one connection property; unknown reports one that is neither mapped nor
// known to have no effect.
func (c *myConn) property(k, v string) (unknown bool, err error) {
	if f := mysqlProps[k]; f != nil {
		return false, f(c, v)
	}
	return !mysqlNoEffect[k], nil
}

// mysqlConnOf checks the connection options of a MySQL or MariaDB database.
func mysqlConnOf(c *ConnOptions) (*myConn, error) {
	o := c.At
	if _, err := driverOf(o, c.URL, c.Driver); err != nil {
		return nil, err
	}
	mc, unknown, err := parseMySQLURL(c.URL)
	if err != nil {
		return nil, o.Errorf("url", "%v", err)
	}
	if c.User != "" {
		mc.cfg.User = c.User
	}
	if c.Password != nil {
		mc.cfg.Passwd = *c.Password
	}
	for _, k := range c.propertyNames() {
		bad, err := mc.property(k, c.Properties[k])
		if err != nil {
			return nil, o.Errorf("properties", "%v", err)
		}
		if bad {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slog.Info("MySQL connection properties without effect", "where", o.Where(), "properties", strings.Join(unknown, ", "))
	}
	if mc.Timeout, mc.Retries, err = c.attempts(); err != nil {
		return nil, err
	}
	if mc.cfg.Timeout == 0 {
		mc.cfg.Timeout = mc.Timeout
	}
	// what every session of the connector relies on: UTF-8 text, timestamps read and
	// written in UTC, statements of many rows, values interpolated as literals (the text
	// protocol, whose values stream)
	mc.cfg.Params["time_zone"] = "'+00:00'"
	mc.cfg.Collation = "utf8mb4_general_ci"
	mc.cfg.MultiStatements = true
	mc.cfg.InterpolateParams = true
	mc.cfg.ParseTime = false
	return mc, nil
}

// Addr is the server's address, as errors name it.
func (c *myConn) Addr() string { return c.cfg.Addr }

// open opens a pool of at most n connections and checks that one connects, trying again
// up to max_retries times a second apart.
func (c *myConn) open(ctx context.Context, n int) (*sql.DB, error) {
	conn, err := mysql.NewConnector(c.cfg)
	if err != nil {
		return nil, fmt.Errorf("jdbc: %s: %w", c.cfg.Addr, err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, c.Timeout)
		err = db.PingContext(pctx)
		cancel()
		if err == nil {
			return db, nil
		}
		if attempt >= c.Retries || refusedLogin(err) {
			break
		}
		select {
		case <-ctx.Done():
			db.Close()
			return nil, fmt.Errorf("jdbc: connect to %s as %s: %w", c.cfg.Addr, c.cfg.User, ctx.Err())
		case <-time.After(time.Second):
		}
	}
	db.Close()
	return nil, fmt.Errorf("jdbc: connect to %s as %s: %w", c.cfg.Addr, c.cfg.User, err)
}

// refusedLogin reports an error no retry cures: the server refused the user or the
// database.
func refusedLogin(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1044, 1045, 1049, 1698: // access denied, unknown database
		return true
	}
	return false
}

// mysqlRefused reports whether the server refused statements for what they hold (bad
// data, a broken constraint, an unknown table or column, a syntax error, a denied
// privilege): running them again cannot succeed.
func mysqlRefused(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch {
	case me.Number == 1062 || me.Number == 1048 || me.Number == 1054 || me.Number == 1146 || me.Number == 1064:
		return true
	case me.Number == 1142 || me.Number == 1143 || me.Number == 1264 || me.Number == 1265 || me.Number == 1292 || me.Number == 1366 || me.Number == 1406:
		return true
	case me.Number == 1451 || me.Number == 1452 || me.Number == 3819 || me.Number == 4025:
		// a foreign key, a CHECK constraint (MySQL's number, then MariaDB's)
		return true
	}
	return false
}
