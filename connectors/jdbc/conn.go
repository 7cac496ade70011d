package jdbc

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// PostgreSQL's JDBC driver class, the one driver this connector speaks for.
const postgresDriver = "org.postgresql.Driver"

// connConfig is how to reach the database: SeaTunnel's url, driver, user, password,
// properties and connection_check_timeout_sec.
type connConfig struct {
	pgwire.ConnConfig
}

// parseConn reads the connection options shared by the source and the sink.
func parseConn(o *config.Options) (*connConfig, error) {
	raw, err := o.RequiredString("url")
	if err != nil {
		return nil, err
	}
	driver, err := o.String("driver", postgresDriver)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(driver) != postgresDriver {
		return nil, o.Errorf("driver", "Strait's Jdbc connector speaks to PostgreSQL (%s); %q is not supported", postgresDriver, driver)
	}
	pc, err := pgwire.ParseURL(raw)
	if err != nil {
		return nil, o.Errorf("url", "%v", err)
	}
	c := &connConfig{ConnConfig: *pc}
	// user and password options win over the url's
	if u, err := o.String("user", ""); err != nil {
		return nil, err
	} else if u != "" {
		c.User = u
	}
	if p, err := o.String("password", ""); err != nil {
		return nil, err
	} else if o.Has("password") {
		c.Password = p
	}
	if o.Has("properties") {
		props, err := o.Object("properties")
		if err != nil {
			return nil, err
		}
		for _, k := range props.Keys() {
			v, err := props.String(k, "")
			if err != nil {
				return nil, err
			}
			c.Property(k, v)
		}
	}
	secs, err := o.Int("connection_check_timeout_sec", 30)
	if err != nil {
		return nil, err
	}
	if secs < 1 {
		return nil, o.Errorf("connection_check_timeout_sec", "must be at least 1, got %d", secs)
	}
	c.Timeout = time.Duration(secs) * time.Second
	retries, err := o.Int("max_retries", 0)
	if err != nil {
		return nil, err
	}
	if retries < 0 {
		return nil, o.Errorf("max_retries", "must not be negative, got %d", retries)
	}
	c.Retries = int(retries)
	// options of JDBC drivers that have no meaning here
	o.MarkUsed("compatible_mode", "dialect", "fetch_size", "xa_data_source_class_name")
	return c, nil
}

// connect opens a connection, trying again up to max_retries times a second apart.
func (c *connConfig) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := c.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("jdbc: %w", err)
	}
	return conn, nil
}
