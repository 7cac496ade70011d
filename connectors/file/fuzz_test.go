package file

import (
	"path/filepath"
	"testing"

	"github.com/strait-dev/strait/row"
)

// FuzzDecode feeds arbitrary lines to the text, csv and json decoders: they return rows
// or errors, never panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"m":{"1":"x"},"r":{"n":5,"s":"y"},"l":[1,null],"d":"2024-01-26","x":"1.50","b":"YWI="}`,
		"1\u00022\u0001k\u0003v\u0001x\u00025\u00012024-01-26\u00011.5\u0001YWI=",
		`1,"a,""b",3`,
		`{"a":"\ud83d\ude00\u00e9\n","r":[1,"z",3]}`,
		`[{"a":1}]`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	writeFile(f, filepath.Join(dir, "a.txt"), "x")
	schema := `schema { fields { a = int, m = "map<int, string>", r = { s = string, n = int }, l = "array<bigint>", d = date, x = "decimal(10, 2)", b = bytes } }`
	var srcs []*Source
	for _, format := range []string{"text", "csv", "json"} {
		srcs = append(srcs, mustSource(f, srcConf(dir, "file_format_type = "+format+"\n"+schema)))
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, s := range srcs {
			d := s.cfg.lineDecoder()
			d.file = "fuzz"
			b := row.NewBatch(1)
			r := b.Add(row.Insert, "t", s.cfg.width)
			_ = d.decode([]byte(line), r.Fields)
			b.Release()
		}
	})
}
