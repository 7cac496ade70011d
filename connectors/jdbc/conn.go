package jdbc

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/strait-dev/strait/config"
)

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

// propertyNames are the names of the properties option, in order: they apply one after
// the other, after the url's.
func (c *ConnOptions) propertyNames() []string {
	keys := make([]string, 0, len(c.Properties))
	for k := range c.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// attempts checks connection_check_timeout_sec and max_retries: how long an attempt to
// connect may take, and how many more follow a failed one.
func (c *ConnOptions) attempts() (time.Duration, int, error) {
	if c.Timeout < 1 {
		return 0, 0, c.At.Errorf("connection_check_timeout_sec", "must be at least 1, got %d", c.Timeout)
	}
	if c.MaxRetries < 0 || c.MaxRetries > math.MaxInt32 {
		return 0, 0, c.At.Errorf("max_retries", "must be between 0 and %d, got %d", math.MaxInt32, c.MaxRetries)
	}
	return time.Duration(c.Timeout) * time.Second, int(c.MaxRetries), nil
}

// planContext is the context a factory checks the database within: its caller's planning
// deadline, or none for a caller that has no context to give.
func planContext(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
