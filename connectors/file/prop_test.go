package file

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// A property-based round trip: random schemas and rows are written by the sink in a
// format, with a codec and a character set, then read back by the source, and must come
// back equal. Each variant says what its format can hold (the text alphabet, the time
// precision) so that what is generated is what the format promises to keep.

// genVariant is one way of writing and reading files.
type genVariant struct {
	name     string
	format   string
	options  string // sink and source options besides the format
	alphabet []rune // characters of strings and bytes
	textual  bool   // text and csv: no empty arrays, no null elements, no single-field rows
	millis   bool   // times keep milliseconds only (text's HH:mm:ss.SSS)
	archive  archiveCodec
}

var (
	safeRunes = []rune("abcXYZ019 _-+=:;.!@#()[]{}测试你好世界")
	richRunes = []rune("abcXYZ019 _-+=:;.,!@#()[]{}|\"'\\<>&?/\t\n\r测试你好世界é😀\u2028")
	xmlRunes  = []rune("abcXYZ019 _-+=:;.,!@#()[]{}\"'\\<>&?/\t\n\r测试你好世界é😀")
)

var genVariants = []genVariant{
	{name: "json", format: "json", alphabet: richRunes},
	{name: "json gzip", format: "json", options: "compress_codec = gzip", alphabet: richRunes},
	{name: "json zstd GBK", format: "json", options: "compress_codec = zstd\nencoding = GBK", alphabet: safeRunes},
	{name: "json lz4 GB18030", format: "json", options: "compress_codec = lz4\nencoding = GB18030", alphabet: richRunes},
	{name: "json zip", format: "json", alphabet: richRunes, archive: archiveZip},
	{name: "json tar_gz", format: "json", options: "encoding = UTF-16LE", alphabet: richRunes, archive: archiveTarGz},
	{name: "text gzip", format: "text", options: "compress_codec = gzip\n" + textLayouts, alphabet: safeRunes, textual: true, millis: true},
	{name: "text GBK tar", format: "text", options: "encoding = gbk\n" + textLayouts, alphabet: safeRunes, textual: true, millis: true, archive: archiveTar},
	{name: "csv ISO-8859-1", format: "csv", options: "encoding = ISO-8859-1\n" + textLayouts, alphabet: []rune("abcXYZ019 _-+=:;.!@#()[]{}éü"), textual: true, millis: true},
	{name: "csv zstd gz", format: "csv", options: "compress_codec = zstd\n" + textLayouts, alphabet: safeRunes, textual: true, millis: true, archive: archiveGz},
	{name: "xml attributes", format: "xml", options: xmlOpts(true), alphabet: xmlRunes},
	{name: "xml elements zstd", format: "xml", options: xmlOpts(false) + "\ncompress_codec = zstd", alphabet: xmlRunes},
	{name: "xml GBK zip", format: "xml", options: xmlOpts(true) + "\nencoding = GBK", alphabet: safeRunes, archive: archiveZip},
}

const textLayouts = "datetime_format = \"yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS\"\ntime_format = \"HH:mm:ss.SSS\""

func xmlOpts(attrs bool) string {
	return fmt.Sprintf("xml_use_attr_format = %v\nxml_row_tag = ROW\nfield_delimiter = \"~\"", attrs)
}

type gen struct {
	r *rand.Rand
	v genVariant
}

func (g gen) str(n int, exclude string) string {
	var b strings.Builder
	for b.Len() == 0 || strings.TrimSpace(b.String()) == "" {
		b.Reset()
		for i := 0; i < 1+g.r.IntN(n); i++ {
			c := g.v.alphabet[g.r.IntN(len(g.v.alphabet))]
			if !strings.ContainsRune(exclude, c) {
				b.WriteRune(c)
			}
		}
	}
	return b.String()
}

var scalarTypes = []string{"null", "string", "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "bytes", "date", "time", "timestamp"}

// typ draws a type: a scalar, or an array, a map or a row of scalars.
func (g gen) typ(top bool) types.DataType {
	pick := scalarTypes[g.r.IntN(len(scalarTypes))]
	for !top && g.v.textual && pick == "null" {
		// text drops trailing empty elements, as Java's String.split does: an array of
		// nulls does not come back
		pick = scalarTypes[g.r.IntN(len(scalarTypes))]
	}
	if pick == "decimal" {
		p := 1 + g.r.IntN(38)
		pick = fmt.Sprintf("decimal(%d, %d)", p, g.r.IntN(min(p, 18)+1))
	}
	if top && g.r.IntN(4) == 0 {
		switch g.r.IntN(3) {
		case 0:
			return types.MustParse("array<" + g.typ(false).String() + ">")
		case 1:
			return types.MustParse("map<string, " + g.typ(false).String() + ">")
		default:
			n := 2 + g.r.IntN(3)
			var fs []string
			for i := 0; i < n; i++ {
				fs = append(fs, fmt.Sprintf("f%d = %q", i, g.typ(false).String()))
			}
			return types.MustParse("{" + strings.Join(fs, ", ") + "}")
		}
	}
	return types.MustParse(pick)
}

// value draws a value of type t; nested says how deep it is (and so which characters its
// strings may not hold).
func (g gen) value(t types.DataType, nested bool, nullable bool) row.Value {
	if nullable && g.r.IntN(8) == 0 {
		return row.NullValue()
	}
	exclude := ""
	if nested {
		exclude = "~" // the xml format's nested row delimiter
	}
	switch t.Kind {
	case types.Null:
		return row.NullValue()
	case types.String:
		return row.StringValue(g.str(12, exclude))
	case types.Bytes:
		return row.BytesValue([]byte(g.str(12, exclude)))
	case types.Boolean:
		return row.BoolValue(g.r.IntN(2) == 0)
	case types.TinyInt:
		return row.TinyIntValue(int8(g.r.IntN(256) - 128))
	case types.SmallInt:
		return row.SmallIntValue(int16(g.r.IntN(65536) - 32768))
	case types.Int:
		return row.IntValue(int32(g.r.Uint32()))
	case types.BigInt:
		return row.BigIntValue(int64(g.r.Uint64()))
	case types.Float:
		return row.FloatValue(float32(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(20)-10))))
	case types.Double:
		return row.DoubleValue(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(40)-20)))
	case types.Decimal:
		digits := make([]byte, 1+g.r.IntN(t.Precision))
		for i := range digits {
			digits[i] = byte('0' + g.r.IntN(10))
		}
		u, _ := new(big.Int).SetString(string(digits), 10)
		if g.r.IntN(2) == 0 {
			u.Neg(u)
		}
		return row.DecimalValue(u, t.Scale)
	case types.Date:
		return row.DateValue(int64(g.r.IntN(3_000_000)) - 719_000) // years 0002 to 9999
	case types.Time:
		n := g.r.Int64N(86400 * 1e9)
		if g.v.millis {
			n -= n % 1e6
		}
		return row.TimeValue(n)
	case types.Timestamp:
		// the nanoseconds of an int64 reach from 1677 to 2262
		return row.TimestampValue(g.r.Int64N(14_000_000_000)*1e9 - 7_000_000_000*1e9 + g.r.Int64N(1e9))
	case types.Array:
		n := g.r.IntN(4)
		if g.v.textual {
			n++ // an empty array is an empty field: null
		}
		els := make([]row.Value, n)
		for i := range els {
			els[i] = g.value(*t.Elem, true, !g.v.textual)
		}
		return row.ArrayValue(els)
	case types.Map:
		n := 1 + g.r.IntN(3)
		m := &row.MapValue{}
		seen := map[string]bool{}
		for i := 0; i < n; i++ {
			k := g.str(6, exclude)
			if seen[k] {
				continue
			}
			seen[k] = true
			m.Keys = append(m.Keys, row.StringValue(k))
			m.Vals = append(m.Vals, g.value(*t.Elem, true, !g.v.textual))
		}
		return row.MapOfValues(m)
	case types.Row:
		fs := make([]row.Value, t.Row.Len())
		for i := range fs {
			fs[i] = g.value(t.Row.Types[i], true, i > 0) // the first field set: the row is not blank
		}
		return row.RowValue(fs)
	}
	panic("type " + t.String())
}

// table draws a table of 1 to 8 columns.
func (g gen) table() *catalog.Table {
	n := 1 + g.r.IntN(8)
	var cols []string
	for i := 0; i < n; i++ {
		t := g.typ(true)
		for i == 0 && t.Kind == types.Null {
			t = g.typ(true) // a line of nothing but a null column is empty, and skipped
		}
		cols = append(cols, fmt.Sprintf("c%d", i), t.String())
	}
	return table("db.gen", cols...)
}

func genSchema(t *catalog.Table) string {
	var fields []string
	for _, c := range t.Columns {
		fields = append(fields, c.Name+" = "+quote(c.Type.String()))
	}
	return "schema { table = \"db.gen\", fields { " + strings.Join(fields, "\n") + " } }"
}

func TestPropertyRoundTrip(t *testing.T) {
	const schemas = 30
	for _, v := range genVariants {
		t.Run(v.name, func(t *testing.T) {
			for seed := uint64(1); seed <= schemas; seed++ {
				g := gen{r: rand.New(rand.NewPCG(seed, uint64(len(v.name)))), v: v}
				tbl := g.table()
				var rows [][]row.Value
				for i := 0; i < 1+g.r.IntN(20); i++ {
					r := make([]row.Value, len(tbl.Columns))
					for j, c := range tbl.Columns {
						// a text line of nothing but a null is an empty line, which is skipped
						r[j] = g.value(c.Type, false, j > 0 || !v.textual)
					}
					rows = append(rows, r)
				}
				roundTrip(t, v, seed, tbl, rows)
			}
		})
	}
}

// roundTrip writes rows, reads them back and compares.
func roundTrip(t *testing.T, v genVariant, seed uint64, tbl *catalog.Table, rows [][]row.Value) {
	t.Helper()
	dir := t.TempDir()
	s, err := newTestSink(t, sinkConf(dir, "file_format_type = "+v.format+"\n"+v.options), tbl)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	writeAll(t, s, batchOf(tbl, rows...))
	out := filepath.Join(dir, "out")
	read := out
	if v.archive != archiveNone && v.archive != "" {
		read = packDir(t, v.archive, out, filepath.Join(dir, "archive"))
	}
	src, err := newTestSource(t, srcConf(read, "file_format_type = "+v.format+"\n"+v.options+"\narchive_compress_codec = \""+string(v.archive)+"\"\n"+genSchema(tbl)))
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	got := readRows(t, src, 1)
	if len(got) != len(rows) {
		t.Fatalf("seed %d: %d rows, want %d (files %v)", seed, len(got), len(rows), names(files(t, out)))
	}
	for i, r := range got {
		for j := range tbl.Columns {
			if !row.Equal(r.Fields[j], rows[i][j]) {
				t.Fatalf("seed %d, row %d, column %s %s:\n got %v\nwant %v\nfile %q", seed, i, tbl.Columns[j].Name, tbl.Columns[j].Type, r.Fields[j], rows[i][j], firstFile(t, out))
			}
		}
	}
}

func firstFile(t *testing.T, dir string) string {
	for _, c := range files(t, dir) {
		if len(c) > 2000 {
			return c[:2000]
		}
		return c
	}
	return ""
}

// packDir packs the files of dir into one archive file under to and returns to.
func packDir(t *testing.T, kind archiveCodec, dir, to string) string {
	t.Helper()
	got := files(t, dir)
	ns := names(got)
	sort.Strings(ns)
	if kind == archiveGz && len(ns) != 1 {
		t.Fatalf("gz holds one file, got %v", ns)
	}
	var contents [][]byte
	for _, n := range ns {
		contents = append(contents, []byte(got[n]))
	}
	name := map[archiveCodec]string{archiveZip: "a.zip", archiveTar: "a.tar", archiveTarGz: "a.tar.gz", archiveGz: "a" + filepath.Ext(ns[0]) + ".gz"}[kind]
	if err := os.MkdirAll(to, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(to, name), buildArchive(t, kind, ns, contents), 0o666); err != nil {
		t.Fatal(err)
	}
	return to
}
