package file

import (
	"fmt"
	"path/filepath"
	"strings"

	jsonformat "github.com/strait-dev/strait/connectors/internal/format/json"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/connectors/internal/format/text"
	"github.com/strait-dev/strait/connectors/internal/format/xml"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/types"
)

// Names and defaults, as SeaTunnel's BaseSinkConfig has them; the defaults here are what a
// blank option stands for (SinkConfig's tags give those of an absent one).
const (
	defaultTmpPath         = "/tmp/seatunnel"
	defaultFileNameExpr    = "${transactionId}"
	defaultFileNameTimeFmt = "yyyy.MM.dd"
	nonPartitionDir        = "NON_PARTITION"
	stagingDirName         = "seatunnel"
	transactionExpression  = "transactionId"
	csvDelimiter           = ","
	defaultSinkFormat      = "text"
	writeBufferSize        = 128 << 10
)

// Sink is a configured LocalFile sink.
type Sink struct {
	cfg *sinkConfig
}

// sinkConfig is everything the writers and the committer need, read once from the options.
type sinkConfig struct {
	fs          FileSystem // where path and the staging root are
	where       string
	path        string // target directory, absolute
	tmpRoot     string // <tmp_path>/seatunnel, absolute: the staging root
	format      fileFormat
	rowDelim    string
	fieldDelim  string
	nameExpr    string
	timeFormat  *javatime.Pattern // filename_time_format
	timeFmtText string
	table       *catalog.Table
	sinkCols    []int // input column of each written column
	sinkTypes   []types.DataType
	sinkNames   []string
	partCols    []int // input column of each partition field
	partNames   []string
	partExpr    string // "" writes k0=v0/k1=v1
	header      []byte // header line and row delimiter, or nil
	batchSize   int64
	textEnc     text.Encoder
	jsonKeys    [][]byte    // `{"a":`, `,"b":`...
	records     format.Sink // parquet and excel: the format that writes the files
	schemaSave  string      // schema_save_mode, applied by Setup
	dataSave    string      // data_save_mode, applied by Setup
	compress    compressCodec
	charset     charset
	xml         xml.Options
}

// NewSink builds the LocalFile sink of one input table from its options, o decoded into
// c (multitable.BuildDecoded builds one per table).
func NewSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	return NewSinkOn(ctx, c, Local{})
}

// NewSinkOn builds the sink of one input table that writes into fsys: LocalFile's sink
// with another file system.
func NewSinkOn(ctx *connector.SinkContext, c *SinkConfig, fsys FileSystem) (connector.Sink, error) {
	cfg, err := newSinkConfig(ctx.Options, c, ctx.Inputs, fsys)
	if err != nil {
		return nil, err
	}
	return &Sink{cfg: cfg}, nil
}

func newSinkConfig(o *config.Options, opts *SinkConfig, inputs []*catalog.Table, fsys FileSystem) (*sinkConfig, error) {
	c := &sinkConfig{fs: fsys, where: o.Where()}
	if err := c.paths(o, opts); err != nil {
		return nil, err
	}
	var err error
	if c.format, err = formatOf(o, opts.Format, defaultSinkFormat); err != nil {
		return nil, err
	}
	if err := c.sinkStreamOptions(o, opts); err != nil {
		return nil, err
	}
	if err := checkSinkNotYetSupported(o, opts); err != nil {
		return nil, err
	}
	c.schemaSave, c.dataSave = opts.SchemaSaveMode, opts.DataSaveMode
	c.rowDelim, c.fieldDelim = opts.RowDelimiter, opts.FieldDelimiter
	if c.fieldDelim == "" {
		c.fieldDelim = text.DefaultSeparators[0]
	}
	if c.format == formatCSV {
		c.fieldDelim = csvDelimiter
	}
	if err := c.fileNames(o, opts); err != nil {
		return nil, err
	}
	if c.batchSize = opts.BatchSize; c.batchSize < 1 {
		return nil, o.Errorf("batch_size", "must be at least 1, got %d", c.batchSize)
	}
	if err := c.textLayouts(o, opts); err != nil {
		return nil, err
	}

	// the table written (multitable.Build gives each table a sink of its own)
	if len(inputs) != 1 {
		return nil, o.Errorf("", "LocalFile needs one input table to write, got %d", len(inputs))
	}
	c.table = inputs[0]
	if len(c.table.Columns) == 0 {
		return nil, o.Errorf("", "input table %s has no columns", c.table.ID())
	}
	if err := c.columns(o, opts); err != nil {
		return nil, err
	}
	if err := c.checkTextDepth(o); err != nil {
		return nil, err
	}
	if opts.EnableHeaderWrite != nil && *opts.EnableHeaderWrite && (c.format == formatText || c.format == formatCSV) {
		c.header = c.headerLine()
	}
	c.jsonKeys = jsonformat.Keys(c.sinkNames)
	if err := c.recordSink(o, opts); err != nil {
		return nil, err
	}
	if err := c.formatSink(o, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// paths resolves path, whose table placeholders are replaced by now, and the staging root
// below tmp_path (blank is the default).
func (c *sinkConfig) paths(o *config.Options, opts *SinkConfig) error {
	if strings.TrimSpace(opts.Path) == "" {
		return o.Errorf("path", "option is required")
	}
	if strings.Contains(opts.Path, "${") {
		return o.Errorf("path", "unknown placeholder in %q (the table placeholders are ${database_name}, ${schema_name}, ${table_name}, ${schema_full_name}, ${table_full_name}, ${primary_key}, ${unique_key} and ${field_names})", opts.Path)
	}
	c.path = c.fs.Abs(opts.Path)
	tmp := opts.TmpPath
	if strings.TrimSpace(tmp) == "" {
		tmp = defaultTmpPath
	}
	c.tmpRoot = filepath.Join(c.fs.Abs(tmp), stagingDirName)
	if c.tmpRoot == c.path {
		return o.Errorf("tmp_path", "the staging directory %s must not be path itself", c.tmpRoot)
	}
	return nil
}

// fileNames checks file_name_expression and filename_time_format (blank ones are the
// defaults). is_enable_transaction = false only lifts the rule that the expression names
// ${transactionId}: files are staged and committed all the same, as SeaTunnel's file sinks
// do.
func (c *sinkConfig) fileNames(o *config.Options, opts *SinkConfig) error {
	if c.nameExpr = opts.FileNameExpr; strings.TrimSpace(c.nameExpr) == "" {
		c.nameExpr = defaultFileNameExpr
	}
	if opts.Transaction && !strings.Contains(c.nameExpr, transactionExpression) {
		return o.Errorf("file_name_expression", "must contain ${%s} when is_enable_transaction is true, got %q", transactionExpression, c.nameExpr)
	}
	if strings.ContainsAny(c.nameExpr, "/\\") {
		return o.Errorf("file_name_expression", "must not contain a path separator, got %q", c.nameExpr)
	}
	if c.timeFmtText = opts.FileNameTimeFmt; strings.TrimSpace(c.timeFmtText) == "" {
		c.timeFmtText = defaultFileNameTimeFmt
	}
	var err error
	if c.timeFormat, err = javatime.Compile(c.timeFmtText); err != nil {
		return o.Errorf("filename_time_format", "%v", err)
	}
	return nil
}

// textLayouts sets up the text encoder: the field delimiter and the date and time layouts.
func (c *sinkConfig) textLayouts(o *config.Options, opts *SinkConfig) error {
	c.textEnc.Seps = text.DefaultSeparators
	c.textEnc.Seps[0] = c.fieldDelim
	var err error
	if c.textEnc.Date, err = layoutOf(o, "date_format", opts.DateFormat, dateLayouts); err != nil {
		return err
	}
	if c.textEnc.DateTime, err = layoutOf(o, "datetime_format", opts.DateTimeFormat, dateTimeLayouts); err != nil {
		return err
	}
	c.textEnc.Time, err = layoutOf(o, "time_format", opts.TimeFormat, timeLayouts)
	return err
}

// checkTextDepth refuses, for text and csv, a column whose type nests deeper than the
// separators go.
func (c *sinkConfig) checkTextDepth(o *config.Options) error {
	if c.format != formatText && c.format != formatCSV {
		return nil
	}
	for i, col := range c.sinkCols {
		if d := text.Depth(c.table.Columns[col].Type, 0); d > text.MaxLevel {
			return o.Errorf("file_format_type", "column %q of type %s nests too deeply for the %s format (at most %d separator levels)", c.sinkNames[i], c.table.Columns[col].Type, c.format, text.MaxLevel+1)
		}
	}
	return nil
}

// headerLine is the header of text and csv files: the written column names and a row
// delimiter.
func (c *sinkConfig) headerLine() []byte {
	var h []byte
	for i, n := range c.sinkNames {
		if i > 0 {
			h = append(h, c.fieldDelim...)
		}
		h = append(h, n...)
	}
	return append(h, c.rowDelim...)
}

// columns resolves sink_columns and partition_by against the input table, as SeaTunnel's
// FileSinkConfig does: names match in any case, partition fields must be written columns,
// and leave the file unless is_partition_field_write_in_file is set.
func (c *sinkConfig) columns(o *config.Options, opts *SinkConfig) error {
	byName := map[string]int{}
	for i := len(c.table.Columns) - 1; i >= 0; i-- {
		byName[strings.ToLower(c.table.Columns[i].Name)] = i
	}
	var cols []int
	for i, n := range opts.SinkColumns {
		idx, ok := byName[strings.ToLower(n)]
		if !ok {
			return o.Errorf(fmt.Sprintf("sink_columns[%d]", i), "unknown column %q in table %s", n, c.table.ID())
		}
		cols = append(cols, idx)
	}
	if len(cols) == 0 {
		for i := range c.table.Columns {
			cols = append(cols, i)
		}
	}
	for i, n := range opts.PartitionBy {
		idx, ok := byName[strings.ToLower(n)]
		if !ok || !containsInt(cols, idx) {
			return o.Errorf(fmt.Sprintf("partition_by[%d]", i), "partition field %q must be one of the sink columns", n)
		}
		c.partCols = append(c.partCols, idx)
		c.partNames = append(c.partNames, n)
	}
	if len(c.partCols) > 0 {
		if strings.TrimSpace(opts.PartitionDirExpr) != "" {
			c.partExpr = opts.PartitionDirExpr
		}
		if !opts.PartitionInFile {
			kept := cols[:0:0]
			for _, col := range cols {
				if !containsInt(c.partCols, col) {
					kept = append(kept, col)
				}
			}
			cols = kept
		}
	}
	if len(cols) == 0 {
		return o.Errorf("sink_columns", "no column is left to write once the partition fields are removed")
	}
	c.sinkCols = cols
	for _, col := range cols {
		c.sinkTypes = append(c.sinkTypes, c.table.Columns[col].Type)
		c.sinkNames = append(c.sinkNames, c.table.Columns[col].Name)
	}
	return nil
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// CreateCommitter returns the committer that moves staged files into path.
func (s *Sink) CreateCommitter() (connector.Committer, error) {
	return &Committer{fs: s.cfg.fs, path: s.cfg.path, tmpRoot: s.cfg.tmpRoot, where: s.cfg.where}, nil
}
