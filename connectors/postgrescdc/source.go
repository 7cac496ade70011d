package postgrescdc

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/types"
)

func init() {
	connector.RegisterSourceRaw("Postgres-CDC", NewSource)
}

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
// the server can stream their changes.
func NewSource(ctx *connector.SourceContext) (connector.Source, error) {
	o := ctx.Options
	o.MarkUsed("plugin_output", "result_table_name", "parallelism", "plugin_name",
		// SeaTunnel's tuning of connections and of snapshot split boundaries
		"connection.pool.size", "chunk-key.even-distribution.factor.upper-bound",
		"chunk-key.even-distribution.factor.lower-bound", "sample-sharding.threshold",
		"inverse-sampling.rate",
		// the schemas and databases are those of table-names
		"schema-names", "schema-name", "database-names")
	s := &Source{
		where:       o.Where(),
		streaming:   ctx.Job.Mode == connector.Streaming,
		parallelism: max(ctx.Parallelism, 1),
		byID:        map[string]*cdcTable{},
		byName:      map[pgwire.TableName]*cdcTable{},
	}
	if err := s.readOptions(o); err != nil {
		return nil, err
	}
	names, pks, err := readTableNames(o, s.conn.Database)
	if err != nil {
		return nil, err
	}

	cctx, cancel := context.WithTimeout(context.Background(), s.conn.Timeout+time.Minute)
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

func (s *Source) readOptions(o *config.Options) error {
	raw, err := o.RequiredString("base-url")
	if err != nil {
		return err
	}
	if s.conn, err = pgwire.ParseURL(raw); err != nil {
		return o.Errorf("base-url", "%v", err)
	}
	if u, err := o.String("username", ""); err != nil {
		return err
	} else if u != "" {
		s.conn.User = u
	}
	if s.conn.User == "" {
		return o.Errorf("username", "option is required")
	}
	if p, err := o.String("password", ""); err != nil {
		return err
	} else if o.Has("password") {
		s.conn.Password = p
	}
	if s.conn.Timeout, err = readDuration(o, "connect.timeout.ms", 30*time.Second); err != nil {
		return err
	}
	if s.conn.Timeout < time.Second {
		s.conn.Timeout = time.Second
	}
	retries, err := o.Int("connect.max-retries", 3)
	if err != nil {
		return err
	}
	if retries < 0 {
		return o.Errorf("connect.max-retries", "must not be negative, got %d", retries)
	}
	s.conn.Retries = int(retries)

	mode, err := o.Enum("startup.mode", startInitial, startInitial, startEarliest, startLatest)
	if err != nil {
		return err
	}
	s.startup = mode
	if _, err := o.Enum("stop.mode", "never", "never"); err != nil {
		return err
	}
	if s.slot, err = o.String("slot.name", "seatunnel"); err != nil {
		return err
	}
	if !slotNameRe.MatchString(s.slot) {
		return o.Errorf("slot.name", "%q is not a replication slot name: lower-case letters, digits and underscores, at most 63", s.slot)
	}
	if plugin, err := o.String("decoding.plugin.name", "pgoutput"); err != nil {
		return err
	} else if !containsFold(decodingPlugins, plugin) {
		return o.Errorf("decoding.plugin.name", "unknown plugin %q; expected one of %s (Strait always decodes with pgoutput)", plugin, strings.Join(decodingPlugins, ", "))
	}
	if format, err := o.Enum("format", "DEFAULT", "DEFAULT", "COMPATIBLE_DEBEZIUM_JSON"); err != nil {
		return err
	} else if format != "DEFAULT" {
		return o.Errorf("format", "%s is not supported: Strait's Postgres-CDC emits rows of the captured tables (format DEFAULT)", format)
	}
	if o.Has("table-pattern") {
		return o.Errorf("table-pattern", "is not supported; list the tables in table-names")
	}
	if s.splitSize, err = o.Int("snapshot.split.size", defaultSplitSize); err != nil {
		return err
	}
	if s.splitSize < 1 {
		return o.Errorf("snapshot.split.size", "must be at least 1, got %d", s.splitSize)
	}
	if fetch, err := o.Int("snapshot.fetch.size", 1024); err != nil {
		return err
	} else if fetch < 1 {
		return o.Errorf("snapshot.fetch.size", "must be at least 1, got %d", fetch)
	}
	if zone, err := o.String("server-time-zone", "UTC"); err != nil {
		return err
	} else if _, err := time.LoadLocation(zone); err != nil {
		return o.Errorf("server-time-zone", "unknown time zone %q", zone)
	}
	if _, err := o.Bool("exactly_once", false); err != nil {
		return err
	}

	s.publication = s.slot + "_publication"
	s.pubMode = pubFiltered
	dbz, err := o.Object("debezium")
	if err != nil {
		return err
	}
	if dbz != nil {
		if s.publication, err = dbz.String("publication.name", s.publication); err != nil {
			return err
		}
		if s.publication = strings.TrimSpace(s.publication); s.publication == "" {
			return dbz.Errorf("publication.name", "must not be empty")
		}
		if s.pubMode, err = dbz.Enum("publication.autocreate.mode", pubFiltered, pubFiltered, pubAllTables, pubDisabled); err != nil {
			return err
		}
		// the rest of Debezium's properties have no meaning here
		o.MarkUsed("debezium")
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

// readDuration reads a duration given in milliseconds, or as a duration string ("30s").
func readDuration(o *config.Options, key string, def time.Duration) (time.Duration, error) {
	s, err := o.String(key, "")
	if err != nil || s == "" {
		return def, err
	}
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, o.Errorf(key, "must not be negative, got %d", n)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(strings.ToLower(s), " ", ""))
	if err != nil || d < 0 {
		return 0, o.Errorf(key, "%q is not a duration (milliseconds, or as 30s)", s)
	}
	return d, nil
}

// readTableNames reads table-names (database.schema.table, or schema.table in the url's
// database) and the primary keys table-names-config gives.
func readTableNames(o *config.Options, database string) ([]pgwire.TableName, map[pgwire.TableName][]string, error) {
	if !o.Has("table-names") {
		return nil, nil, o.Errorf("table-names", "option is required: the tables to capture, as database.schema.table")
	}
	list, err := o.StringList("table-names")
	if err != nil {
		return nil, nil, err
	}
	var names []pgwire.TableName
	seen := map[pgwire.TableName]bool{}
	for _, item := range list {
		for _, n := range strings.Split(item, ",") {
			if n = strings.TrimSpace(n); n == "" {
				continue
			}
			t, err := parseCaptured(n, database)
			if err != nil {
				return nil, nil, o.Errorf("table-names", "%v", err)
			}
			if !seen[t] {
				seen[t] = true
				names = append(names, t)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil, o.Errorf("table-names", "names no table")
	}
	pks := map[pgwire.TableName][]string{}
	entries, err := o.ObjectList("table-names-config")
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		n, err := e.RequiredString("table")
		if err != nil {
			return nil, nil, err
		}
		t, err := parseCaptured(n, database)
		if err != nil {
			return nil, nil, e.Errorf("table", "%v", err)
		}
		if !seen[t] {
			return nil, nil, e.Errorf("table", "table %s is not in table-names", n)
		}
		keys, err := e.StringList("primaryKeys")
		if err != nil {
			return nil, nil, err
		}
		if len(keys) > 0 {
			pks[t] = keys
		}
		// SeaTunnel's other per-table settings (snapshot split column...) are not read
		e.MarkUsed("snapshotSplitColumn")
	}
	return names, pks, nil
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
	out := make([]*catalog.Table, len(s.tables))
	for i, t := range s.tables {
		out[i] = t.table
	}
	return out
}
