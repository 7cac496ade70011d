package localfile

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/multitable"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func init() {
	// one sink per input table, with ${table_name} and the other table placeholders of the
	// options replaced for it
	connector.RegisterSinkRaw("LocalFile", func(ctx *connector.SinkContext) (connector.Sink, error) {
		return multitable.Build(ctx, NewSink)
	})
	// partition_by names the partition directories here, not an exchange
	connector.OwnsPartitionBy("sink", "LocalFile")
	connector.RegisterSourceRaw("LocalFile", NewSource)
}

// Defaults, as SeaTunnel's BaseSinkConfig has them.
const (
	defaultTmpPath         = "/tmp/seatunnel"
	defaultFileNameExpr    = "${transactionId}"
	defaultFileNameTimeFmt = "yyyy.MM.dd"
	defaultBatchSize       = 1_000_000
	nonPartitionDir        = "NON_PARTITION"
	stagingDirName         = "seatunnel"
	transactionExpression  = "transactionId"
	defaultRowDelimiter    = "\n"
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
	where       string
	path        string // target directory, absolute
	tmpRoot     string // <tmp_path>/seatunnel, absolute: the staging root
	format      fileFormat
	rowDelim    string
	fieldDelim  string
	nameExpr    string
	timeFormat  *javaTimeFormat
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
	text        textEncoder
	jsonKeys    [][]byte   // `{"a":`, `,"b":`...
	records     recordSink // parquet and excel: the format that writes the files
	schemaSave  string     // schema_save_mode, applied by Setup
	dataSave    string     // data_save_mode, applied by Setup
	compress    compressCodec
	charset     charset
	xml         xmlOptions
}

// NewSink builds a LocalFile sink from its options.
func NewSink(ctx *connector.SinkContext) (connector.Sink, error) {
	cfg, err := parseSinkConfig(ctx.Options, ctx.Inputs)
	if err != nil {
		return nil, err
	}
	return &Sink{cfg: cfg}, nil
}

func parseSinkConfig(o *config.Options, inputs []*catalog.Table) (*sinkConfig, error) {
	o.MarkUsed("plugin_input", "source_table_name", "parallelism", "plugin_name")
	c := &sinkConfig{where: o.Where()}
	path, err := o.String("path", "")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(path) == "" {
		return nil, o.Errorf("path", "option is required")
	}
	if i := strings.Index(path, "${"); i >= 0 {
		// the table placeholders are replaced by now
		return nil, o.Errorf("path", "unknown placeholder in %q (the table placeholders are ${database_name}, ${schema_name}, ${table_name}, ${schema_full_name}, ${table_full_name}, ${primary_key}, ${unique_key} and ${field_names})", path)
	}
	c.path = absPath(path)
	tmp, err := o.String("tmp_path", defaultTmpPath)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(tmp) == "" {
		tmp = defaultTmpPath
	}
	c.tmpRoot = filepath.Join(absPath(tmp), stagingDirName)
	if c.tmpRoot == c.path {
		return nil, o.Errorf("tmp_path", "the staging directory %s must not be path itself", c.tmpRoot)
	}
	if c.format, err = readFormat(o, defaultSinkFormat); err != nil {
		return nil, err
	}
	if err := c.sinkStreamOptions(o); err != nil {
		return nil, err
	}
	// false only lifts the rule that file_name_expression names ${transactionId}: files are
	// staged and committed all the same, as SeaTunnel's file sinks do
	tx, err := o.Bool("is_enable_transaction", true)
	if err != nil {
		return nil, err
	}
	// SeaTunnel documents these two as gates but its code never reads them; neither does Strait.
	if _, err := o.Bool("custom_filename", false); err != nil {
		return nil, err
	}
	if _, err := o.Bool("have_partition", false); err != nil {
		return nil, err
	}
	if c.schemaSave, c.dataSave, err = saveModes(o); err != nil {
		return nil, err
	}

	if c.rowDelim, err = o.String("row_delimiter", defaultRowDelimiter); err != nil {
		return nil, err
	}
	if c.fieldDelim, err = o.String("field_delimiter", defaultSeparators[0]); err != nil {
		return nil, err
	}
	if c.fieldDelim == "" {
		c.fieldDelim = defaultSeparators[0]
	}
	if c.format == formatCSV {
		c.fieldDelim = csvDelimiter
	}

	if c.nameExpr, err = o.String("file_name_expression", defaultFileNameExpr); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.nameExpr) == "" {
		c.nameExpr = defaultFileNameExpr
	}
	if tx && !strings.Contains(c.nameExpr, transactionExpression) {
		return nil, o.Errorf("file_name_expression", "must contain ${%s} when is_enable_transaction is true, got %q", transactionExpression, c.nameExpr)
	}
	if strings.ContainsAny(c.nameExpr, "/\\") {
		return nil, o.Errorf("file_name_expression", "must not contain a path separator, got %q", c.nameExpr)
	}
	if c.timeFmtText, err = o.String("filename_time_format", defaultFileNameTimeFmt); err != nil {
		return nil, err
	}
	if strings.TrimSpace(c.timeFmtText) == "" {
		c.timeFmtText = defaultFileNameTimeFmt
	}
	if c.timeFormat, err = parseJavaTimeFormat(c.timeFmtText); err != nil {
		return nil, o.Errorf("filename_time_format", "%v", err)
	}

	bs, err := o.Int("batch_size", defaultBatchSize)
	if err != nil {
		return nil, err
	}
	if bs < 1 {
		return nil, o.Errorf("batch_size", "must be at least 1, got %d", bs)
	}
	c.batchSize = bs
	header, err := o.Bool("enable_header_write", false)
	if err != nil {
		return nil, err
	}

	c.text.seps = defaultSeparators
	c.text.seps[0] = c.fieldDelim
	if c.text.date, err = layoutOption(o, "date_format", "yyyy-MM-dd", dateLayouts); err != nil {
		return nil, err
	}
	if c.text.dt, err = layoutOption(o, "datetime_format", "yyyy-MM-dd HH:mm:ss", dateTimeLayouts); err != nil {
		return nil, err
	}
	if c.text.tm, err = layoutOption(o, "time_format", "HH:mm:ss", timeLayouts); err != nil {
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
	if err := c.columns(o); err != nil {
		return nil, err
	}
	if c.format == formatText || c.format == formatCSV {
		for i, col := range c.sinkCols {
			if d := textDepth(c.table.Columns[col].Type, 0); d > maxTextLevel {
				return nil, o.Errorf("file_format_type", "column %q of type %s nests too deeply for the %s format (at most %d separator levels)", c.sinkNames[i], c.table.Columns[col].Type, c.format, maxTextLevel+1)
			}
		}
	}
	if header && (c.format == formatText || c.format == formatCSV) {
		delim := c.fieldDelim
		var h []byte
		for i, n := range c.sinkNames {
			if i > 0 {
				h = append(h, delim...)
			}
			h = append(h, n...)
		}
		c.header = append(h, c.rowDelim...)
	}
	for i, n := range c.sinkNames {
		var k []byte
		if i == 0 {
			k = append(k, '{')
		} else {
			k = append(k, ',')
		}
		k = row.AppendJSONString(k, n)
		c.jsonKeys = append(c.jsonKeys, append(k, ':'))
	}
	if err := c.recordSink(o); err != nil {
		return nil, err
	}
	if err := c.formatSink(o); err != nil {
		return nil, err
	}
	return c, nil
}

// columns resolves sink_columns and partition_by against the input table, as SeaTunnel's
// FileSinkConfig does: names match in any case, partition fields must be written columns,
// and leave the file unless is_partition_field_write_in_file is set.
func (c *sinkConfig) columns(o *config.Options) error {
	byName := map[string]int{}
	for i := len(c.table.Columns) - 1; i >= 0; i-- {
		byName[strings.ToLower(c.table.Columns[i].Name)] = i
	}
	names, err := o.StringList("sink_columns")
	if err != nil {
		return err
	}
	var cols []int
	for i, n := range names {
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
	parts, err := o.StringList("partition_by")
	if err != nil {
		return err
	}
	for i, n := range parts {
		idx, ok := byName[strings.ToLower(n)]
		if !ok || !containsInt(cols, idx) {
			return o.Errorf(fmt.Sprintf("partition_by[%d]", i), "partition field %q must be one of the sink columns", n)
		}
		c.partCols = append(c.partCols, idx)
		c.partNames = append(c.partNames, n)
	}
	inFile, err := o.Bool("is_partition_field_write_in_file", false)
	if err != nil {
		return err
	}
	if len(c.partCols) > 0 {
		expr, err := o.String("partition_dir_expression", "")
		if err != nil {
			return err
		}
		if strings.TrimSpace(expr) != "" {
			c.partExpr = expr
		}
		if !inFile {
			kept := cols[:0:0]
			for _, col := range cols {
				if !containsInt(c.partCols, col) {
					kept = append(kept, col)
				}
			}
			cols = kept
		}
	} else if _, err := o.String("partition_dir_expression", ""); err != nil {
		return err
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
	return &Committer{path: s.cfg.path, tmpRoot: s.cfg.tmpRoot, where: s.cfg.where}, nil
}
