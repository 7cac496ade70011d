package jdbc

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/config"
)

// PostgreSQL's JDBC driver class, the one driver this connector speaks for.
const postgresDriver = "org.postgresql.Driver"

// connConfig is how to reach the database: SeaTunnel's url, driver, user, password,
// properties and connection_check_timeout_sec.
type connConfig struct {
	url      string // as configured, for messages
	host     string
	port     uint16
	database string
	user     string
	password string
	params   map[string]string // run-time parameters (search_path, application_name)
	sslmode  string
	timeout  time.Duration
	retries  int
}

// parseConn reads the connection options shared by the source and the sink.
func parseConn(o *config.Options) (*connConfig, error) {
	c := &connConfig{params: map[string]string{}}
	var err error
	if c.url, err = o.RequiredString("url"); err != nil {
		return nil, err
	}
	driver, err := o.String("driver", postgresDriver)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(driver) != postgresDriver {
		return nil, o.Errorf("driver", "Strait's Jdbc connector speaks to PostgreSQL (%s); %q is not supported", postgresDriver, driver)
	}
	if err := c.parseURL(); err != nil {
		return nil, o.Errorf("url", "%v", err)
	}
	// user and password options win over the url's
	if u, err := o.String("user", ""); err != nil {
		return nil, err
	} else if u != "" {
		c.user = u
	}
	if p, err := o.String("password", ""); err != nil {
		return nil, err
	} else if o.Has("password") {
		c.password = p
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
			c.property(k, v)
		}
	}
	secs, err := o.Int("connection_check_timeout_sec", 30)
	if err != nil {
		return nil, err
	}
	if secs < 1 {
		return nil, o.Errorf("connection_check_timeout_sec", "must be at least 1, got %d", secs)
	}
	c.timeout = time.Duration(secs) * time.Second
	retries, err := o.Int("max_retries", 0)
	if err != nil {
		return nil, err
	}
	if retries < 0 {
		return nil, o.Errorf("max_retries", "must not be negative, got %d", retries)
	}
	c.retries = int(retries)
	// options of JDBC drivers that have no meaning here
	o.MarkUsed("compatible_mode", "dialect", "fetch_size", "xa_data_source_class_name")
	return c, nil
}

// parseURL reads jdbc:postgresql://host[:port][/database][?key=value&...].
func (c *connConfig) parseURL() error {
	const prefix = "jdbc:postgresql:"
	raw := strings.TrimSpace(c.url)
	if !strings.HasPrefix(strings.ToLower(raw), prefix) {
		return fmt.Errorf("%q is not a PostgreSQL JDBC url (jdbc:postgresql://host:port/database)", c.url)
	}
	rest := raw[len(prefix):]
	if !strings.HasPrefix(rest, "//") {
		// jdbc:postgresql:database means localhost
		rest = "//localhost/" + rest
	}
	u, err := url.Parse("postgres:" + rest)
	if err != nil {
		return fmt.Errorf("%q: %v", c.url, err)
	}
	c.host = u.Hostname()
	if c.host == "" {
		c.host = "localhost"
	}
	if strings.Contains(u.Host, ",") {
		return fmt.Errorf("%q: several hosts are not supported", c.url)
	}
	c.port = 5432
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return fmt.Errorf("%q: bad port %q", c.url, p)
		}
		c.port = uint16(n)
	}
	c.database = strings.TrimPrefix(u.Path, "/")
	if c.database == "" {
		return fmt.Errorf("%q names no database", c.url)
	}
	for k, vs := range u.Query() {
		if len(vs) > 0 {
			c.property(k, vs[len(vs)-1])
		}
	}
	return nil
}

// property applies one of the PostgreSQL JDBC driver's connection properties; those about
// the driver itself (logging, statement caching) have no meaning here.
func (c *connConfig) property(k, v string) {
	switch strings.ToLower(k) {
	case "user":
		c.user = v
	case "password":
		c.password = v
	case "currentschema":
		c.params["search_path"] = v
	case "applicationname":
		c.params["application_name"] = v
	case "options":
		c.params["options"] = v
	case "sslmode":
		c.sslmode = v
	case "ssl":
		if strings.EqualFold(v, "true") && c.sslmode == "" {
			c.sslmode = "require"
		}
	}
}

// pgxConfig is the pgx configuration of a connection.
func (c *connConfig) pgxConfig() (*pgx.ConnConfig, error) {
	mode := c.sslmode
	if mode == "" {
		mode = "prefer"
	}
	dsn := fmt.Sprintf("host=%s port=%d dbname=%s sslmode=%s connect_timeout=%d",
		quoteDSN(c.host), c.port, quoteDSN(c.database), quoteDSN(mode), int(c.timeout/time.Second))
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.User = c.user
	cfg.Password = c.password
	for k, v := range c.params {
		cfg.RuntimeParams[k] = v
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "strait"
	}
	return cfg, nil
}

func quoteDSN(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// connect opens a connection, trying again up to max_retries times a second apart.
func (c *connConfig) connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := c.pgxConfig()
	if err != nil {
		return nil, fmt.Errorf("jdbc %s: %w", c.url, err)
	}
	for attempt := 0; ; attempt++ {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			return conn, nil
		}
		if attempt >= c.retries || ctx.Err() != nil {
			return nil, fmt.Errorf("jdbc: connect to %s as %s: %w", net.JoinHostPort(c.host, strconv.Itoa(int(c.port)))+"/"+c.database, c.user, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
