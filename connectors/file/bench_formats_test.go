package file

import "testing"

// The cost of a codec, a character set and the xml format, against the plain
// BenchmarkJSONSink, BenchmarkJSONSource, BenchmarkTextSink and BenchmarkTextSource.

func BenchmarkJSONGzipSink(b *testing.B)   { benchSink(b, "json\ncompress_codec = gzip") }
func BenchmarkJSONZstdSink(b *testing.B)   { benchSink(b, "json\ncompress_codec = zstd") }
func BenchmarkJSONLZ4Sink(b *testing.B)    { benchSink(b, "json\ncompress_codec = lz4") }
func BenchmarkTextGBKSink(b *testing.B)    { benchSink(b, "text\nencoding = GBK") }
func BenchmarkXMLSink(b *testing.B)        { benchSink(b, "xml\nxml_use_attr_format = true") }
func BenchmarkJSONGzipSource(b *testing.B) { benchSource(b, "json\ncompress_codec = gzip") }
func BenchmarkJSONZstdSource(b *testing.B) { benchSource(b, "json\ncompress_codec = zstd") }
func BenchmarkJSONLZ4Source(b *testing.B)  { benchSource(b, "json\ncompress_codec = lz4") }
func BenchmarkTextGBKSource(b *testing.B)  { benchSource(b, "text\nencoding = GBK") }
func BenchmarkXMLSource(b *testing.B) {
	benchSource(b, "xml\nxml_use_attr_format = true\nxml_row_tag = RECORD")
}
