package localfile

import (
	"io"

	"github.com/strait-dev/strait/config"
)

// sinkStreamOptions reads what the sink does with the bytes it writes: compress_codec and
// encoding for text, csv, json and xml files (parquet and excel read compress_codec
// themselves); binary files are written as they come.
func (c *sinkConfig) sinkStreamOptions(o *config.Options) error {
	var err error
	c.compress, c.charset = codecNone, charset{name: "UTF-8"}
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
			return o.Errorf("compress_codec", "the binary format writes files as they are read; %q does not apply", s)
		}
	}
	return nil
}

// formatSink sets up the formats this file writes.
func (c *sinkConfig) formatSink(o *config.Options) error {
	switch c.format {
	case formatXML:
		x, err := readXMLOptions(o, true)
		if err != nil {
			return err
		}
		c.xml = x
		s, err := newXMLSink(o, c, c.charset.name)
		if err != nil {
			return err
		}
		c.records = s
	case formatBinary:
		if err := checkBinaryTable(c.table); err != nil {
			return o.Errorf("file_format_type", "%v", err)
		}
	}
	// the excel writer's row window (excelize streams, so nothing needs it); SeaTunnel reads
	// it whatever the format
	if o.Has("max_rows_in_memory") {
		n, err := o.Int("max_rows_in_memory", 0)
		if err != nil {
			return err
		}
		if n < 1 {
			return o.Errorf("max_rows_in_memory", "must be at least 1, got %d", n)
		}
	}
	return nil
}

// encoded is what the writer writes a staged file through: the file itself, or the
// character set's encoder and the compressor in front of it. finish closes them.
func (w *writer) encoded(of *openFile) (io.Writer, error) {
	cfg := w.cfg
	var out io.Writer = of.f
	if cfg.compress != codecNone {
		z, err := cfg.compress.compress(out)
		if err != nil {
			return nil, err
		}
		of.enc = append(of.enc, z)
		out = z
	}
	if !cfg.charset.utf8() {
		e := cfg.charset.encode(out)
		of.enc = append(of.enc, e)
		out = e
	}
	return out, nil
}
