package file

import (
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/strait-dev/strait/config"
)

// compressCodec is compress_codec: how the text, csv, json and xml files themselves are
// compressed. SeaTunnel names its codecs after CompressFormat; Strait reads and writes
// gzip, zstd and lz4 (the LZ4 frame format) there. The written files carry SeaTunnel's
// suffix for the codec before the format's (.gz.txt, .zstd.json, .lz4.csv).
type compressCodec string

const (
	codecNone compressCodec = "none"
	codecGzip compressCodec = "gzip"
	codecZstd compressCodec = "zstd"
	codecLZ4  compressCodec = "lz4"
)

// refusedCodecs are SeaTunnel's other codecs, with why Strait does not take them here.
var refusedCodecs = map[string]string{
	"lzo":    "no Go library for LZO (lzop) is available to Strait; use gzip, zstd or lz4",
	"snappy": "SeaTunnel compresses only orc and parquet files with snappy; for text, csv, json and xml use gzip, zstd or lz4",
	"zlib":   "SeaTunnel compresses only orc files with zlib; for text, csv, json and xml use gzip, zstd or lz4",
	"brotli": "SeaTunnel compresses only parquet files with brotli; for text, csv, json and xml use gzip, zstd or lz4",
}

// suffix is what SeaTunnel puts before the format's suffix in a compressed file's name.
func (c compressCodec) suffix() string {
	switch c {
	case codecGzip:
		return ".gz"
	case codecZstd:
		return ".zstd"
	case codecLZ4:
		return ".lz4"
	}
	return ""
}

// compressCodecOf reads compress_codec, s, in any case; blank is none.
func compressCodecOf(o *config.Options, s string) (compressCodec, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "", "none":
		return codecNone, nil
	case "gzip", "zstd", "lz4":
		return compressCodec(v), nil
	}
	if why, ok := refusedCodecs[v]; ok {
		return "", o.Errorf("compress_codec", "%q is not supported by Strait's LocalFile: %s", s, why)
	}
	return "", o.Errorf("compress_codec", "unknown value %q; expected none, gzip, zstd or lz4", s)
}

// decompress wraps r so that reading it yields the uncompressed bytes. The closer releases
// the decompressor (not r).
func (c compressCodec) decompress(r io.Reader) (io.Reader, io.Closer, error) {
	switch c {
	case codecGzip:
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err // gzip: ...
		}
		return z, z, nil
	case codecZstd:
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, fmt.Errorf("zstd: %w", err)
		}
		return z, closerFunc(func() error { z.Close(); return nil }), nil
	case codecLZ4:
		return lz4.NewReader(r), nopCloser{}, nil
	}
	return r, nopCloser{}, nil
}

// compress wraps w so that what is written to the result reaches w compressed; closing the
// result writes the compressed stream's end (it does not close w).
func (c compressCodec) compress(w io.Writer) (io.WriteCloser, error) {
	switch c {
	case codecGzip:
		return gzip.NewWriter(w), nil
	case codecZstd:
		z, err := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return z, nil
	case codecLZ4:
		return lz4.NewWriter(w), nil
	}
	return nopWriteCloser{w}, nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
