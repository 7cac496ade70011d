package postgrescdc

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/cdc"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
	"github.com/strait-dev/strait/types"
)

func init() {
	connector.RegisterSource("Postgres-CDC", "Reads a snapshot of PostgreSQL tables, then the stream of their changes through logical replication, as SeaTunnel's Postgres-CDC source does.", NewSource)
}

// Config is the Postgres-CDC source's options.
type Config struct {
	BaseURL          string        `opt:"base-url,required" doc:"the database: jdbc:postgresql://host:port/database, with the driver's connection properties after ?"`
	Username         string        `opt:"username" doc:"the user to connect as, who needs the REPLICATION attribute in a STREAMING job; required unless the url names one"`
	Password         *string       `opt:"password,secret" doc:"the user's password"`
	TableNames       []string      `opt:"table-names,required" doc:"the tables to capture, as database.schema.table (or schema.table) in the url's database"`
	TableNamesConfig []TableConfig `opt:"table-names-config" doc:"settings per captured table: the primary key of a table that has none"`

	StartupMode    string          `opt:"startup.mode" default:"initial" enum:"initial,earliest,latest" doc:"initial reads a snapshot, then the changes since; earliest and latest read changes only: from where an existing slot was last confirmed, or from now"`
	StopMode       string          `opt:"stop.mode" default:"never" enum:"never" doc:"when the stream stops: never, until the job is stopped"`
	SlotName       string          `opt:"slot.name" default:"seatunnel" doc:"the logical replication slot, created when it does not exist: lower-case letters, digits and underscores"`
	DecodingPlugin string          `opt:"decoding.plugin.name" default:"pgoutput" doc:"the logical decoding plugin SeaTunnel would use (pgoutput, decoderbufs, wal2json...); Strait decodes with PostgreSQL's built-in pgoutput whatever it says"`
	Format         string          `opt:"format" default:"DEFAULT" enum:"DEFAULT,COMPATIBLE_DEBEZIUM_JSON" doc:"the rows emitted: DEFAULT, rows of the captured tables; COMPATIBLE_DEBEZIUM_JSON is not supported"`
	TablePattern   *string         `opt:"table-pattern" doc:"a pattern of the tables to capture; not supported, list them in table-names"`
	SplitSize      int64           `opt:"snapshot.split.size" default:"8096" doc:"rows per snapshot split"`
	ConnectTimeout string          `opt:"connect.timeout.ms" default:"30000" doc:"how long an attempt to connect may take, in milliseconds or as a duration (30s); it also bounds the checks of the database while the job is planned"`
	MaxRetries     int64           `opt:"connect.max-retries" default:"3" doc:"further attempts to connect when one fails, a second apart"`
	Debezium       *config.Options `opt:"debezium" doc:"Debezium's properties: publication.name (default <slot.name>_publication) and publication.autocreate.mode (filtered, all_tables or disabled) are read, the others have no meaning here"`

	FetchSize      int64  `opt:"snapshot.fetch.size,noeffect" default:"1024" doc:"rows fetched per round trip of the snapshot; rows stream from the server as they are read, so nothing needs it"`
	ServerTimeZone string `opt:"server-time-zone,noeffect" default:"UTC" doc:"the zone of the server's sessions; timestamptz values are read in UTC and timestamp values as stored, so no zone applies"`
	ExactlyOnce    bool   `opt:"exactly_once,noeffect" default:"false" doc:"exactly-once reading; the stream always resumes after the last transaction a checkpoint emitted, so nothing is read twice whatever it says"`
	cdc.Tuning
	DatabaseNames []string `opt:"database-names,noeffect" doc:"the databases to capture; the one of base-url and table-names is"`
	SchemaNames   []string `opt:"schema-names,noeffect" doc:"the schemas to capture; those of table-names are"`
	SchemaName    string   `opt:"schema-name,noeffect" doc:"the schema to capture; those of table-names are"`

	At *config.Options `opt:"."`
}

// TableConfig is one entry of table-names-config.
type TableConfig = cdc.TableConfig

// Startup modes (startup.mode).
const (
	startInitial  = "initial"
	startEarliest = "earliest"
	startLatest   = "latest"
)

// Ways to create the publication (debezium.publication.autocreate.mode).
const (
	pubFiltered  = "filtered"
	pubAllTables = "all_tables"
	pubDisabled  = "disabled"
)

// defaultSplitSize is SeaTunnel's snapshot.split.size: rows per snapshot split.
const defaultSplitSize = 8096

// Source is a configured Postgres-CDC source. See the package documentation.
type Source struct {
	where       string
	conn        *pgwire.ConnConfig
	streaming   bool
	startup     string
	slot        string
	publication string
	pubMode     string
	splitSize   int64
	parallelism int
	tables      []*cdcTable
	byID        map[string]*cdcTable
	byName      map[pgwire.TableName]*cdcTable
	planned     []*catalog.Table // the tables the job was planned with, where it runs
}

// cdcTable is one captured table: its catalog table and how its rows are read and decoded.
type cdcTable struct {
	table *catalog.Table
	id    string           // database.schema.table: the table id of its rows
	name  pgwire.TableName // schema and table, as the catalog spells them
	cols  []pgwire.Column  // in the table's order, all read in binary format
	// attTypes are the columns' types as the replication stream names them: a domain's own
	// type rather than its base type.
	attTypes []uint32
	sql      string // SELECT of every row
	key      string // the integer column snapshot splits are ranges of; "" for one split
	keyIdx   []int  // the primary key's columns (configured or the table's)
}

// slotNameRe is what PostgreSQL accepts as a replication slot name.
var slotNameRe = regexp.MustCompile(`^[a-z0-9_]{1,63}$`)

// decodingPlugins are the values SeaTunnel accepts for decoding.plugin.name; Strait uses
// pgoutput whatever the value.
var decodingPlugins = []string{"pgoutput", "decoderbufs", "wal2json", "wal2json_rds", "wal2json_streaming", "wal2json_rds_streaming"}

// NewSource builds a Postgres-CDC source from its options. It connects to the database to
// learn the columns and keys of the captured tables and, in a STREAMING job, to check that
// the server can stream their changes: within the planning deadline, and at most
// connect.timeout.ms for every attempt to connect.
func NewSource(ctx *connector.SourceContext, c *Config) (connector.Source, error) {
	o := c.At
	s := &Source{
		where:       o.Where(),
		streaming:   ctx.Job.Mode == connector.Streaming,
		parallelism: max(ctx.Parallelism, 1),
		byID:        map[string]*cdcTable{},
		byName:      map[pgwire.TableName]*cdcTable{},
		planned:     ctx.Planned,
	}
	if err := s.readOptions(c); err != nil {
		return nil, err
	}
	names, pks, err := readTableNames(c, s.conn.Database)
	if err != nil {
		return nil, err
	}

	parent := ctx.Context
	if parent == nil {
		parent = context.Background() // a caller with no planning deadline to give
	}
	cctx, cancel := context.WithTimeout(parent, s.conn.Timeout+time.Minute)
	defer cancel()
	pg, err := s.connect(cctx)
	if err != nil {
		return nil, err
	}
	defer pg.Close(context.Background())
	if s.streaming {
		if err := s.checkServer(cctx, pg); err != nil {
			return nil, err
		}
	}
	for i, n := range names {
		t, err := s.resolve(cctx, pg, o, i, n, pks[n])
		if err != nil {
			return nil, err
		}
		if s.byID[t.id] != nil {
			continue // named twice
		}
		s.byID[t.id] = t
		s.byName[t.name] = t
		s.tables = append(s.tables, t)
	}
	return s, nil
}

func (s *Source) readOptions(c *Config) error {
	if err := s.readConn(c); err != nil {
		return err
	}
	o := c.At
	s.startup = c.StartupMode
	if s.slot = c.SlotName; !slotNameRe.MatchString(s.slot) {
		return o.Errorf("slot.name", "%q is not a replication slot name: lower-case letters, digits and underscores, at most 63", s.slot)
	}
	if !containsFold(decodingPlugins, c.DecodingPlugin) {
		return o.Errorf("decoding.plugin.name", "unknown plugin %q; expected one of %s (Strait always decodes with pgoutput)", c.DecodingPlugin, strings.Join(decodingPlugins, ", "))
	}
	if c.Format != "DEFAULT" {
		return o.Errorf("format", "%s is not supported: Strait's Postgres-CDC emits rows of the captured tables (format DEFAULT)", c.Format)
	}
	if c.TablePattern != nil {
		return o.Errorf("table-pattern", "is not supported; list the tables in table-names")
	}
	if s.splitSize = c.SplitSize; s.splitSize < 1 {
		return o.Errorf("snapshot.split.size", "must be at least 1, got %d", s.splitSize)
	}
	if c.FetchSize < 1 {
		return o.Errorf("snapshot.fetch.size", "must be at least 1, got %d", c.FetchSize)
	}
	if _, err := time.LoadLocation(c.ServerTimeZone); err != nil {
		return o.Errorf("server-time-zone", "unknown time zone %q", c.ServerTimeZone)
	}
	return s.readPublication(c)
}

// readConn checks how to reach the database.
func (s *Source) readConn(c *Config) error {
	o := c.At
	var err error
	if s.conn, err = pgwire.ParseURL(c.BaseURL); err != nil {
		return o.Errorf("base-url", "%v", err)
	}
	if c.Username != "" {
		s.conn.User = c.Username
	}
	if s.conn.User == "" {
		return o.Errorf("username", "option is required")
	}
	if c.Password != nil {
		s.conn.Password = *c.Password
	}
	s.conn.Timeout = 30 * time.Second
	if strings.TrimSpace(c.ConnectTimeout) != "" {
		if s.conn.Timeout, err = cdc.ParseDuration(o, "connect.timeout.ms", c.ConnectTimeout); err != nil {
			return err
		}
	}
	s.conn.Timeout = max(s.conn.Timeout, time.Second)
	if c.MaxRetries < 0 || c.MaxRetries > math.MaxInt32 {
		return o.Errorf("connect.max-retries", "must be between 0 and %d, got %d", math.MaxInt32, c.MaxRetries)
	}
	s.conn.Retries = int(c.MaxRetries)
	return nil
}

// readPublication reads the publication's name and how it is created from the Debezium
// properties, the only ones that mean something here.
func (s *Source) readPublication(c *Config) error {
	s.publication = s.slot + "_publication"
	s.pubMode = pubFiltered
	dbz := c.Debezium
	if dbz == nil {
		return nil
	}
	var err error
	if s.publication, err = dbz.String("publication.name", s.publication); err != nil {
		return err
	}
	if s.publication = strings.TrimSpace(s.publication); s.publication == "" {
		return dbz.Errorf("publication.name", "must not be empty")
	}
	if s.pubMode, err = dbz.Enum("publication.autocreate.mode", pubFiltered, pubFiltered, pubAllTables, pubDisabled); err != nil {
		return err
	}
	return nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, strings.TrimSpace(s)) {
			return true
		}
	}
	return false
}

// readTableNames reads table-names (database.schema.table, or schema.table in the url's
// database) and the primary keys table-names-config gives.
func readTableNames(c *Config, database string) ([]pgwire.TableName, map[pgwire.TableName][]string, error) {
	parse := func(s string) (pgwire.TableName, error) { return parseCaptured(s, database) }
	return cdc.TableNames(c.At, c.TableNames, c.TableNamesConfig, parse, nil)
}

// parseCaptured reads database.schema.table or schema.table; the database must be the url's.
func parseCaptured(s, database string) (pgwire.TableName, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return pgwire.TableName{}, fmt.Errorf("%q is not database.schema.table", s)
	}
	t, err := pgwire.ParseTableName(s, database)
	if err != nil {
		return pgwire.TableName{}, err
	}
	return t, nil
}

// connect opens a connection to the database.
func (s *Source) connect(ctx context.Context) (*pgx.Conn, error) {
	pg, err := s.conn.Connect(ctx)
	if err != nil {
		if err == ctx.Err() {
			// given up between attempts: the error is the context's alone
			return nil, fmt.Errorf("%s: connect to %s as %s: %w", s.where, s.conn.Addr(), s.conn.User, err)
		}
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	return pg, nil
}

// checkServer checks what streaming changes needs: PostgreSQL 14 or later, wal_level
// logical and a user allowed to replicate.
func (s *Source) checkServer(ctx context.Context, pg *pgx.Conn) error {
	var version int
	var walLevel string
	var canReplicate bool
	err := pg.QueryRow(ctx, `SELECT current_setting('server_version_num')::int, current_setting('wal_level'),
			coalesce((SELECT rolreplication OR rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user), false)`).
		Scan(&version, &walLevel, &canReplicate)
	if err != nil {
		return fmt.Errorf("%s: read the server's settings: %s", s.where, pgwire.ErrorText(err))
	}
	if version < 140000 {
		return fmt.Errorf("%s: PostgreSQL %d.%d cannot stream changes in binary form; Postgres-CDC needs PostgreSQL 14 or later", s.where, version/10000, version%10000)
	}
	if walLevel != "logical" {
		return fmt.Errorf("%s: the server's wal_level is %s; capturing changes needs wal_level = logical (ALTER SYSTEM SET wal_level = logical, then restart PostgreSQL)", s.where, walLevel)
	}
	if !canReplicate {
		return fmt.Errorf("%s: user %s may not use replication: it needs the REPLICATION attribute (ALTER ROLE %s REPLICATION)", s.where, s.conn.User, pgwire.QuoteIdent(s.conn.User))
	}
	return nil
}

// resolve learns one table's columns, keys and split column.
func (s *Source) resolve(ctx context.Context, pg *pgx.Conn, o *config.Options, i int, n pgwire.TableName, pk []string) (*cdcTable, error) {
	rel, err := pgwire.LookupRelation(ctx, pg, n)
	if err != nil {
		return nil, fmt.Errorf("%s: look up table %s: %s", s.where, n, pgwire.ErrorText(err))
	}
	var kind, ident string
	if rel != nil {
		if err := pg.QueryRow(ctx, "SELECT relkind::text, relreplident::text FROM pg_catalog.pg_class WHERE oid = $1", rel.OID).Scan(&kind, &ident); err != nil {
			return nil, fmt.Errorf("%s: look up table %s: %s", s.where, n, pgwire.ErrorText(err))
		}
	}
	switch {
	case rel == nil:
		return nil, o.Errorf(fmt.Sprintf("table-names[%d]", i), "table %s does not exist in database %s", n, s.conn.Database)
	case kind == "p":
		return nil, o.Errorf(fmt.Sprintf("table-names[%d]", i), "%s is a partitioned table; Postgres-CDC captures ordinary tables (name its partitions)", n)
	case kind != "r":
		return nil, o.Errorf(fmt.Sprintf("table-names[%d]", i), "%s is not a table (a view, a materialized or a foreign table); Postgres-CDC captures ordinary tables", n)
	}
	t := &cdcTable{name: pgwire.TableName{Schema: rel.Schema, Table: rel.Name}}
	t.id = s.conn.Database + "." + rel.Schema + "." + rel.Name
	t.sql = "SELECT * FROM " + t.name.Quoted()
	fields, err := pgwire.DescribeSQL(ctx, pg, t.sql)
	if err != nil {
		return nil, o.Errorf(fmt.Sprintf("table-names[%d]", i), "cannot read table %s: %s", n, pgwire.ErrorText(err))
	}
	var oids []uint32
	for _, f := range fields {
		oids = append(oids, f.DataTypeOID)
	}
	infos, err := pgwire.LookupTypes(ctx, pg, oids)
	if err != nil {
		return nil, fmt.Errorf("%s: read the types of table %s: %s", s.where, n, pgwire.ErrorText(err))
	}
	attrs, err := pgwire.ColumnAttributes(ctx, pg, fields)
	if err != nil {
		return nil, fmt.Errorf("%s: read the catalog of table %s: %s", s.where, n, pgwire.ErrorText(err))
	}
	if err := pg.QueryRow(ctx, `SELECT array_agg(atttypid ORDER BY attnum) FROM pg_catalog.pg_attribute
		WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped`, rel.OID).Scan(&t.attTypes); err != nil {
		return nil, fmt.Errorf("%s: read the catalog of table %s: %s", s.where, n, pgwire.ErrorText(err))
	}
	if len(t.attTypes) != len(fields) {
		return nil, fmt.Errorf("%s: table %s changed while its columns were read; try again", s.where, n)
	}
	// an unbounded numeric is decimal(38,10) in the catalog, as SeaTunnel's catalog reads a
	// table; its values keep the scale PostgreSQL stores them with (500 stays 500, 0.50 stays
	// 0.50), as Debezium's do
	opts := pgwire.TypeOptions{UnboundedScale: 10, OwnScale: true}
	tbl := &catalog.Table{Path: catalog.TablePath{Database: s.conn.Database, Schema: rel.Schema, Table: rel.Name}}
	for _, f := range fields {
		c := pgwire.ColumnOf(f, opts)
		if err := c.UseBinary(infos[f.DataTypeOID]); err != nil {
			return nil, o.Errorf(fmt.Sprintf("table-names[%d]", i), "table %s, column %q: %v", n, f.Name, err)
		}
		t.cols = append(t.cols, c)
		col := catalog.Column{Name: c.Name, Type: c.Type, Nullable: true, Length: c.Length, Scale: c.Scale}
		if a, ok := attrs[pgwire.AttrKey{Rel: f.TableOID, Num: f.TableAttributeNumber}]; ok {
			col.Nullable, col.Comment = !a.NotNull, a.Comment
		}
		tbl.Columns = append(tbl.Columns, col)
	}
	if err := pgwire.ReadTableKeys(ctx, pg, rel.OID, tbl); err != nil {
		return nil, fmt.Errorf("%s: read the keys of table %s: %s", s.where, n, pgwire.ErrorText(err))
	}
	// once a table is published, PostgreSQL refuses its UPDATEs and DELETEs unless it has a
	// replica identity: its primary key by default
	if s.streaming && (ident == "n" || (ident == "d" && tbl.PrimaryKey == nil)) {
		return nil, o.Errorf(fmt.Sprintf("table-names[%d]", i),
			"table %s has no replica identity, so PostgreSQL would refuse its UPDATEs and DELETEs once it is published; give it one: ALTER TABLE %s REPLICA IDENTITY FULL",
			n, t.name.Quoted())
	}
	if pk != nil {
		for _, c := range pk {
			if tbl.ColumnIndex(c) < 0 {
				return nil, o.Errorf("table-names-config", "table %s has no column %q for its primary key", n, c)
			}
		}
		tbl.PrimaryKey = &catalog.PrimaryKey{Name: "pk_" + rel.Name, Columns: pk}
	}
	if tbl.PrimaryKey != nil {
		for _, c := range tbl.PrimaryKey.Columns {
			t.keyIdx = append(t.keyIdx, tbl.ColumnIndex(c))
		}
		for _, j := range t.keyIdx {
			if splittable(t.cols[j].Type) {
				t.key = t.cols[j].Name
				break
			}
		}
	}
	t.table = tbl
	return t, nil
}

// splittable reports whether snapshot splits can be ranges of a column of this type.
func splittable(t types.DataType) bool {
	switch t.Kind {
	case types.SmallInt, types.Int, types.BigInt:
		return true
	case types.Decimal:
		return t.Scale == 0 && t.Precision > 0 && t.Precision <= 18
	}
	return false
}

// Boundedness: a STREAMING job's source runs until it is stopped; a BATCH job's reads the
// snapshot and ends.
func (s *Source) Boundedness() connector.Boundedness {
	if s.streaming {
		return connector.Unbounded
	}
	return connector.Bounded
}

// Tables lists the captured tables, in the order of table-names.
func (s *Source) Tables() []*catalog.Table {
	return sourcekit.Tables(s.tables, func(t *cdcTable) *catalog.Table { return t.table })
}
