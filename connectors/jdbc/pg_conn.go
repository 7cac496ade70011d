package jdbc

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// PostgreSQL's JDBC driver class.
const postgresDriver = "org.postgresql.Driver"

// ConnOptions are the options of the source and the sink that say how to reach the database.
type ConnOptions struct {
	URL        string            `opt:"url,required" doc:"the database: jdbc:postgresql://host:port/database, jdbc:mysql://host:port/database or jdbc:mariadb://host:port/database, with the driver's connection properties after ? (currentSchema, sslmode, useSSL, serverTimezone, ...)"`
	Driver     string            `opt:"driver" doc:"the JDBC driver class; Strait speaks the databases' protocols itself, so it only has to match the url: org.postgresql.Driver, or com.mysql.cj.jdbc.Driver, com.mysql.jdbc.Driver or org.mariadb.jdbc.Driver; default the url's"`
	User       string            `opt:"user" doc:"the user to connect as; wins over the url's"`
	Password   *string           `opt:"password,secret" doc:"the user's password; wins over the url's"`
	Properties map[string]string `opt:"properties" doc:"connection properties of the JDBC driver, applied after the url's: for PostgreSQL user, password, currentSchema, applicationName, options, ssl, sslmode; for MySQL user, password, useSSL, sslMode, requireSSL, verifyServerCertificate, serverTimezone, connectionTimeZone, characterEncoding, connectTimeout, socketTimeout, sessionVariables; the drivers' others have no meaning here"`
	Timeout    int64             `opt:"connection_check_timeout_sec" default:"30" doc:"seconds an attempt to connect may take, and the bound of the checks of the database while the job is planned"`
	MaxRetries int64             `opt:"max_retries" default:"0" doc:"further attempts to connect when one fails, a second apart"`

	CompatibleMode string `opt:"compatible_mode,noeffect" doc:"the compatible mode of databases that speak several dialects; Strait's dialect follows the url"`
	Dialect        string `opt:"dialect,noeffect" doc:"the SQL dialect; Strait's dialect follows the url"`
	XADataSource   string `opt:"xa_data_source_class_name,noeffect" doc:"the XA data source of exactly-once writes; Strait speaks XA to MySQL itself (XA START, END, PREPARE, COMMIT) and uses PostgreSQL's prepared transactions"`

	At *config.Options `opt:"."`
}

// connConfig is how to reach the database: SeaTunnel's url, driver, user, password,
// properties and connection_check_timeout_sec.
type connConfig struct {
	pgwire.ConnConfig
	pgDialect
}

// connOf checks the connection options shared by the source and the sink.
func connOf(c *ConnOptions) (*connConfig, error) {
	o := c.At
	if _, err := driverOf(o, c.URL, c.Driver); err != nil {
		return nil, err
	}
	pc, err := pgwire.ParseURL(c.URL)
	if err != nil {
		return nil, o.Errorf("url", "%v", err)
	}
	cc := &connConfig{ConnConfig: *pc}
	// user and password options win over the url's
	if c.User != "" {
		cc.User = c.User
	}
	if c.Password != nil {
		cc.Password = *c.Password
	}
	keys := make([]string, 0, len(c.Properties))
	for k := range c.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cc.Property(k, c.Properties[k])
	}
	if c.Timeout < 1 {
		return nil, o.Errorf("connection_check_timeout_sec", "must be at least 1, got %d", c.Timeout)
	}
	cc.Timeout = time.Duration(c.Timeout) * time.Second
	if c.MaxRetries < 0 || c.MaxRetries > math.MaxInt32 {
		return nil, o.Errorf("max_retries", "must be between 0 and %d, got %d", math.MaxInt32, c.MaxRetries)
	}
	cc.Retries = int(c.MaxRetries)
	return cc, nil
}

// connect opens a connection, trying again up to max_retries times a second apart. Its
// errors name the host and port.
func (c *connConfig) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := c.Connect(ctx)
	if err != nil {
		if err == ctx.Err() {
			// given up between attempts: the error is the context's alone
			return nil, fmt.Errorf("jdbc: connect to %s as %s: %w", c.Addr(), c.User, err)
		}
		return nil, fmt.Errorf("jdbc: %w", err)
	}
	return conn, nil
}

// planContext is the context a factory checks the database within: its caller's planning
// deadline, or none for a caller that has no context to give.
func planContext(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
