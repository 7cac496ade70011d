package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/connectors/internal/format/text"
	"github.com/strait-dev/strait/connectors/internal/format/xml"
	"github.com/strait-dev/strait/connectors/internal/sourcekit"
	"github.com/strait-dev/strait/connectors/internal/splitassign"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/internal/jregex"
	"github.com/strait-dev/strait/types"
)

// Source is a configured LocalFile source.
type Source struct {
	cfg  *sourceConfig   // the first table's
	cfgs []*sourceConfig // every table's, in tables_configs order
}

// colSpec is one column of the declared schema, in file order.
type colSpec struct {
	name string
	t    types.DataType
	out  int // position in the emitted row, -1 when read_columns leaves it out
}

type sourceConfig struct {
	fs              FileSystem // where the files are
	where           string
	path            string
	format          fileFormat
	table           *catalog.Table // the emitted table: read columns, then partition columns
	tableID         string
	width           int
	cols            []colSpec
	byName          map[string]int // schema column name -> index in cols
	noSchema        bool           // text and csv without schema: one string column `content`
	records         format.Source  // parquet and excel: the format that reads the files
	delim           text.Delimiter // text: the delimiter as String.split reads it
	csvDelim        []byte         // csv: the delimiter's first character
	seps            [7]string
	skipHeader      int64
	pattern         *regexp.Regexp
	readPartitions  []string
	parsePartitions bool
	partNames       []string // partition columns, emitted from partBase on
	partBase        int
	index           int           // the table's place in tables_configs
	compress        compressCodec // compress_codec of text, csv, json and xml files
	archive         archiveCodec  // archive_compress_codec
	charset         charset       // encoding of text, csv, json and xml files
	xml             xml.Options
}

// NewSource builds a LocalFile source from its options: one table, or one per entry of
// tables_configs.
func NewSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	return NewSourceOn(ctx, c, func(int) (FileSystem, error) { return Local{}, nil })
}

// NewSourceOn builds a source that reads the files of the file systems fsOf gives:
// LocalFile's source with another file system. fsOf(-1) is that of the options
// themselves, fsOf(i) that of entry i of tables_configs.
func NewSourceOn(ctx *connector.SourceContext, c *SourceConfig, fsOf func(table int) (FileSystem, error)) (connector.Source, error) {
	cfgs, err := sourceConfigs(ctx.Options, c, ctx.OutputName, fsOf)
	if err != nil {
		return nil, err
	}
	return &Source{cfg: cfgs[0], cfgs: cfgs}, nil
}

// newSourceConfig checks one table's options and resolves its schema, projection,
// partitions and formats.
func newSourceConfig(opts *SourceTable, outputName string, fsys FileSystem) (*sourceConfig, error) {
	o := opts.At
	c := &sourceConfig{fs: fsys, where: o.Where()}
	if strings.TrimSpace(opts.Path) == "" {
		return nil, o.Errorf("path", "option is required")
	}
	c.path = c.fs.Abs(opts.Path)
	var err error
	if c.format, err = formatOf(o, opts.Format, ""); err != nil {
		return nil, err
	}
	if err := c.streamOptions(o, opts); err != nil {
		return nil, err
	}
	if err := checkSourceLayouts(o, opts); err != nil {
		return nil, err
	}
	if err := c.delimiter(o, opts.FieldDelimiter); err != nil {
		return nil, err
	}
	if err := checkNotYetSupported(o, opts); err != nil {
		return nil, err
	}
	if c.format != formatJSON {
		if c.skipHeader = opts.SkipHeader; c.skipHeader < 0 {
			return nil, o.Errorf("skip_header_row_number", "must not be negative, got %d", c.skipHeader)
		}
	}
	if c.pattern, err = fileFilter(o, opts.FileFilter); err != nil {
		return nil, err
	}
	c.readPartitions = opts.ReadPartitions
	c.parsePartitions = opts.ParsePartitions

	// schema and projection
	var schema *catalog.Table
	if c.format == formatBinary {
		if schema, err = binarySchema(o, opts.Schema != nil, outputName); err != nil {
			return nil, err
		}
		c.parsePartitions = false // SeaTunnel's binary rows have no partition columns
	} else if opts.Schema != nil {
		if schema, err = catalog.ParseSchema(o, "schema", outputName); err != nil {
			return nil, err
		}
	}
	if c.format == formatParquet && (schema == nil || len(schema.Columns) == 0) {
		// the columns of the first file, as SeaTunnel takes them
		if schema, err = c.parquetFileSchema(o, schema); err != nil {
			return nil, err
		}
	}
	if schema == nil {
		if c.format == formatJSON || c.format == formatExcel || c.format == formatXML {
			return nil, o.Errorf("schema", "option is required for the %s format", c.format)
		}
		c.noSchema = true
		schema = &catalog.Table{Path: catalog.TablePath{Database: "default", Table: "default"},
			Columns: []catalog.Column{{Name: "content", Type: types.Of(types.String), Nullable: true}}}
	}
	var readCols []string
	if c.format != formatBinary { // SeaTunnel's binary rows are always whole
		readCols = opts.ReadColumns
	}
	if len(readCols) > 0 && c.noSchema {
		return nil, o.Errorf("read_columns", "column projection needs a schema: declare the columns of the files in `schema`")
	}
	c.byName = map[string]int{}
	for i, col := range schema.Columns {
		c.cols = append(c.cols, colSpec{name: col.Name, t: col.Type, out: -1})
		c.byName[col.Name] = i
	}
	out := schema.Copy()
	out.Columns = nil
	if len(readCols) == 0 {
		for i := range c.cols {
			c.cols[i].out = i
		}
		out.Columns = append(out.Columns, schema.Columns...)
	} else {
		for i, n := range readCols {
			idx, ok := c.byName[n]
			if !ok {
				return nil, o.Errorf(fmt.Sprintf("read_columns[%d]", i), "unknown column %q; the schema has %s", n, columnNames(schema))
			}
			if c.cols[idx].out >= 0 {
				return nil, o.Errorf(fmt.Sprintf("read_columns[%d]", i), "column %q is listed twice", n)
			}
			c.cols[idx].out = len(out.Columns)
			out.Columns = append(out.Columns, schema.Columns[idx])
		}
	}
	c.partBase = len(out.Columns)

	// partition columns come from the directories of the first file, as in SeaTunnel
	if _, err := c.fs.Stat(c.path); err != nil {
		return nil, o.Errorf("path", "%v", unwrapPathError(err))
	}
	if c.parsePartitions {
		var first string
		if err := c.walk(func(p string) bool { first = p; return false }); err != nil {
			return nil, o.Errorf("path", "%v", err)
		}
		if first != "" {
			for _, kv := range partitionsOf(first) {
				if out.ColumnIndex(kv[0]) >= 0 {
					continue // a column of the file wins over a directory of the same name
				}
				c.partNames = append(c.partNames, kv[0])
				out.Columns = append(out.Columns, catalog.Column{Name: kv[0], Type: types.Of(types.String), Nullable: true})
			}
		}
	}
	out.KeepPresentKeys()
	c.table = out
	c.tableID = out.ID()
	c.width = len(out.Columns)
	c.recordFormat(opts)
	if err := c.formatRecords(o, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// checkSourceLayouts checks the date and time layouts as SeaTunnel does; dates, times and
// timestamps are read in any of the layouts SeaTunnel detects, whichever of these is set.
func checkSourceLayouts(o *config.Options, opts *SourceTable) error {
	if _, err := layoutOf(o, "date_format", opts.DateFormat, dateLayouts); err != nil {
		return err
	}
	if _, err := layoutOf(o, "datetime_format", opts.DateTimeFormat, dateTimeLayouts); err != nil {
		return err
	}
	_, err := layoutOf(o, "time_format", opts.TimeFormat, timeLayouts)
	return err
}

// fileFilter compiles file_filter_pattern, a Java regular expression that must match the
// whole file name, as SeaTunnel's Pattern.matches reads it; nil when it is not set.
func fileFilter(o *config.Options, pat string) (*regexp.Regexp, error) {
	if pat == "" {
		return nil, nil
	}
	goPat, err := jregex.Translate(pat)
	if err != nil {
		return nil, o.Errorf("file_filter_pattern", "%q is read as a Java regular expression: %v", pat, err)
	}
	re, err := regexp.Compile("^(?:" + goPat + ")$")
	if err != nil {
		return nil, o.Errorf("file_filter_pattern", "bad regular expression: %v", err)
	}
	return re, nil
}

// delimiter reads field_delimiter (or its older name delimiter), text, as SeaTunnel's
// readers do: text splits each line with String.split(delimiter, -1), so the delimiter is
// a Java regular expression; csv parses the line with commons-csv and the delimiter's
// first character. Blank is the format's default.
func (c *sourceConfig) delimiter(o *config.Options, delim string) error {
	key := "field_delimiter"
	if !o.Has(key) && o.Has("delimiter") {
		key = "delimiter"
	}
	def := text.DefaultSeparators[0]
	if c.format == formatCSV {
		def = csvDelimiter
	}
	if delim == "" {
		delim = def
	}
	c.seps = text.DefaultSeparators
	c.seps[0] = delim
	if c.format == formatCSV {
		r, n := utf8.DecodeRuneInString(delim)
		if r == '"' || r == '\n' || r == '\r' || r == utf8.RuneError {
			return o.Errorf(key, "the csv format needs a delimiter that starts with a character other than a quote or line break, got %q", delim)
		}
		c.csvDelim = []byte(delim[:n])
		return nil
	}
	var err error
	if c.delim, err = text.CompileDelimiter(delim); err != nil {
		return o.Errorf(key, "%q is read as a Java regular expression, as SeaTunnel's String.split reads it: %v", delim, err)
	}
	return nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

func columnNames(t *catalog.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// partitionsOf returns the key=value directory names of a file's path, outermost first.
func partitionsOf(file string) [][2]string {
	var out [][2]string
	for _, seg := range strings.Split(filepath.ToSlash(filepath.Dir(file)), "/") {
		if i := strings.IndexByte(seg, '='); i >= 0 {
			out = append(out, [2]string{seg[:i], seg[i+1:]})
		}
	}
	return out
}

// walk visits the files the source reads, in lexical order, until visit returns false.
// Like SeaTunnel it descends into every directory and skips empty files, _SUCCESS markers
// and hidden files (names starting with a dot), then applies file_filter_pattern to the
// file name and read_partitions to the path.
func (c *sourceConfig) walk(visit func(path string) bool) error {
	err := c.fs.Walk(c.path, func(p string, size int64) bool {
		if !c.keep(p, size) {
			return true
		}
		return visit(p)
	})
	if err != nil {
		return unwrapPathError(err)
	}
	return nil
}

func (c *sourceConfig) keep(p string, size int64) bool {
	name := filepath.Base(p)
	if size <= 0 || name == "_SUCCESS" || strings.HasPrefix(name, ".") {
		return false
	}
	if c.pattern != nil && !c.pattern.MatchString(name) {
		return false
	}
	if len(c.readPartitions) > 0 {
		for _, rp := range c.readPartitions {
			if strings.Contains(p, rp) {
				return true
			}
		}
		return false
	}
	return true
}

// Boundedness: a file source ends when its files are read.
func (s *Source) Boundedness() connector.Boundedness { return connector.Bounded }

// Tables are the tables the source emits, one per entry of tables_configs.
func (s *Source) Tables() []*catalog.Table {
	return sourcekit.Tables(s.cfgs, func(c *sourceConfig) *catalog.Table { return c.table })
}

// ---- enumerator ----

// enumerator lists the files once and hands them out round-robin, one split per file.
type enumerator struct {
	*splitassign.Static
	cfg  *sourceConfig
	cfgs []*sourceConfig
}

// CreateEnumerator makes the enumerator; a restored one does not hand out again the files
// it had assigned (their progress lives in the readers' state).
func (s *Source) CreateEnumerator(ctx connector.EnumeratorContext, state []byte) (connector.Enumerator, error) {
	st, err := splitassign.Restore(state)
	if err != nil {
		return nil, fmt.Errorf("%s: bad enumerator state: %v", s.cfg.where, err)
	}
	return &enumerator{Static: splitassign.New(ctx, st.Assigned), cfg: s.cfg, cfgs: s.cfgs}, nil
}

// Run lists the files of each table and assigns split i (in table order, then path order;
// each row group of a parquet file is a split of its own) to reader i mod parallelism.
func (e *enumerator) Run(ctx context.Context) error {
	var splits []connector.Split
	for _, c := range e.cfgs {
		var files []string
		if err := c.walk(func(p string) bool {
			files = append(files, p)
			return ctx.Err() == nil
		}); err != nil {
			return fmt.Errorf("%s: list %s: %w", c.where, c.path, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			parts, err := c.splitsOf(ctx, f)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", c.where, f, err)
			}
			for _, d := range parts {
				splits = append(splits, newSplit(d))
			}
		}
	}
	e.Start(splits)
	return nil
}

func (e *enumerator) Snapshot(int64) ([]byte, error) { return e.SnapshotState() }
