package jdbc

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/multitable"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

func init() {
	// one sink per input table, with ${table_name} and the other table placeholders of the
	// options replaced for it: each table's options are decoded again
	multitable.RegisterSink("Jdbc", "Writes rows to a PostgreSQL, MySQL or MariaDB table: generated upserts and deletes applied per batch (multi-row statements on MySQL), a query per row, or COPY (PostgreSQL); with is_exactly_once, one prepared transaction (PostgreSQL) or XA transaction (MySQL) per checkpoint. Save modes create or clear the table first.", NewSink)
}

// SinkConfig is the Jdbc sink's options.
type SinkConfig struct {
	ConnOptions
	Query       string   `opt:"query" doc:"the statement run for every row, its fields bound to ? in order or to :name by field name; instead of generate_sink_sql"`
	Generate    bool     `opt:"generate_sink_sql" default:"false" doc:"generate the statements for table from the input's fields and key, instead of a query"`
	Database    string   `opt:"database" doc:"the target's database, default the url's; on PostgreSQL it must be the url's, on MySQL any database of the server"`
	Table       string   `opt:"table" doc:"the target table, schema.table or table; default the input table's name"`
	Schema      string   `opt:"schema" doc:"the target table's schema, instead of the one table names (PostgreSQL; MySQL has none)"`
	TablePrefix string   `opt:"tablePrefix" doc:"put before the target table's name"`
	TableSuffix string   `opt:"tableSuffix" doc:"put after the target table's name"`
	PrimaryKeys []string `opt:"primary_keys" doc:"the key rows are upserted and deleted by; default the input's primary key, else its first unique key"`
	FieldIde    string   `opt:"field_ide" default:"ORIGINAL" enum:"ORIGINAL,UPPERCASE,LOWERCASE" doc:"the case of the target's column names and of its table name"`

	BatchSize     int64 `opt:"batch_size" default:"1000" doc:"rows buffered before they are written"`
	ExactlyOnce   bool  `opt:"is_exactly_once" default:"false" doc:"write each checkpoint's rows in a prepared transaction (PostgreSQL's PREPARE TRANSACTION, MySQL's XA) committed when the checkpoint completes"`
	AutoCommit    bool  `opt:"auto_commit" default:"true" doc:"commit every batch as it is written; false keeps a transaction open until the checkpoint"`
	UseCopy       bool  `opt:"use_copy_statement" default:"false" doc:"insert every row in bulk, to the table named by table, query or not: on PostgreSQL by COPY, or by one INSERT of arrays per flush where that is faster (batch_size under 5000); on MySQL, multi-row INSERTs"`
	EnableUpsert  bool  `opt:"enable_upsert" default:"true" doc:"upsert rows by key (INSERT ... ON CONFLICT, on MySQL ON DUPLICATE KEY UPDATE); false inserts INSERTs and updates UPDATE_AFTERs"`
	PKUpdated     bool  `opt:"is_primary_key_updated" default:"true" doc:"update the key columns too when a row is updated"`
	InsertOnly    bool  `opt:"support_upsert_by_insert_only" default:"false" doc:"write every change of a key as an insert (after deleting the key)"`
	QueryPKExists bool  `opt:"support_upsert_by_query_primary_key_exist,noeffect" default:"false" doc:"query whether a key exists to choose between insert and update; Strait upserts with ON CONFLICT (ON DUPLICATE KEY UPDATE), which needs no query"`

	SchemaSaveMode string `opt:"schema_save_mode" default:"CREATE_SCHEMA_WHEN_NOT_EXIST" enum:"RECREATE_SCHEMA,CREATE_SCHEMA_WHEN_NOT_EXIST,ERROR_WHEN_SCHEMA_NOT_EXIST,IGNORE" doc:"what the sink does to the target table before the job first writes: recreate it, create it when it does not exist, require it, or nothing"`
	DataSaveMode   string `opt:"data_save_mode" default:"APPEND_DATA" enum:"DROP_DATA,APPEND_DATA,CUSTOM_PROCESSING,ERROR_WHEN_DATA_EXISTS" doc:"what the sink does to an existing table's rows before the job first writes: delete them, keep them, run custom_sql, or require none"`
	CustomSQL      string `opt:"custom_sql" doc:"the statement data_save_mode CUSTOM_PROCESSING runs"`
	CreateIndex    bool   `opt:"create_index,noeffect" default:"true" doc:"create the indexes of a table the sink creates; Strait always creates its primary key, which the upserts need, and no other index"`

	Replicas              int64 `opt:"multi_table_sink_replica,noeffect" default:"1" doc:"writers per table of SeaTunnel's multi-table sink; Strait's parallelism sets how many writers a sink has"`
	MaxCommitAttempts     int64 `opt:"max_commit_attempts,noeffect" default:"3" doc:"attempts to commit a transaction; Strait's committer is retried until it succeeds, and commits idempotently (a prepared or XA transaction that is gone was committed)"`
	TransactionTimeoutSec int64 `opt:"transaction_timeout_sec,noeffect" default:"-1" doc:"timeout of an XA transaction; neither MySQL's XA transactions (Connector/J ignores it too) nor PostgreSQL's prepared transactions have one: they wait for their commit however long it takes"`
}

// writeMode is how the sink turns rows into statements.
type writeMode int

const (
	// modeQuery runs the configured query for every row, fields bound in order.
	modeQuery writeMode = iota
	// modeInsert inserts every row (a generated INSERT on a table without a primary key).
	modeInsert
	// modeUpsert reduces rows by key and upserts (INSERT ... ON CONFLICT) or deletes.
	modeUpsert
	// modeInsertUpdate reduces rows by key and inserts INSERTs, updates UPDATE_AFTERs and
	// deletes DELETEs (enable_upsert = false).
	modeInsertUpdate
	// modeInsertOnly reduces rows by key and inserts or deletes
	// (support_upsert_by_insert_only).
	modeInsertOnly
)

// Save modes, as SeaTunnel names them.
const (
	recreateSchema       = "RECREATE_SCHEMA"
	createWhenNotExist   = "CREATE_SCHEMA_WHEN_NOT_EXIST"
	errorWhenNotExist    = "ERROR_WHEN_SCHEMA_NOT_EXIST"
	ignoreSchema         = "IGNORE"
	dropData             = "DROP_DATA"
	appendData           = "APPEND_DATA"
	customProcessing     = "CUSTOM_PROCESSING"
	errorWhenDataExists  = "ERROR_WHEN_DATA_EXISTS"
	defaultSinkBatchSize = 1000
)

// sinkConfig is everything a writer and the committer need, read once from the options.
type sinkConfig struct {
	where       string
	input       *catalog.Table
	mode        writeMode
	query       sinkQuery // modeQuery: the query as the driver runs it
	nParams     int       // modeQuery: how many fields it binds
	queryFields []int     // modeQuery: the input field each parameter binds
	target      pgwire.TableName
	columns     []string // written columns (the input's, field_ide applied)
	// fields is the input field of each written column; nil when every input field is
	// written, in order (a restored writer leaves out a column its target no longer has)
	fields   []int
	pk       []int    // written column of each primary key column
	pkNames  []string // the key's input columns, by name: schema changes keep them
	ide      string   // field_ide
	restored bool     // a restored writer: it writes the input columns its target has
	// evolved: the writer applied a schema change (or was restored from one that had), so
	// its state keeps its input table; a writer that never did takes the planned one on a
	// restore, which reads the source's columns as they are now
	evolved bool

	pkUpdated   bool
	useCopy     bool
	batchSize   int
	exactlyOnce bool
	autoCommit  bool
	// prepare is whether the save modes prepare the table: not when a query is set
	prepare    bool
	schemaSave string
	dataSave   string
	customSQL  string
	// tag tells this sink's prepared transactions from other sinks' of the same job
	tag string

	// db is the database's driver
	db database
}

// Sink is a configured Jdbc sink for one table.
type Sink struct{ cfg *sinkConfig }

// NewSink builds a Jdbc sink from its options and its one input table.
func NewSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	cfg, err := sinkConfigOf(c, ctx.Inputs)
	if err != nil {
		return nil, err
	}
	return &Sink{cfg: cfg}, nil
}

func sinkConfigOf(sc *SinkConfig, inputs []*catalog.Table) (*sinkConfig, error) {
	o := sc.At
	c := &sinkConfig{where: o.Where()}
	db, err := databaseOf(&sc.ConnOptions)
	if err != nil {
		return nil, err
	}
	c.db = db
	if len(inputs) != 1 {
		return nil, o.Errorf("", "Jdbc needs one input table to write, got %d", len(inputs))
	}
	c.input = inputs[0]
	if len(c.input.Columns) == 0 {
		return nil, o.Errorf("", "input table %s has no columns", c.input.ID())
	}
	if sc.BatchSize < 1 {
		return nil, o.Errorf("batch_size", "must be at least 1, got %d", sc.BatchSize)
	}
	c.batchSize = int(min(sc.BatchSize, math.MaxInt32))
	c.exactlyOnce, c.autoCommit, c.useCopy = sc.ExactlyOnce, sc.AutoCommit, sc.UseCopy
	c.schemaSave, c.dataSave, c.customSQL = sc.SchemaSaveMode, sc.DataSaveMode, sc.CustomSQL
	if c.dataSave == customProcessing && strings.TrimSpace(c.customSQL) == "" {
		return nil, o.Errorf("custom_sql", "is required when data_save_mode is %s", customProcessing)
	}
	c.ide = sc.FieldIde
	c.columns = make([]string, len(c.input.Columns))
	for i, col := range c.input.Columns {
		c.columns[i] = applyIde(col.Name, sc.FieldIde)
	}

	// SeaTunnel's order: use_copy_statement writes through COPY to the named table, else a
	// query writes every row, else the statements are generated for the named table. Save
	// modes only prepare a table the sink generates its statements for.
	query := strings.TrimSpace(sc.Query)
	if query == "" && !sc.Generate {
		return nil, o.Errorf("query", "is required unless generate_sink_sql is true")
	}
	c.prepare = query == ""
	if query != "" && !c.useCopy {
		if err := c.parseQuery(o, query); err != nil {
			return nil, err
		}
		return c, nil
	}
	if err := c.parseTarget(sc); err != nil {
		return nil, err
	}
	if err := c.keyOf(sc); err != nil {
		return nil, err
	}
	switch {
	case c.useCopy || len(c.pk) == 0:
		c.mode = modeInsert
	case sc.InsertOnly:
		c.mode = modeInsertOnly
	case sc.EnableUpsert:
		c.mode = modeUpsert
	default:
		c.mode = modeInsertUpdate
	}
	c.pkUpdated = sc.PKUpdated
	for _, col := range c.input.Columns {
		if !c.prepare {
			break
		}
		if _, err := c.db.columnType(col); err != nil && c.schemaSave != ignoreSchema && c.schemaSave != errorWhenNotExist {
			return nil, o.Errorf("schema_save_mode", "cannot create column %q: %v", col.Name, err)
		}
	}
	return c, nil
}

// keyOf picks the key rows are written by: primary_keys, else the input's primary key, else
// its first unique key.
func (c *sinkConfig) keyOf(sc *SinkConfig) error {
	pks := sc.PrimaryKeys
	if !sc.At.Has("primary_keys") {
		if c.input.PrimaryKey != nil {
			pks = c.input.PrimaryKey.Columns
		} else {
			for _, k := range c.input.ConstraintKeys {
				if strings.EqualFold(k.Type, "UNIQUE_KEY") {
					for _, col := range k.Columns {
						pks = append(pks, col.Name)
					}
					break
				}
			}
		}
	}
	seen := map[int]bool{}
	for _, name := range pks {
		i := c.input.ColumnIndex(name)
		if i < 0 {
			return sc.At.Errorf("primary_keys", "column %q is not a field of the input table %s (fields: %s)", name, c.input.ID(), strings.Join(fieldNames(c.input), ", "))
		}
		if !seen[i] {
			seen[i] = true
			c.pk = append(c.pk, i)
			c.pkNames = append(c.pkNames, c.input.Columns[i].Name)
		}
	}
	return nil
}

// writtenFields is the input field of each written column.
func (c *sinkConfig) writtenFields() []int {
	if c.fields != nil {
		return c.fields
	}
	out := make([]int, len(c.columns))
	for i := range out {
		out[i] = i
	}
	return out
}

// parseQuery reads the statement a query sink runs for every row: its fields bound to ?
// in order or, without any ?, to SeaTunnel's named placeholders (:field).
func (c *sinkConfig) parseQuery(o *config.Options, query string) error {
	c.mode = modeQuery
	c.tag = tagOf(query)
	q, n, names, err := c.db.bindQuery(query)
	if err != nil {
		return o.Errorf("query", "%v", err)
	}
	c.query = q
	if n > len(c.input.Columns) {
		return o.Errorf("query", "binds %d parameters, the input table %s has %d fields", n, c.input.ID(), len(c.input.Columns))
	}
	c.queryFields = make([]int, 0, n+len(names))
	for i := range n {
		c.queryFields = append(c.queryFields, i)
	}
	for _, name := range names {
		i := c.input.ColumnIndex(name)
		if i < 0 {
			return o.Errorf("query", "parameter :%s is not a field of the input table %s (fields: %s)", name, c.input.ID(), strings.Join(fieldNames(c.input), ", "))
		}
		c.queryFields = append(c.queryFields, i)
	}
	c.nParams = len(c.queryFields)
	return nil
}

// sqlLexis is how a dialect writes string literals, quoted names and comments, the places
// a statement's placeholders are not looked for in.
type sqlLexis struct {
	quotes      string // the bytes that open and close a literal or a quoted name
	backslashIn string // the quotes in which a backslash escapes the next byte
	// hashComments: # starts a comment too, and -- starts one only before a space
	hashComments bool
}

// lineComment reports whether rest starts a comment that runs to the end of its line.
func (l sqlLexis) lineComment(rest string) bool {
	if l.hashComments {
		return rest[0] == '#' || strings.HasPrefix(rest, "-- ")
	}
	return strings.HasPrefix(rest, "--")
}

// rewritePlaceholders copies a statement, offering each position outside string literals,
// quoted names and comments to at, which writes a replacement and returns how many bytes
// it stands for (0 copies the byte as it is).
func rewritePlaceholders(q string, lex sqlLexis, at func(b *strings.Builder, rest string) int) (string, error) {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case strings.IndexByte(lex.quotes, c) >= 0:
			escapes := strings.IndexByte(lex.backslashIn, c) >= 0
			j := i + 1
			for ; j < len(q); j++ {
				if escapes && q[j] == '\\' {
					j++
					continue
				}
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j++
						continue
					}
					break
				}
			}
			if j >= len(q) {
				return "", fmt.Errorf("unterminated %c at offset %d", c, i)
			}
			b.WriteString(q[i : j+1])
			i = j
		case lex.lineComment(q[i:]):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return "", fmt.Errorf("unterminated comment at offset %d", i)
			}
			b.WriteString(q[i : i+j+4])
			i += j + 3
		default:
			if n := at(&b, q[i:]); n > 0 {
				i += n - 1
				continue
			}
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// namedPlaceholder reads SeaTunnel's named placeholder (:field) at the start of rest: the
// field and how many bytes it stands for. A cast (::) stands for 2 bytes and names no
// field; rest starting otherwise is n 0. A name starts with a letter or an underscore.
func namedPlaceholder(rest string) (name string, n int) {
	if rest[0] != ':' {
		return "", 0
	}
	if len(rest) > 1 && rest[1] == ':' {
		return "", 2
	}
	j := 1
	for j < len(rest) && (rest[j] == '_' || rest[j] == '.' || isLetter(rest[j]) || (j > 1 && rest[j] >= '0' && rest[j] <= '9')) {
		j++
	}
	if j == 1 || rest[1] == '.' {
		return "", 0
	}
	return rest[1:j], j
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 }

// parseTarget reads the table the sink writes: the database and table options (by
// default the url's database and the input table's name) as the driver reads them, then
// tablePrefix and tableSuffix, and field_ide, which changes the case of the table's name
// as SeaTunnel's dialects do (the last part of the name only).
func (c *sinkConfig) parseTarget(sc *SinkConfig) error {
	table := sc.Table
	if strings.TrimSpace(table) == "" {
		table = c.input.Path.Table
	}
	if strings.TrimSpace(table) == "" {
		return sc.At.Errorf("table", "is required when generate_sink_sql is true and the input table has no name")
	}
	t, err := c.db.target(sc, table)
	if err != nil {
		return err
	}
	t.Table = applyIde(sc.TablePrefix+t.Table+sc.TableSuffix, sc.FieldIde)
	c.target = t
	c.tag = tagOf(t.String())
	return nil
}

func fieldNames(t *catalog.Table) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

func applyIde(s, ide string) string {
	switch ide {
	case "UPPERCASE":
		return strings.ToUpper(s)
	case "LOWERCASE":
		return strings.ToLower(s)
	}
	return s
}

func tagOf(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%08x", h.Sum32())
}

// CreateWriter connects a writer and prepares its statements; restored from states, it
// first settles the prepared transactions they list and those this subtask left behind.
func (s *Sink) CreateWriter(ctx connector.WriterContext, states [][]byte) (connector.Writer, error) {
	return s.cfg.db.newWriter(s.cfg, ctx, states)
}

// CreateCommitter returns the committer of prepared transactions, or nil when the sink
// writes without them.
func (s *Sink) CreateCommitter() (connector.Committer, error) {
	if !s.cfg.exactlyOnce {
		return nil, nil
	}
	return &Committer{cfg: s.cfg}, nil
}
