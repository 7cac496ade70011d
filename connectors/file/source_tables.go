package file

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/format/xml"
)

// sourceConfigs reads the tables a source reads: each entry of tables_configs (a
// complete LocalFile source config, as in SeaTunnel's BaseMultipleTableFileSourceConfig),
// or the options themselves. Table names must differ.
func sourceConfigs(o *config.Options, opts *SourceConfig, outputName string, fsOf func(int) (FileSystem, error)) ([]*sourceConfig, error) {
	if opts.Tables == nil {
		fsys, err := fsOf(-1)
		if err != nil {
			return nil, err
		}
		c, err := newSourceConfig(&opts.SourceTable, outputName, fsys)
		if err != nil {
			return nil, err
		}
		return []*sourceConfig{c}, nil
	}
	if len(opts.Tables) == 0 {
		return nil, o.Errorf("tables_configs", "needs at least one table config")
	}
	warnIgnoredBesideTables(o)
	var cfgs []*sourceConfig
	seen := map[string]int{}
	for i := range opts.Tables {
		fsys, err := fsOf(i)
		if err != nil {
			return nil, err
		}
		c, err := newSourceConfig(&opts.Tables[i], outputName, fsys)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[c.tableID]; dup {
			return nil, o.Errorf(fmt.Sprintf("tables_configs[%d]", i), "reads table %s, as tables_configs[%d] does: give each table its own name in schema.table", c.tableID, j)
		}
		seen[c.tableID] = i
		c.index = i
		cfgs = append(cfgs, c)
	}
	return cfgs, nil
}

// engineKeys are the options the engine reads itself, beside a plugin's own.
var engineKeys = map[string]bool{
	"plugin_name": true, "plugin_input": true, "plugin_output": true,
	"source_table_name": true, "result_table_name": true, "parallelism": true,
}

// warnIgnoredBesideTables logs the options set beside tables_configs: as in SeaTunnel, each
// entry is a whole config, and they are not read.
func warnIgnoredBesideTables(o *config.Options) {
	var ignored []string
	for _, k := range o.Keys() {
		if k != "tables_configs" && !engineKeys[k] {
			ignored = append(ignored, k)
		}
	}
	if len(ignored) > 0 {
		slog.Warn("LocalFile: the options beside tables_configs are not read; set them in each table's config",
			"plugin", o.Where(), "options", ignored)
	}
}

// splitID names a split: its file, with the table's index before it when the source
// reads several tables (two tables may read the same file).
func splitID(d fileSplit) string {
	if d.Table == 0 {
		return d.id()
	}
	return strconv.Itoa(d.Table) + ":" + d.id()
}

// streamOptions checks what the format does with the bytes of the files: compress_codec,
// archive_compress_codec and encoding, for the formats SeaTunnel applies them to.
func (c *sourceConfig) streamOptions(o *config.Options, opts *SourceTable) error {
	var err error
	c.archive = archiveNone
	if c.compress, c.charset, err = textStreamOptions(o, c.format, opts.CompressCodec, opts.Encoding, "copies files as they are"); err != nil {
		return err
	}
	switch c.format {
	case formatText, formatCSV, formatJSON, formatXML, formatExcel:
		if c.archive, err = archiveCodecOf(o, opts.ArchiveCodec); err != nil {
			return err
		}
	default:
		if otherThanNone(opts.ArchiveCodec) {
			return o.Errorf("archive_compress_codec", "SeaTunnel reads archives of text, csv, json, xml and excel files only; %q does not apply to %s files", opts.ArchiveCodec, c.format)
		}
	}
	return nil
}

// binarySchema is the table a binary source emits: SeaTunnel's three columns, under the
// table name of schema when it has one.
func binarySchema(o *config.Options, hasSchema bool, outputName string) (*catalog.Table, error) {
	t := &catalog.Table{Path: catalog.TablePath{Database: "default", Table: "default"}}
	if hasSchema {
		s, err := catalog.ParseSchema(o, "schema", outputName)
		if err != nil {
			return nil, err
		}
		t.Path = s.Path
	}
	t.Columns = append([]catalog.Column(nil), binaryColumns...)
	return t, nil
}

// formatRecords sets the record format of the formats this file reads.
func (c *sourceConfig) formatRecords(o *config.Options, opts *SourceTable) error {
	switch c.format {
	case formatXML:
		x, err := xml.SourceOptions(o, opts.XMLRowTag, opts.XMLUseAttr)
		if err != nil {
			return err
		}
		c.xml = x
		c.records = xml.NewSource(c.columns(), x, c.delim, c.decodeText)
	case formatBinary:
		c.records = binaryFormat{c: c}
	}
	return nil
}

// splitsOf returns the splits of one listed file of the table: the parts its record format
// cuts it into, or the whole file (always for an archive).
func (c *sourceConfig) splitsOf(ctx context.Context, path string) ([]fileSplit, error) {
	parts := []fileSplit{{Path: path}}
	if c.archive == archiveNone && c.records != nil && c.format != formatXML && c.format != formatBinary {
		var err error
		if parts, err = c.fileSplits(ctx, path); err != nil {
			return nil, err
		}
	}
	for i := range parts {
		parts[i].Table = c.index
	}
	return parts, nil
}

// otherThanNone reports whether a codec option names anything but none (blank is none).
func otherThanNone(s string) bool {
	v := strings.TrimSpace(s)
	return v != "" && !strings.EqualFold(v, "none")
}

// decodeText turns the stored bytes of a file into its text: decompressed (compress_codec)
// and in UTF-8 (encoding); closer releases the decompressor.
func (c *sourceConfig) decodeText(stored io.Reader) (io.Reader, io.Closer, error) {
	r, closer, err := c.compress.decompress(stored)
	if err != nil {
		return nil, nil, err
	}
	return c.charset.decode(r), closer, nil
}
