package pgwire

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ConnConfig is how to reach a database: the parts of a PostgreSQL JDBC url, the user and
// password, and how long and how often to try connecting.
type ConnConfig struct {
	URL      string // as configured, for messages
	Host     string
	Port     uint16
	Database string
	User     string
	Password string
	Params   map[string]string // run-time parameters (search_path, application_name)
	SSLMode  string
	Timeout  time.Duration // connect timeout
	Retries  int           // further attempts to connect, a second apart
}

// ParseURL reads url, jdbc:postgresql://host[:port][/database][?key=value&...], into a
// ConnConfig; the url's properties are applied with Property.
func ParseURL(raw string) (*ConnConfig, error) {
	c := &ConnConfig{URL: raw, Params: map[string]string{}}
	const prefix = "jdbc:postgresql:"
	s := strings.TrimSpace(raw)
	if !strings.HasPrefix(strings.ToLower(s), prefix) {
		return nil, fmt.Errorf("%q is not a PostgreSQL JDBC url (jdbc:postgresql://host:port/database)", raw)
	}
	rest := s[len(prefix):]
	if !strings.HasPrefix(rest, "//") {
		// jdbc:postgresql:database means localhost
		rest = "//localhost/" + rest
	}
	u, err := url.Parse("postgres:" + rest)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", raw, err)
	}
	c.Host = u.Hostname()
	if c.Host == "" {
		c.Host = "localhost"
	}
	if strings.Contains(u.Host, ",") {
		return nil, fmt.Errorf("%q: several hosts are not supported", raw)
	}
	c.Port = 5432
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%q: bad port %q", raw, p)
		}
		c.Port = uint16(n)
	}
	c.Database = strings.TrimPrefix(u.Path, "/")
	if c.Database == "" {
		return nil, fmt.Errorf("%q names no database", raw)
	}
	for k, vs := range u.Query() {
		if len(vs) > 0 {
			c.Property(k, vs[len(vs)-1])
		}
	}
	return c, nil
}

// Property applies one of the PostgreSQL JDBC driver's connection properties; those about
// the driver itself (logging, statement caching) have no meaning here and are ignored.
func (c *ConnConfig) Property(k, v string) {
	switch strings.ToLower(k) {
	case "user":
		c.User = v
	case "password":
		c.Password = v
	case "currentschema":
		c.Params["search_path"] = v
	case "applicationname":
		c.Params["application_name"] = v
	case "options":
		c.Params["options"] = v
	case "sslmode":
		c.SSLMode = v
	case "ssl":
		if strings.EqualFold(v, "true") && c.SSLMode == "" {
			c.SSLMode = "require"
		}
	}
}

// Addr is host:port/database, for messages.
func (c *ConnConfig) Addr() string {
	return net.JoinHostPort(c.Host, strconv.Itoa(int(c.Port))) + "/" + c.Database
}

// PgxConfig is the pgx configuration of a connection.
func (c *ConnConfig) PgxConfig() (*pgx.ConnConfig, error) {
	mode := c.SSLMode
	if mode == "" {
		mode = "prefer"
	}
	dsn := fmt.Sprintf("host=%s port=%d dbname=%s sslmode=%s connect_timeout=%d",
		quoteDSN(c.Host), c.Port, quoteDSN(c.Database), quoteDSN(mode), int(c.Timeout/time.Second))
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.User = c.User
	cfg.Password = c.Password
	for k, v := range c.Params {
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

// Connect opens a connection, trying again up to Retries times a second apart.
func (c *ConnConfig) Connect(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := c.PgxConfig()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.URL, err)
	}
	for attempt := 0; ; attempt++ {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			return conn, nil
		}
		if attempt >= c.Retries || ctx.Err() != nil {
			return nil, fmt.Errorf("connect to %s as %s: %w", c.Addr(), c.User, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Close closes a connection (a pgx.Conn, or a replication pgconn.PgConn), giving the
// server at most 5 seconds to hear of it.
func Close(conn interface{ Close(context.Context) error }) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}
