package mysqlcdc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/binlog"
	"github.com/strait-dev/strait/connectors/internal/cdc"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
)

func init() {
	connector.RegisterSource("MySQL-CDC", "Reads a snapshot of MySQL or MariaDB tables, then the changes of the row-based binary log, as SeaTunnel's MySQL-CDC source does.", NewSource)
}

// Config is the MySQL-CDC source's options.
type Config struct {
	BaseURL          string        `opt:"base-url,required" doc:"the server: jdbc:mysql://host:port/database (jdbc:mariadb: too), with the driver's connection properties after ?"`
	Username         string        `opt:"username,required" doc:"the user to connect as: it needs SELECT on the captured tables, and REPLICATION SLAVE and REPLICATION CLIENT in a STREAMING job"`
	Password         string        `opt:"password,secret" doc:"the user's password"`
	DatabaseNames    []string      `opt:"database-names" doc:"the databases to capture; table-names names the tables"`
	TableNames       []string      `opt:"table-names,required" doc:"the tables to capture, as database.table"`
	TableNamesConfig []TableConfig `opt:"table-names-config" doc:"settings per captured table: the primary key of a table that has none"`

	StartupMode      string `opt:"startup.mode" default:"initial" enum:"initial,earliest,latest,specific,timestamp" doc:"initial reads a snapshot, then the changes since; earliest reads the log from its first file; latest the changes from now on; specific from startup.specific-offset.file and .pos; timestamp the transactions committed from startup.timestamp on"`
	StartupFile      string `opt:"startup.specific-offset.file" doc:"with startup.mode specific: the binary log file to start in"`
	StartupPos       int64  `opt:"startup.specific-offset.pos" default:"4" doc:"with startup.mode specific: the offset in that file"`
	StartupGTID      string `opt:"startup.specific-offset.gtid-set" doc:"with startup.mode specific: a GTID set (MySQL) or GTID position (MariaDB) to start after, instead of a file and offset"`
	StartupTimestamp int64  `opt:"startup.timestamp" doc:"with startup.mode timestamp: the time in milliseconds since 1970 from which transactions are read"`
	StopMode         string `opt:"stop.mode" default:"never" enum:"never,latest,specific" doc:"when the log stops being read: never, until the job is stopped; latest at the end the log had when the job started; specific at stop.specific-offset.file and .pos. A source that stops is bounded: the job ends once every transaction before the stop is emitted"`
	StopFile         string `opt:"stop.specific-offset.file" doc:"with stop.mode specific: the binary log file to stop in"`
	StopPos          int64  `opt:"stop.specific-offset.pos" default:"4" doc:"with stop.mode specific: the offset in that file; a transaction that starts before it is emitted whole"`

	SplitSize      int64  `opt:"snapshot.split.size" default:"8096" doc:"rows per snapshot split"`
	FetchSize      int64  `opt:"snapshot.fetch.size" default:"1024" doc:"rows fetched per round trip of the snapshot; rows stream from the server as they are read, so it only has to be positive"`
	ServerID       string `opt:"server-id" doc:"the replica server id the binary log is read as, or a range (5400-5408) holding an id for each reader, reader i taking the range's i-th; unique among the server's replicas (default: a random id between 5400 and 6400)"`
	ServerTimeZone string `opt:"server-time-zone" default:"UTC" doc:"the zone TIMESTAMP values are shown in: a TIMESTAMP is read as the local date and time of this zone"`
	ConnectTimeout string `opt:"connect.timeout.ms" default:"30000" doc:"how long an attempt to connect may take, in milliseconds or as a duration (30s)"`
	MaxRetries     int64  `opt:"connect.max-retries" default:"3" doc:"further attempts to connect when one fails, a second apart"`
	Format         string `opt:"format" default:"DEFAULT" enum:"DEFAULT,COMPATIBLE_DEBEZIUM_JSON" doc:"the rows emitted: DEFAULT, rows of the captured tables; COMPATIBLE_DEBEZIUM_JSON, for each change a row of three strings (topic, key and value) holding the records Debezium's MySQL connector writes, for a Kafka sink of that format"`
	SchemaChanges  bool   `opt:"schema-changes.enabled" default:"false" doc:"SeaTunnel's schema evolution: the ALTER TABLEs of a captured table that add, drop, modify, change or rename columns are followed and passed on to the sinks, after the rows before them (Jdbc alters its table, Console prints the change); any other DDL of a captured table fails the job, naming the statement, as every DDL does without this. debezium { include.schema.changes = true }, SeaTunnel 2.3.8's switch, does the same"`

	ExactlyOnce bool `opt:"exactly_once,noeffect" default:"false" doc:"exactly-once reading; the stream always resumes after the last change a checkpoint emitted, and the snapshot's chunks switch to the log at their high watermarks, whatever it says"`
	cdc.Tuning
	Debezium *config.Options `opt:"debezium" doc:"Debezium's properties: with format COMPATIBLE_DEBEZIUM_JSON, database.server.name (the topics' prefix, mysql_binlog_source by default), key.converter.schemas.enable and value.converter.schemas.enable (true by default: records carry their Kafka Connect schema) apply; Strait reads the log itself, so no other does"`

	At *config.Options `opt:"."`
}

// TableConfig is one entry of table-names-config.
type TableConfig = cdc.TableConfig

// Stop modes (stop.mode).
const (
	stopNever    = "never"
	stopLatest   = "latest"
	stopSpecific = "specific"
)

// Startup modes (startup.mode).
const (
	startInitial   = "initial"
	startEarliest  = "earliest"
	startLatest    = "latest"
	startSpecific  = "specific"
	startTimestamp = "timestamp"
)

// Source is a configured MySQL-CDC source. See the package documentation.
type Source struct {
	where     string
	addr      string
	dsn       string // go-sql-driver's DSN, without a database
	bcfg      binlog.Config
	retries   int
	streaming bool
	startup   string
	specific  position
	sinceTS   int64 // startup.timestamp, in seconds
	stopMode  string
	stopAt    position // stop.mode specific
	serverIDs idRange
	splitSize int64
	loc       *time.Location
	mariadb   bool
	dbz       *debeziumOptions // format compatible_debezium_json
	evolve    bool             // schema-changes.enabled
	tables    []*cdcTable
	byID      map[string]*cdcTable
	planned   []*catalog.Table // the tables the job was planned with, where it runs
}

// NewSource builds a MySQL-CDC source from its options. It connects to the server to learn
// the columns and keys of the captured tables and, in a STREAMING job, to check that the
// server writes the log Strait reads: within the planning deadline, and at most
// connect.timeout.ms for every attempt to connect.
func NewSource(ctx *connector.SourceContext, c *Config) (connector.Source, error) {
	s := &Source{where: c.At.Where(), streaming: ctx.Job.Mode == connector.Streaming, byID: map[string]*cdcTable{}, planned: ctx.Planned}
	if err := s.readOptions(c); err != nil {
		return nil, err
	}
	if r := s.serverIDs; r.hi > r.lo && uint64(r.hi-r.lo)+1 < uint64(max(ctx.Parallelism, 1)) {
		return nil, c.At.Errorf("server-id", "the range %d-%d holds %d ids, fewer than the %d readers of parallelism %d: each reader needs an id of its own", r.lo, r.hi, r.hi-r.lo+1, ctx.Parallelism, ctx.Parallelism)
	}
	names, pks, err := readTableNames(c)
	if err != nil {
		return nil, err
	}
	parent := ctx.Context
	if parent == nil {
		parent = context.Background()
	}
	cctx, cancel := context.WithTimeout(parent, s.bcfg.Timeout+time.Minute)
	defer cancel()
	db, err := s.open(cctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := s.checkServer(cctx, db); err != nil {
		return nil, err
	}
	for i, n := range names {
		t, err := s.resolve(cctx, db, c.At, fmt.Sprintf("table-names[%d]", i), n, pks[n])
		if err != nil {
			return nil, err
		}
		if s.byID[t.id] == nil {
			if s.dbz != nil {
				t.dbz = newDebeziumTable(t, s.dbz, s.loc)
			}
			s.byID[t.id] = t
			s.tables = append(s.tables, t)
		}
	}
	return s, nil
}

func (s *Source) readOptions(c *Config) error {
	o := c.At
	var err error
	if err := s.readURL(c); err != nil {
		return err
	}
	s.startup = c.StartupMode
	switch s.startup {
	case startSpecific:
		if c.StartupGTID != "" {
			s.specific.GTID = c.StartupGTID
		} else if c.StartupFile == "" {
			return o.Errorf("startup.specific-offset.file", "is required with startup.mode specific (or startup.specific-offset.gtid-set)")
		}
		if c.StartupPos < 4 || c.StartupPos > 1<<32-1 {
			return o.Errorf("startup.specific-offset.pos", "must be an offset of at least 4, got %d", c.StartupPos)
		}
		s.specific.File, s.specific.Pos = c.StartupFile, uint32(c.StartupPos)
	case startTimestamp:
		if c.StartupTimestamp <= 0 {
			return o.Errorf("startup.timestamp", "is required with startup.mode timestamp: milliseconds since 1970")
		}
		s.sinceTS = c.StartupTimestamp / 1000
	}
	if err := s.readStop(c); err != nil {
		return err
	}
	// SeaTunnel 2.3.8 follows DDL when Debezium includes schema changes; later versions name
	// it schema-changes.enabled
	s.evolve = c.SchemaChanges
	if c.Debezium != nil {
		inc, err := c.Debezium.Bool("include.schema.changes", false)
		if err != nil {
			return err
		}
		s.evolve = s.evolve || inc
	}
	if c.Format == formatDebezium {
		if s.dbz, err = readDebezium(c.Debezium); err != nil {
			return err
		}
	}
	if s.splitSize = c.SplitSize; s.splitSize < 1 {
		return o.Errorf("snapshot.split.size", "must be at least 1, got %d", s.splitSize)
	}
	if c.FetchSize < 1 {
		return o.Errorf("snapshot.fetch.size", "must be at least 1, got %d", c.FetchSize)
	}
	if s.loc, err = time.LoadLocation(c.ServerTimeZone); err != nil {
		return o.Errorf("server-time-zone", "unknown time zone %q", c.ServerTimeZone)
	}
	if s.serverIDs, err = parseServerID(c.ServerID); err != nil {
		return o.Errorf("server-id", "%v", err)
	}
	if c.MaxRetries < 0 || c.MaxRetries > 1000 {
		return o.Errorf("connect.max-retries", "must be between 0 and 1000, got %d", c.MaxRetries)
	}
	s.retries = int(c.MaxRetries)
	return nil
}

// readDebezium reads the Debezium properties format compatible_debezium_json follows.
func readDebezium(o *config.Options) (*debeziumOptions, error) {
	d := &debeziumOptions{server: debeziumServer, keySchema: true, valueSchema: true}
	if o == nil {
		return d, nil
	}
	var err error
	if d.server, err = o.String("database.server.name", debeziumServer); err != nil {
		return nil, err
	}
	if d.keySchema, err = o.Bool("key.converter.schemas.enable", true); err != nil {
		return nil, err
	}
	if d.valueSchema, err = o.Bool("value.converter.schemas.enable", true); err != nil {
		return nil, err
	}
	return d, nil
}

// readStop reads stop.mode and its offset.
func (s *Source) readStop(c *Config) error {
	o := c.At
	s.stopMode = c.StopMode
	if s.stopMode != stopSpecific {
		return nil
	}
	if strings.TrimSpace(c.StopFile) == "" {
		return o.Errorf("stop.specific-offset.file", "is required with stop.mode specific")
	}
	if c.StopPos < 4 || c.StopPos > 1<<32-1 {
		return o.Errorf("stop.specific-offset.pos", "must be an offset of at least 4, got %d", c.StopPos)
	}
	s.stopAt = position{File: strings.TrimSpace(c.StopFile), Pos: uint32(c.StopPos)}
	return nil
}

// stops reports whether the log is read up to a stop (stop.mode latest or specific).
func (s *Source) stops() bool { return s.streaming && s.stopMode != stopNever }

// readURL reads base-url: jdbc:mysql://host:port/database?properties.
func (s *Source) readURL(c *Config) error {
	o := c.At
	raw := strings.TrimSpace(c.BaseURL)
	rest, ok := strings.CutPrefix(raw, "jdbc:mysql://")
	if !ok {
		rest, ok = strings.CutPrefix(raw, "jdbc:mariadb://")
	}
	if !ok {
		return o.Errorf("base-url", "%q is not a MySQL JDBC url (jdbc:mysql://host:port/database)", raw)
	}
	u, err := url.Parse("mysql://" + rest)
	if err != nil || u.Host == "" {
		return o.Errorf("base-url", "%q is not a MySQL JDBC url (jdbc:mysql://host:port/database)", raw)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "3306")
	}
	timeout, err := cdc.ParseDuration(o, "connect.timeout.ms", c.ConnectTimeout)
	if err != nil {
		return err
	}
	timeout = max(timeout, time.Second)
	s.addr = host
	s.bcfg = binlog.Config{Addr: host, User: c.Username, Password: c.Password, Timeout: timeout}
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr = c.Username, c.Password, "tcp", host
	mc.Timeout = timeout
	mc.ParseTime = false
	mc.Params = map[string]string{"time_zone": "'+00:00'"}
	mc.AllowNativePasswords = true
	mc.MaxAllowedPacket = 64 << 20
	s.dsn = mc.FormatDSN()
	return nil
}

// idRange is a range of replica server ids, both ends included.
type idRange struct{ lo, hi uint32 }

// of is the id reader i reads the log as: the range's i-th, or its last.
func (r idRange) of(i int) uint32 {
	if i < 0 || uint64(i) > uint64(r.hi-r.lo) {
		return r.hi
	}
	return r.lo + uint32(i)
}

// parseServerID reads server-id: an id (5400) or a range of ids (5400-5408).
func parseServerID(s string) (idRange, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		id := uint32(5400 + rand.IntN(1001))
		return idRange{id, id}, nil
	}
	first, last, isRange := strings.Cut(s, "-")
	lo, err := parseOneID(first)
	if err != nil {
		return idRange{}, fmt.Errorf("%q is not a server id or a range of them (5400-5408)", s)
	}
	if !isRange {
		return idRange{lo, lo}, nil
	}
	hi, err := parseOneID(last)
	if err != nil || hi < lo {
		return idRange{}, fmt.Errorf("%q is not a server id or a range of them (5400-5408)", s)
	}
	return idRange{lo, hi}, nil
}

func parseOneID(s string) (uint32, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	if err == nil && n == 0 {
		err = fmt.Errorf("server id 0")
	}
	return uint32(n), err
}

// tableName is a captured table: database and table.
type tableName struct{ db, table string }

func (n tableName) String() string { return n.db + "." + n.table }

// readTableNames reads table-names (database.table), of the databases database-names
// names when it does, and the primary keys table-names-config gives.
func readTableNames(c *Config) ([]tableName, map[tableName][]string, error) {
	var inDatabases func(string, tableName) error
	if len(c.DatabaseNames) > 0 {
		inDatabases = func(n string, t tableName) error {
			if !containsFold(c.DatabaseNames, t.db) {
				return fmt.Errorf("table %s is not in database-names (%s)", n, strings.Join(c.DatabaseNames, ", "))
			}
			return nil
		}
	}
	return cdc.TableNames(c.At, c.TableNames, c.TableNamesConfig, parseTableName, inDatabases)
}

func parseTableName(s string) (tableName, error) {
	db, table, ok := strings.Cut(strings.TrimSpace(s), ".")
	if !ok || db == "" || table == "" || strings.Contains(table, ".") {
		return tableName{}, fmt.Errorf("%q is not database.table", s)
	}
	return tableName{db: strings.Trim(db, "`"), table: strings.Trim(table, "`")}, nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(strings.TrimSpace(x), s) {
			return true
		}
	}
	return false
}

// open opens a database/sql handle and checks that it connects, trying connect.max-retries
// more times a second apart.
func (s *Source) open(ctx context.Context) (*sql.DB, error) {
	db, err := sql.Open("mysql", s.dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	db.SetMaxOpenConns(2)
	for attempt := 0; ; attempt++ {
		err = db.PingContext(ctx)
		if err == nil {
			return db, nil
		}
		if attempt >= s.retries || ctx.Err() != nil || isAccessDenied(err) {
			db.Close()
			return nil, fmt.Errorf("%s: connect to %s as %s: %s", s.where, s.addr, s.bcfg.User, errorText(err))
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func isAccessDenied(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == binlog.ErrAccessDenied
}

func errorText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Message + " (error " + strconv.Itoa(int(me.Number)) + ")"
	}
	return err.Error()
}

// checkServer reads what kind of server it is and, in a STREAMING job, checks the settings
// reading its log needs: log_bin, binlog_format ROW and binlog_row_image FULL.
func (s *Source) checkServer(ctx context.Context, db *sql.DB) error {
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return fmt.Errorf("%s: read the server's version: %s", s.where, errorText(err))
	}
	s.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	if !s.streaming {
		return nil
	}
	var logBin, format, image string
	err := db.QueryRowContext(ctx, "SELECT @@global.log_bin, @@global.binlog_format, @@global.binlog_row_image").Scan(&logBin, &format, &image)
	if err != nil {
		return fmt.Errorf("%s: read the server's binary log settings: %s", s.where, errorText(err))
	}
	switch {
	case logBin != "1" && !strings.EqualFold(logBin, "ON"):
		return fmt.Errorf("%s: the server at %s does not write a binary log (log_bin is OFF); capturing changes needs log_bin on, binlog_format = ROW and binlog_row_image = FULL (start it with --log-bin --binlog-format=ROW --binlog-row-image=FULL)", s.where, s.addr)
	case !strings.EqualFold(format, "ROW"):
		return fmt.Errorf("%s: the server's binlog_format is %s; capturing changes needs binlog_format = ROW (SET GLOBAL binlog_format = 'ROW', or --binlog-format=ROW)", s.where, format)
	case !strings.EqualFold(image, "FULL"):
		return fmt.Errorf("%s: the server's binlog_row_image is %s; capturing changes needs binlog_row_image = FULL (SET GLOBAL binlog_row_image = 'FULL', or --binlog-row-image=FULL)", s.where, image)
	}
	return nil
}

// Boundedness: a STREAMING job's source runs until it is stopped, or with a stop.mode until
// the log reaches the stop; a BATCH job's reads the snapshot and ends.
func (s *Source) Boundedness() connector.Boundedness {
	if s.streaming && !s.stops() {
		return connector.Unbounded
	}
	return connector.Bounded
}

// Tables lists the captured tables, in the order of table-names.
func (s *Source) Tables() []*catalog.Table {
	return sourcekit.Tables(s.tables, func(t *cdcTable) *catalog.Table {
		if t.dbz != nil {
			return debeziumCatalog(t)
		}
		return t.table
	})
}
