package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"reflect"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// Before a row group is read, every page of every column chunk read is checked as
// parquet-go will decode it: its header against the chunk, its data decompressed within
// the size the header gives, and the runs and counts in it (levels, dictionary indices,
// delta-encoded lengths) against the page's value count. parquet-go's decoders append
// whatever a run claims: five bytes can claim two billion levels. This reads the chunk's
// bytes twice (the second time mostly from the page cache) and decompresses them twice, a
// price of reading files Strait did not write.

// pqLevelSlack is how many more values than a page holds its runs may decode to: an
// encoder pads its last bit-packed group to a multiple of 8, parquet-mr's to up to 504.
const pqLevelSlack = 504

// pqLeaf is what checking a column chunk's pages needs to know of its column.
type pqLeaf struct {
	path   string
	kind   pq.Kind
	length int // of a FIXED_LEN_BYTE_ARRAY
	maxRep int
	maxDef int
}

func newPQLeaf(col *pq.Column) pqLeaf {
	return pqLeaf{
		path:   strings.Join(col.Path(), "."),
		kind:   col.Type().Kind(),
		length: col.Type().Length(),
		maxRep: col.MaxRepetitionLevel(),
		maxDef: col.MaxDefinitionLevel(),
	}
}

// pqScan checks the pages of column chunks; its buffers are reused page after page.
type pqScan struct {
	r     io.ReaderAt
	leaf  pqLeaf
	codec pqformat.CompressionCodec
	raw   []byte  // the page as stored, or the window a header is read from
	plain []byte  // the page decompressed
	ints  []int32 // delta-encoded lengths
}

// chunk checks the pages of the column chunk in [start, end), which holds values values,
// and returns where its data pages start.
func (s *pqScan) chunk(start, end, values int64) ([]int64, error) {
	var pages []int64
	var seen int64
	for pos := start; pos < end; {
		h, body, err := s.header(pos, end)
		if err != nil {
			return nil, fmt.Errorf("page at byte %d: %w", pos, err)
		}
		if err := s.page(h, body, end, pos == start, values-seen); err != nil {
			return nil, fmt.Errorf("page at byte %d: %w", pos, err)
		}
		if h.Type != pqformat.DictionaryPage {
			pages = append(pages, pos)
			seen += int64(pageValues(h))
		}
		pos = body + int64(h.CompressedPageSize)
	}
	if seen != values {
		return nil, fmt.Errorf("its pages hold %d values, its metadata says %d", seen, values)
	}
	return pages, nil
}

var pageHeaderType = reflect.TypeFor[pqformat.PageHeader]()

// header reads the page header at pos, widening the window it reads until the header fits;
// it returns the header and where the page's data starts.
func (s *pqScan) header(pos, end int64) (*pqformat.PageHeader, int64, error) {
	for n := int64(1 << 10); ; n *= 16 {
		n = min(n, end-pos)
		b, err := s.read(&s.raw, pos, n)
		if err != nil {
			return nil, 0, err
		}
		used, err := checkThrift(b, pos, pageHeaderType, parquetFooterBudget(len(b)))
		if errors.Is(err, errThriftShort) && n < end-pos {
			continue
		}
		if errors.Is(err, errThriftShort) {
			return nil, 0, fmt.Errorf("its header runs past the column chunk's end at byte %d", end)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("header: %w", err)
		}
		h := &pqformat.PageHeader{}
		if err := thrift.NewDecoder((&thrift.CompactProtocol{}).NewReaderFromBytes(b[:used])).Decode(h); err != nil {
			return nil, 0, fmt.Errorf("header: %w", err)
		}
		return h, pos + int64(used), nil
	}
}

// read reads n bytes at off into *buf, grown as needed.
func (s *pqScan) read(buf *[]byte, off, n int64) ([]byte, error) {
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := s.r.ReadAt(b, off); err != nil && !(errors.Is(err, io.EOF) && len(b) == int(n)) {
		return nil, fmt.Errorf("read %d bytes at byte %d: %w", n, off, err)
	}
	return b, nil
}

func pageValues(h *pqformat.PageHeader) int32 {
	switch h.Type {
	case pqformat.DataPage:
		return h.DataPageHeader.V.NumValues
	case pqformat.DataPageV2:
		return h.DataPageHeaderV2.V.NumValues
	case pqformat.DictionaryPage:
		return h.DictionaryPageHeader.V.NumValues
	}
	return 0
}

// page checks one page whose data starts at body; left is the values the chunk's metadata
// leaves for it.
func (s *pqScan) page(h *pqformat.PageHeader, body, end int64, first bool, left int64) error {
	size, plainSize := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
	if size < 0 || plainSize < 0 {
		return fmt.Errorf("its header gives sizes of %d and %d bytes", size, plainSize)
	}
	if size > end-body {
		return fmt.Errorf("its %d bytes run past the column chunk's end at byte %d", size, end)
	}
	if plainSize > maxParquetPageBytes {
		return fmt.Errorf("it decompresses to %d bytes, more than the %d a page may", plainSize, maxParquetPageBytes)
	}
	levels, compressed, err := s.pageKind(h, first, size, plainSize)
	if err != nil {
		return err
	}
	nv := int64(pageValues(h))
	if nv < 0 || nv > maxParquetPageValues {
		return fmt.Errorf("it holds %d values (at most %d)", nv, maxParquetPageValues)
	}
	if h.Type != pqformat.DictionaryPage && nv > left {
		return fmt.Errorf("its %d values are more than the %d the column chunk has left", nv, left)
	}
	raw, err := s.read(&s.raw, body, size)
	if err != nil {
		return err
	}
	data := raw[levels:]
	if compressed {
		if data, err = s.decompress(data, int(plainSize-levels)); err != nil {
			return fmt.Errorf("%s: %w", s.codec, err)
		}
	}
	if h.Type == pqformat.DictionaryPage {
		return s.dictionary(nv, len(data))
	}
	return s.data(h, nv, raw[:levels], data)
}

// pageKind checks the header of the page's kind; it returns the bytes of levels the page
// holds before its (compressed) values, and whether those are compressed.
func (s *pqScan) pageKind(h *pqformat.PageHeader, first bool, size, plainSize int64) (int64, bool, error) {
	compressed := s.codec != pqformat.Uncompressed
	switch h.Type {
	case pqformat.DictionaryPage:
		if !h.DictionaryPageHeader.Valid {
			return 0, false, errors.New("a dictionary page without its header")
		}
		if !first {
			return 0, false, errors.New("a dictionary page after the column chunk's first page")
		}
	case pqformat.DataPage:
		if !h.DataPageHeader.Valid {
			return 0, false, errors.New("a data page without its header")
		}
	case pqformat.DataPageV2:
		if !h.DataPageHeaderV2.Valid {
			return 0, false, errors.New("a data page (v2) without its header")
		}
		v := &h.DataPageHeaderV2.V
		if v.NumNulls < 0 || v.NumNulls > v.NumValues || v.NumRows < 0 || v.NumRows > v.NumValues {
			return 0, false, fmt.Errorf("%d nulls and %d rows for %d values", v.NumNulls, v.NumRows, v.NumValues)
		}
		rep, def := int64(v.RepetitionLevelsByteLength), int64(v.DefinitionLevelsByteLength)
		if rep < 0 || def < 0 || rep+def > size || rep+def > plainSize {
			return 0, false, fmt.Errorf("levels of %d and %d bytes in a page of %d (%d decompressed)", rep, def, size, plainSize)
		}
		return rep + def, compressed && (!v.IsCompressed.Valid || v.IsCompressed.V), nil
	default:
		return 0, false, fmt.Errorf("a page of type %s, which Strait does not read", h.Type)
	}
	return 0, compressed, nil
}

// dictionary checks that a dictionary's values fit its data: plain-encoded, every value
// takes its width, a byte array at least its 4-byte length.
func (s *pqScan) dictionary(nv int64, data int) error {
	w := int64(4)
	switch s.leaf.kind {
	case pq.Int64, pq.Double:
		w = 8
	case pq.Int96:
		w = 12
	case pq.FixedLenByteArray:
		w = int64(s.leaf.length)
	case pq.Boolean:
		return errors.New("a dictionary of booleans")
	}
	if nv*w > int64(data) {
		return fmt.Errorf("a dictionary of %d values in %d bytes", nv, data)
	}
	return nil
}

// data checks a data page: what its values decode to, its levels, its values' runs.
func (s *pqScan) data(h *pqformat.PageHeader, nv int64, levels, data []byte) error {
	enc := h.DataPageHeader.V.Encoding
	if h.Type == pqformat.DataPageV2 {
		enc = h.DataPageHeaderV2.V.Encoding
	}
	if n := nv * (2 + s.valueWidth(enc)); n > maxParquetPageBytes {
		return fmt.Errorf("its %d values decode to %d bytes, more than the %d a page may", nv, n, maxParquetPageBytes)
	}
	var err error
	if h.Type == pqformat.DataPageV2 {
		err = s.levelsV2(&h.DataPageHeaderV2.V, nv, levels)
	} else {
		data, err = s.levelsV1(&h.DataPageHeader.V, nv, data)
	}
	if err != nil {
		return err
	}
	if err := s.values(enc, nv, data); err != nil {
		return fmt.Errorf("values (%s): %w", enc, err)
	}
	return nil
}

// valueWidth is the bytes parquet-go decodes a value of the page to.
func (s *pqScan) valueWidth(enc pqformat.Encoding) int64 {
	if enc == pqformat.PlainDictionary || enc == pqformat.RLEDictionary {
		return 4 // an index into the dictionary
	}
	switch s.leaf.kind {
	case pq.Int64, pq.Double:
		return 8
	case pq.Int96:
		return 12
	case pq.FixedLenByteArray:
		return int64(s.leaf.length)
	}
	return 4 // booleans, 32-bit values, a byte array's offset (its bytes are in the page)
}

// levelsV1 checks the levels before a v1 page's values, each with its 4-byte length, and
// returns the values.
func (s *pqScan) levelsV1(h *pqformat.DataPageHeader, nv int64, data []byte) ([]byte, error) {
	for _, l := range []struct {
		what string
		max  int
		enc  pqformat.Encoding
	}{{"repetition", s.leaf.maxRep, h.RepetitionLevelEncoding}, {"definition", s.leaf.maxDef, h.DefinitionLevelEncoding}} {
		if l.max == 0 {
			continue
		}
		if len(data) < 4 || int64(binary.LittleEndian.Uint32(data)) > int64(len(data)-4) {
			return nil, fmt.Errorf("its %s levels run past its %d bytes", l.what, len(data))
		}
		n := int(binary.LittleEndian.Uint32(data))
		if l.enc == pqformat.RLE {
			if err := rleWithin(data[4:4+n], bits.Len(uint(l.max)), 1, nv); err != nil {
				return nil, fmt.Errorf("%s levels: %w", l.what, err)
			}
		}
		data = data[4+n:]
	}
	return data, nil
}

// levelsV2 checks the levels of a v2 page, kept apart from its values.
func (s *pqScan) levelsV2(h *pqformat.DataPageHeaderV2, nv int64, levels []byte) error {
	rep := levels[:h.RepetitionLevelsByteLength]
	if s.leaf.maxRep > 0 {
		if err := rleWithin(rep, bits.Len(uint(s.leaf.maxRep)), 1, nv); err != nil {
			return fmt.Errorf("repetition levels: %w", err)
		}
	}
	if s.leaf.maxDef > 0 {
		if err := rleWithin(levels[len(rep):], bits.Len(uint(s.leaf.maxDef)), 1, nv); err != nil {
			return fmt.Errorf("definition levels: %w", err)
		}
	}
	return nil
}

// values checks the runs and lengths of encoded values, which parquet-go decodes without
// holding them to the page's count.
func (s *pqScan) values(enc pqformat.Encoding, nv int64, data []byte) error {
	switch enc {
	case pqformat.PlainDictionary, pqformat.RLEDictionary:
		if len(data) == 0 {
			return nil
		}
		w := int(data[0])
		if w > 32 {
			return fmt.Errorf("dictionary indices of %d bits", w)
		}
		return rleWithin(data[1:], w, (w+7)/8, nv)
	case pqformat.RLE:
		if s.leaf.kind != pq.Boolean || len(data) <= 4 {
			return nil
		}
		n := int64(binary.LittleEndian.Uint32(data))
		if n > int64(len(data)-4) {
			return fmt.Errorf("runs of %d bytes in %d", n, len(data)-4)
		}
		return rleWithin(data[4:4+n], 1, 1, nv)
	case pqformat.DeltaBinaryPacked:
		_, _, err := deltaRun(data, nv)
		return err
	case pqformat.DeltaLengthByteArray:
		return s.deltaLengths(data, nv)
	case pqformat.DeltaByteArray:
		return s.deltaByteArray(data, nv)
	}
	return nil
}

// rleWithin walks runs of the RLE/bit-packed hybrid encoding, values of width bits (a
// repeated value taking valueBytes), and checks they decode to at most nv values.
func rleWithin(b []byte, width, valueBytes int, nv int64) error {
	var n int64
	for i := 0; i < len(b); {
		u, k := binary.Uvarint(b[i:])
		if k <= 0 {
			return fmt.Errorf("a broken run header at byte %d of %d", i, len(b))
		}
		i += k
		count := int64(u >> 1)
		if u&1 != 0 {
			count *= 8
			if size := (count*int64(width) + 7) / 8; size > int64(len(b)-i) {
				return fmt.Errorf("a bit-packed run of %d values past the %d bytes left", count, len(b)-i)
			} else {
				i += int(size)
			}
		} else {
			i = min(i+valueBytes, len(b))
		}
		if n += count; n > nv+pqLevelSlack {
			return fmt.Errorf("runs of more than the page's %d values", nv)
		}
	}
	return nil
}

// deltaRun walks a DELTA_BINARY_PACKED run as parquet-go reads it, without unpacking it,
// checking it holds at most nv values; it returns them and the bytes after the run.
func deltaRun(b []byte, nv int64) (int64, []byte, error) {
	var hdr [4]uint64
	for i := range hdr {
		u, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, nil, errors.New("a broken DELTA_BINARY_PACKED header")
		}
		hdr[i], b = u, b[k:]
	}
	blockSize, miniBlocks, total := hdr[0], hdr[1], int64(hdr[2])
	if miniBlocks == 0 || blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<16 || (blockSize/miniBlocks)%32 != 0 {
		return 0, nil, fmt.Errorf("DELTA_BINARY_PACKED blocks of %d values in %d mini-blocks", blockSize, miniBlocks)
	}
	if total < 0 || total > nv {
		return 0, nil, fmt.Errorf("DELTA_BINARY_PACKED of %d values in a page of %d", total, nv)
	}
	per := int64(blockSize / miniBlocks)
	for left := max(total-1, 0); left > 0 && len(b) > 0; {
		if _, k := binary.Varint(b); k <= 0 {
			return 0, nil, errors.New("a broken DELTA_BINARY_PACKED block")
		} else {
			b = b[k:]
		}
		widths := b[:min(int(miniBlocks), len(b))]
		b = b[len(widths):]
		for _, w := range widths {
			if w != 0 {
				b = b[min(int(per*int64(w)/8), len(b)):]
			}
			if left -= min(per, left); left == 0 {
				break
			}
		}
	}
	return total, b, nil
}

// deltaLengths checks DELTA_LENGTH_BYTE_ARRAY values: the lengths fit the bytes after them.
func (s *pqScan) deltaLengths(data []byte, nv int64) error {
	_, rest, err := deltaRun(data, nv)
	if err != nil {
		return err
	}
	if s.ints, err = (&delta.BinaryPackedEncoding{}).DecodeInt32(s.ints[:0], data); err != nil {
		return err
	}
	var sum int64
	for _, n := range s.ints {
		if sum += int64(n); n < 0 || sum > int64(len(rest)) {
			return fmt.Errorf("lengths past the %d bytes of values", len(rest))
		}
	}
	return nil
}

// deltaByteArray checks DELTA_BYTE_ARRAY values: prefix lengths, each at most the previous
// value's length, then suffixes as DELTA_LENGTH_BYTE_ARRAY; the values fit a page.
func (s *pqScan) deltaByteArray(data []byte, nv int64) error {
	n, suffixes, err := deltaRun(data, nv)
	if err != nil {
		return err
	}
	if err := s.deltaLengths(suffixes, nv); err != nil {
		return fmt.Errorf("suffixes: %w", err)
	}
	suffix := append([]int32(nil), s.ints...)
	if s.ints, err = (&delta.BinaryPackedEncoding{}).DecodeInt32(s.ints[:0], data); err != nil {
		return err
	}
	var last, sum int64
	for i := 0; i < int(n) && i < len(suffix); i++ {
		p := int64(s.ints[i])
		if p < 0 || p > last {
			return fmt.Errorf("value %d shares %d bytes with one of %d", i, p, last)
		}
		last = p + int64(suffix[i])
		if sum += last; sum > maxParquetPageBytes {
			return fmt.Errorf("values of more than the %d bytes a page may decode to", maxParquetPageBytes)
		}
	}
	return nil
}

// pqZstd decompresses zstd pages into buffers it may not grow.
var pqZstd = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderMaxMemory(maxParquetPageBytes))
})

// decompress decompresses src, which must not decompress to more than size bytes.
func (s *pqScan) decompress(src []byte, size int) ([]byte, error) {
	if cap(s.plain) < size {
		s.plain = make([]byte, size)
	}
	dst := s.plain[:size:size]
	switch s.codec {
	case pqformat.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return nil, err
		}
		if n > size {
			return nil, fmt.Errorf("it decompresses to %d bytes, its header says %d", n, size)
		}
		return snappy.Decode(dst, src)
	case pqformat.Gzip:
		r, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		return readWithin(r, dst)
	case pqformat.Zstd:
		d, err := pqZstd()
		if err != nil {
			return nil, err
		}
		return d.DecodeAll(src, dst[:0])
	case pqformat.Brotli:
		return readWithin(brotli.NewReader(bytes.NewReader(src)), dst)
	case pqformat.Lz4Raw:
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return nil, fmt.Errorf("broken, or it decompresses to more than the %d bytes its header says", size)
		}
		return dst[:n], nil
	}
	return nil, fmt.Errorf("codec %s", s.codec)
}

// readWithin reads r to its end into dst, which it must fit.
func readWithin(r io.Reader, dst []byte) ([]byte, error) {
	n, err := io.ReadFull(r, dst)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return dst[:n], nil
	}
	if err != nil {
		return nil, err
	}
	var one [1]byte
	switch _, err := io.ReadFull(r, one[:]); {
	case err == nil:
		return nil, fmt.Errorf("it decompresses to more than the %d bytes its header says", len(dst))
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	return dst, nil
}
