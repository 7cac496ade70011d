package jdbc

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// PostgreSQL's JDBC driver class.
const postgresDriver = "org.postgresql.Driver"

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
	for _, k := range c.propertyNames() {
		cc.Property(k, c.Properties[k])
	}
	if cc.Timeout, cc.Retries, err = c.attempts(); err != nil {
		return nil, err
	}
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
