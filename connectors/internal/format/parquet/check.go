package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	pqformat "github.com/parquet-go/parquet-go/format"
)

// Before parquet-go reads anything of a file, Strait checks what the file says of itself
// against what the file is: the footer's thrift against its size, the schema's nesting and
// width, the row groups' row counts, then, for each row group it reads, every column
// chunk's place in the file and every page header in it. parquet-go trusts these numbers
// and allocates by them. Past these checks no allocation exceeds what the file holds or a
// page may decode to.

const (
	// maxParquetDepth bounds the schema's nesting, as parquet-go does its levels.
	maxParquetDepth = pq.MaxColumnDepth
	// maxParquetFixedLength bounds a FIXED_LEN_BYTE_ARRAY's length.
	maxParquetFixedLength = 1 << 20
	// maxParquetPageBytes bounds what one page decompresses and decodes to.
	maxParquetPageBytes = 1 << 30
	// maxParquetPageValues bounds the values of one page: writers close a page long before
	// (parquet-mr at 20,000 rows), but one that is all nulls can hold a whole row group.
	maxParquetPageValues = 1 << 25
)

// MaxRowValues bounds the elements one row's lists and maps assemble. A variable so that
// tests reach it with small files.
var MaxRowValues = 1 << 22

// parquetFooterBudget is the memory the footer's decoded form may take: parquet-go's
// structures take up to about twenty times their compact encoding.
func parquetFooterBudget(footer int) int64 { return 16<<20 + 64*int64(footer) }

// pqFile is an open parquet file and where its data ends (its footer begins).
type pqFile struct {
	*pq.File
	dataEnd int64
}

// openParquet checks the footer of a parquet file held by r and opens it.
func openParquet(r io.ReaderAt, size int64) (pf *pqFile, err error) {
	defer recoverParquet(&err)
	dataEnd, err := checkParquetFooter(r, size)
	if err != nil {
		return nil, err
	}
	f, err := pq.OpenFile(r, size, pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	return &pqFile{File: f, dataEnd: dataEnd}, nil
}

// recoverParquet, deferred, turns a panic of parquet-go's on a file it cannot read into
// the error *err.
func recoverParquet(err *error) {
	if e := recoverParquetErr(recover()); e != nil {
		*err = e
	}
}

// recoverParquetErr is the error of a recovered panic r, or nil.
func recoverParquetErr(r any) error {
	if r == nil {
		return nil
	}
	return fmt.Errorf("the parquet library failed on the file: %v", r)
}

// checkParquetFooter reads the footer and checks its thrift, schema and row groups; it
// returns where the footer starts.
func checkParquetFooter(r io.ReaderAt, size int64) (int64, error) {
	if size < 12 {
		return 0, fmt.Errorf("not a parquet file: %d bytes", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return 0, fmt.Errorf("read the footer at byte %d: %w", size-8, err)
	}
	if string(tail[4:]) != "PAR1" {
		return 0, fmt.Errorf("not a parquet file: no PAR1 magic at byte %d", size-4)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > maxParquetFooter || n > size-12 {
		return 0, fmt.Errorf("footer of %d bytes at byte %d does not fit the file of %d bytes", n, size-8-n, size)
	}
	start := size - 8 - n
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, start); err != nil {
		return 0, fmt.Errorf("read the footer at byte %d: %w", start, err)
	}
	md, err := decodeParquetFooter(buf, start)
	if err != nil {
		return 0, fmt.Errorf("footer at byte %d: %w", start, err)
	}
	leaves, cost, err := checkParquetSchema(md.Schema)
	if err != nil {
		return 0, fmt.Errorf("footer at byte %d: schema: %w", start, err)
	}
	if err := checkParquetRowGroups(md, leaves); err != nil {
		return 0, fmt.Errorf("footer at byte %d: %w", start, err)
	}
	if cost += parquetChunkCost * uint64(leaves) * uint64(len(md.RowGroups)); cost > uint64(parquetFooterBudget(len(buf))) {
		return 0, fmt.Errorf("footer at byte %d: its %d columns in %d row groups would take more memory than a footer of %d bytes may", start, leaves, len(md.RowGroups), n)
	}
	return start, nil
}

var fileMetaDataType = reflect.TypeFor[pqformat.FileMetaData]()

// decodeParquetFooter decodes the footer's thrift once checkThrift has found its every
// count within its bytes.
func decodeParquetFooter(buf []byte, start int64) (*pqformat.FileMetaData, error) {
	if _, err := checkThrift(buf, start, fileMetaDataType, parquetFooterBudget(len(buf))); err != nil {
		if errors.Is(err, errThriftShort) {
			return nil, fmt.Errorf("the metadata runs past the footer's %d bytes", len(buf))
		}
		return nil, fmt.Errorf("metadata: %w", err)
	}
	md := &pqformat.FileMetaData{}
	if err := thrift.NewDecoder((&thrift.CompactProtocol{}).NewReaderFromBytes(buf)).Decode(md); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	return md, nil
}

// The memory parquet-go builds per schema element, path segment and column chunk.
var (
	parquetColumnCost = uint64(reflect.TypeFor[pq.Column]().Size()) + 48
	parquetChunkCost  = uint64(reflect.TypeFor[pq.FileColumnChunk]().Size()) + 16
)

// checkParquetSchema checks the schema's tree as parquet-go walks it: every group's
// children follow it, nesting at most maxParquetDepth deep, at most pq.MaxColumnIndex
// leaves. It returns the leaves and the memory parquet-go's columns take.
func checkParquetSchema(schema []pqformat.SchemaElement) (leaves int, cost uint64, err error) {
	if len(schema) == 0 {
		return 0, 0, errors.New("the file declares no schema")
	}
	if schema[0].Type.Valid {
		return 0, 0, fmt.Errorf("the root %q is a column, not a group", schema[0].Name)
	}
	var open []int32 // children still to come of each enclosing group
	for i := range schema {
		el := &schema[i]
		if i > 0 && len(open) == 0 {
			return 0, 0, fmt.Errorf("element %d (%q) is outside the root group", i, el.Name)
		}
		if len(open) > maxParquetDepth {
			return 0, 0, fmt.Errorf("element %d (%q) is nested %d deep, deeper than %d", i, el.Name, len(open), maxParquetDepth)
		}
		cost += parquetColumnCost + 16*uint64(len(open)+1)
		children := int32(0)
		if el.NumChildren.Valid {
			children = el.NumChildren.V
		}
		if children < 0 || el.Type.Valid && children > 0 {
			return 0, 0, fmt.Errorf("element %d (%q) declares %d children", i, el.Name, children)
		}
		if el.Type.Valid {
			leaves++
			if err := checkParquetLeaf(el); err != nil {
				return 0, 0, fmt.Errorf("column %q: %w", el.Name, err)
			}
		}
		if children > 0 {
			open = append(open, children)
			continue
		}
		// a column, or an empty group, ends the groups whose last child it is
		for len(open) > 0 {
			if open[len(open)-1]--; open[len(open)-1] > 0 {
				break
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return 0, 0, fmt.Errorf("its groups declare %d more children than its %d elements", open[len(open)-1], len(schema))
	}
	if leaves > pq.MaxColumnIndex {
		return 0, 0, fmt.Errorf("%d columns, more than the %d parquet-go reads", leaves, pq.MaxColumnIndex)
	}
	return leaves, cost, nil
}

// parquetGroupConverted names the converted types of groups.
var parquetGroupConverted = map[deprecated.ConvertedType]string{deprecated.List: "LIST", deprecated.Map: "MAP", deprecated.MapKeyValue: "MAP_KEY_VALUE"}

// checkParquetLeaf refuses what parquet-go cannot make a column of: a primitive annotated
// as a group, a FIXED_LEN_BYTE_ARRAY without a length that fits.
func checkParquetLeaf(el *pqformat.SchemaElement) error {
	switch el.LogicalType.Value.(type) {
	case *pqformat.ListType, *pqformat.MapType, *pqformat.VariantType:
		return fmt.Errorf("a %s annotated %s, which only a group can be", el.Type.V, el.LogicalType.Value)
	}
	if ct := el.ConvertedType; ct.Valid {
		if name, ok := parquetGroupConverted[ct.V]; ok {
			return fmt.Errorf("a %s annotated %s, which only a group can be", el.Type.V, name)
		}
	}
	if el.Type.V != pqformat.FixedLenByteArray {
		return nil
	}
	if !el.TypeLength.Valid || el.TypeLength.V < 1 || el.TypeLength.V > maxParquetFixedLength {
		return fmt.Errorf("FIXED_LEN_BYTE_ARRAY of length %d (1 to %d)", el.TypeLength.V, maxParquetFixedLength)
	}
	return nil
}

// checkParquetRowGroups checks that every row group has a chunk per column and that the
// row counts add up.
func checkParquetRowGroups(md *pqformat.FileMetaData, leaves int) error {
	if len(md.RowGroups) > pq.MaxRowGroups {
		return fmt.Errorf("%d row groups, more than the %d a file may have", len(md.RowGroups), pq.MaxRowGroups)
	}
	var total int64
	for g := range md.RowGroups {
		rg := &md.RowGroups[g]
		if rg.NumRows < 0 || rg.NumRows > math.MaxInt64-total {
			return fmt.Errorf("row group %d: %d rows", g, rg.NumRows)
		}
		total += rg.NumRows
		if len(rg.Columns) != leaves {
			return fmt.Errorf("row group %d: %d column chunks for the schema's %d columns", g, len(rg.Columns), leaves)
		}
	}
	if md.NumRows != total {
		return fmt.Errorf("the file counts %d rows, its row groups %d", md.NumRows, total)
	}
	return nil
}

// checkParquetChunk checks where column chunk leaf of row group g lies, its codec and its
// value count, and returns its bytes: [start, end).
func checkParquetChunk(md *pqformat.FileMetaData, g, leaf int, dataEnd int64) (start, end int64, err error) {
	cc := &md.RowGroups[g].Columns[leaf]
	if cc.FilePath != "" {
		return 0, 0, fmt.Errorf("its data is in another file, %q, which Strait does not read", cc.FilePath)
	}
	if cc.CryptoMetadata.Value != nil || len(cc.EncryptedColumnMetadata) > 0 {
		return 0, 0, errors.New("it is encrypted, which Strait does not read")
	}
	m := &cc.MetaData
	if err := checkParquetCodec(m.Codec); err != nil {
		return 0, 0, err
	}
	if first := md.RowGroups[0].Columns[leaf].MetaData.Codec; m.Codec != first {
		return 0, 0, fmt.Errorf("codec %s differs from the %s of row group 0, with which parquet-go reads the column", m.Codec, first)
	}
	if rows := md.RowGroups[g].NumRows; m.NumValues < rows {
		return 0, 0, fmt.Errorf("%d values for %d rows", m.NumValues, rows)
	}
	start = m.DataPageOffset
	if m.DictionaryPageOffset != 0 {
		start = m.DictionaryPageOffset
	}
	if start < 4 || start >= dataEnd {
		return 0, 0, fmt.Errorf("it starts at byte %d, outside the file's data (bytes 4 to %d)", start, dataEnd)
	}
	if m.TotalCompressedSize <= 0 || m.TotalCompressedSize > dataEnd-start {
		return 0, 0, fmt.Errorf("its %d bytes from byte %d run past the file's data, which ends at byte %d", m.TotalCompressedSize, start, dataEnd)
	}
	end = start + m.TotalCompressedSize
	if m.DataPageOffset < start || m.DataPageOffset >= end {
		return 0, 0, fmt.Errorf("its data pages at byte %d are outside its bytes %d to %d", m.DataPageOffset, start, end)
	}
	return start, end, nil
}

// checkParquetCodec refuses the codecs parquet-go cannot decompress.
func checkParquetCodec(c pqformat.CompressionCodec) error {
	switch c {
	case pqformat.Uncompressed, pqformat.Snappy, pqformat.Gzip, pqformat.Brotli, pqformat.Zstd, pqformat.Lz4Raw:
		return nil
	case pqformat.LZO:
		return errors.New("codec LZO cannot be read: no Go LZO library is available to Strait")
	}
	return fmt.Errorf("codec %s cannot be read; Strait reads UNCOMPRESSED, SNAPPY, GZIP, BROTLI, ZSTD and LZ4_RAW", c)
}
