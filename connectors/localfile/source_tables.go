package localfile

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
)

// parseSourceConfigs reads the tables a source reads: each entry of tables_configs (a
// complete LocalFile source config, as in SeaTunnel's BaseMultipleTableFileSourceConfig),
// or the options themselves. Table names must differ.
func parseSourceConfigs(o *config.Options, outputName string) ([]*sourceConfig, error) {
	if !o.Has("tables_configs") {
		c, err := parseSourceConfig(o, outputName)
		if err != nil {
			return nil, err
		}
		return []*sourceConfig{c}, nil
	}
	o.MarkUsed("plugin_output", "result_table_name", "parallelism", "plugin_name")
	entries, err := o.ObjectList("tables_configs")
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, o.Errorf("tables_configs", "needs at least one table config")
	}
	var cfgs []*sourceConfig
	seen := map[string]int{}
	for i, e := range entries {
		c, err := parseSourceConfig(e, outputName)
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

// splitID names a split: its file, with the table's index before it when the source
// reads several tables (two tables may read the same file).
func splitID(d fileSplit) string {
	if d.Table == 0 {
		return d.id()
	}
	return strconv.Itoa(d.Table) + ":" + d.id()
}

// streamOptions reads what the format does with the bytes of the files: compress_codec,
// archive_compress_codec and encoding, for the formats SeaTunnel applies them to.
func (c *sourceConfig) streamOptions(o *config.Options) error {
	var err error
	c.compress, c.archive, c.charset = codecNone, archiveNone, charset{name: "UTF-8"}
	switch c.format {
	case formatText, formatCSV, formatJSON, formatXML:
		if c.compress, err = readCompressCodec(o); err != nil {
			return err
		}
		if c.charset, err = readCharset(o); err != nil {
			return err
		}
	case formatBinary:
		if s, set, err := setOtherThanNone(o, "compress_codec"); err != nil {
			return err
		} else if set {
			return o.Errorf("compress_codec", "the binary format copies files as they are; %q does not apply", s)
		}
	}
	switch c.format {
	case formatText, formatCSV, formatJSON, formatXML, formatExcel:
		if c.archive, err = readArchiveCodec(o); err != nil {
			return err
		}
	default:
		if s, set, err := setOtherThanNone(o, "archive_compress_codec"); err != nil {
			return err
		} else if set {
			return o.Errorf("archive_compress_codec", "SeaTunnel reads archives of text, csv, json, xml and excel files only; %q does not apply to %s files", s, c.format)
		}
	}
	return nil
}

// binarySchema is the table a binary source emits: SeaTunnel's three columns, under the
// table name of schema when it has one.
func binarySchema(o *config.Options, outputName string) (*catalog.Table, error) {
	t := &catalog.Table{Path: catalog.TablePath{Database: "default", Table: "default"}}
	if o.Has("schema") {
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
func (c *sourceConfig) formatRecords(o *config.Options) error {
	switch c.format {
	case formatXML:
		x, err := readXMLOptions(o, false)
		if err != nil {
			return err
		}
		c.xml = x
		c.records = xmlFormat{c: c}
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

// setOtherThanNone reads a codec option that does not apply: set reports whether it names
// anything but none.
func setOtherThanNone(o *config.Options, key string) (string, bool, error) {
	s, err := o.String(key, "none")
	if err != nil {
		return "", false, err
	}
	v := strings.TrimSpace(s)
	return s, v != "" && !strings.EqualFold(v, "none"), nil
}
