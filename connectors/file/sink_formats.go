package file

import (
	"io"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/format/xml"
)

// sinkStreamOptions checks what the sink does with the bytes it writes: compress_codec and
// encoding for text, csv, json and xml files (parquet and excel read compress_codec
// themselves); binary files are written as they come.
func (c *sinkConfig) sinkStreamOptions(o *config.Options, opts *SinkConfig) error {
	var err error
	c.compress, c.charset, err = textStreamOptions(o, c.format, opts.CompressCodec, opts.Encoding, "writes files as they are read")
	return err
}

// textStreamOptions reads compress_codec and encoding, which apply to the files of text,
// csv, json and xml (parquet and excel read compress_codec themselves); binary files are
// copied as they are (what says so in the error).
func textStreamOptions(o *config.Options, f fileFormat, codec, encoding, what string) (compressCodec, charset, error) {
	switch f {
	case formatText, formatCSV, formatJSON, formatXML:
		z, err := compressCodecOf(o, codec)
		if err != nil {
			return codecNone, charset{}, err
		}
		cs, err := charsetOf(o, encoding)
		return z, cs, err
	case formatBinary:
		if otherThanNone(codec) {
			return codecNone, charset{}, o.Errorf("compress_codec", "the binary format %s; %q does not apply", what, codec)
		}
	}
	return codecNone, charset{name: "UTF-8"}, nil
}

// formatSink sets up the formats this file writes.
func (c *sinkConfig) formatSink(o *config.Options, opts *SinkConfig) error {
	switch c.format {
	case formatXML:
		x, err := xml.SinkOptions(o, opts.XMLRootTag, opts.XMLRowTag, opts.XMLUseAttr)
		if err != nil {
			return err
		}
		c.xml = x
		s, err := xml.NewSink(o, c.written(), x, c.fieldDelim, c.charset.name)
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
	if n := opts.MaxRowsInMemory; n != nil && *n < 1 {
		return o.Errorf("max_rows_in_memory", "must be at least 1, got %d", *n)
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
