package file

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/connectors/internal/format/text"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func srcConf(path, extra string) string {
	return "path = " + quote(path) + "\n" + extra
}

func TestSourceConfigErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "x\n")
	cases := []struct {
		name, conf, want string
	}{
		{"no path", "file_format_type = text", "path: option is required"},
		{"missing path", srcConf(filepath.Join(dir, "nope"), "file_format_type = text"), "path: " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"no format", srcConf(dir, ""), "file_format_type: option is required"},
		{"orc", srcConf(dir, "file_format_type = orc"), `file_format_type: "orc" cannot be read or written: no Go ORC library is available to Strait yet`},
		{"json without schema", srcConf(dir, "file_format_type = json"), "schema: option is required for the json format"},
		{"projection without schema", srcConf(dir, "file_format_type = text\nread_columns = [a]"), "read_columns: column projection needs a schema"},
		{"unknown read column", srcConf(dir, "file_format_type = text\nschema { fields { a = int } }\nread_columns = [a, b]"), `read_columns[1]: unknown column "b"; the schema has a`},
		{"read column twice", srcConf(dir, "file_format_type = text\nschema { fields { a = int } }\nread_columns = [a, a]"), `read_columns[1]: column "a" is listed twice`},
		{"bad pattern", srcConf(dir, "file_format_type = text\nfile_filter_pattern = \"(\""), `file_filter_pattern: "(" is read as a Java regular expression: unclosed group`},
		{"java-only pattern", srcConf(dir, "file_format_type = text\nfile_filter_pattern = \"(?<=a)b\""), `file_filter_pattern: "(?<=a)b" is read as a Java regular expression: lookbehind (?<= is not supported`},
		{"encoding", srcConf(dir, "file_format_type = text\nencoding = latin-99"), `encoding: unknown or unsupported character set "latin-99"`},
		{"archive", srcConf(dir, "file_format_type = text\narchive_compress_codec = RAR"), `archive_compress_codec: unknown value "RAR"; expected none, zip, tar, tar_gz or gz`},
		{"archive of parquet", srcConf(dir, "file_format_type = parquet\narchive_compress_codec = zip"), `archive_compress_codec: SeaTunnel reads archives of text, csv, json, xml and excel files only; "zip" does not apply to parquet files`},
		{"lzo", srcConf(dir, "file_format_type = json\ncompress_codec = lzo"), `compress_codec: "lzo" is not supported by Strait's LocalFile: no Go library for LZO (lzop) is available to Strait`},
		{"binary codec", srcConf(dir, "file_format_type = binary\ncompress_codec = zstd"), `compress_codec: the binary format copies files as they are; "zstd" does not apply`},
		{"xml without schema", srcConf(dir, "file_format_type = xml\nxml_row_tag = R\nxml_use_attr_format = true"), "schema: option is required for the xml format"},
		{"xml row tag", srcConf(dir, "file_format_type = xml\nxml_use_attr_format = true\nschema { fields { a = int } }"), "xml_row_tag: option is required for the xml format"},
		{"xml attr format", srcConf(dir, "file_format_type = xml\nxml_row_tag = R\nschema { fields { a = int } }"), "xml_use_attr_format: option is required for the xml format"},
		{"csv delimiter", srcConf(dir, "file_format_type = csv\nfield_delimiter = \"\\n\""), "field_delimiter: the csv format needs a delimiter that starts with a character other than a quote or line break"},
		{"csv delimiter alias", srcConf(dir, "file_format_type = csv\ndelimiter = \"\\\"\""), "delimiter: the csv format needs a delimiter that starts with a character other than a quote or line break"},
		{"text delimiter", srcConf(dir, "file_format_type = text\nfield_delimiter = \"(?<=a),\""), `field_delimiter: "(?<=a)," is read as a Java regular expression, as SeaTunnel's String.split reads it: lookbehind (?<= is not supported`},
		{"bare bar", srcConf(dir, "file_format_type = text\ndelimiter = \"|\""), `delimiter: "|" is read as a Java regular expression, as SeaTunnel's String.split reads it: the pattern matches the empty string, so String.split would cut the line between every character (escape the metacharacters: "\\|" for |)`},
		{"negative header", srcConf(dir, "file_format_type = text\nskip_header_row_number = -1"), "skip_header_row_number: must not be negative"},
		{"bad schema type", srcConf(dir, "file_format_type = text\nschema { fields { a = strng } }"), `schema.fields.a: unknown type "strng"`},
		{"date format", srcConf(dir, "file_format_type = text\ndate_format = \"MM-dd\""), `date_format: unsupported format "MM-dd"`},
		{"multi-table empty", srcConf(dir, "file_format_type = text\ntables_configs = []"), "tables_configs: needs at least one table config"},
		{"multi-table same name", "tables_configs = [{" + srcConf(dir, "file_format_type = text") + "}, {" + srcConf(dir, "file_format_type = text") + "}]", "tables_configs[1]: reads table default.default, as tables_configs[0] does"},
		{"multi-table entry", "tables_configs = [{" + srcConf(dir, "file_format_type = text") + "}, {" + srcConf(dir, "file_format_type = xml") + "}]", "tables_configs[1].schema: option is required for the xml format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newTestSource(t, c.conf)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "source[0] LocalFile") {
				t.Errorf("error %q does not name the plugin", err)
			}
		})
	}
}

func TestSourceFormats(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		conf   string
		cols   string // name:type,...
		rows   []string
		sorted bool
	}{
		{
			name:  "text without schema",
			files: map[string]string{"a.txt": "hello\u0001world\r\n\nsecond line"},
			conf:  "file_format_type = text",
			cols:  "content:string",
			rows:  []string{"hello\u0001world", "second line"},
		},
		{
			name:  "text with schema and extra fields",
			files: map[string]string{"a.txt": "1\u0001x\u0001ignored\n2\u0001\u0001\n \u0001y"},
			conf:  "file_format_type = text\nschema { fields { id = int, name = string } }",
			cols:  "id:int,name:string",
			rows:  []string{"1|x", "2|<null>", "<null>|y"},
		},
		{
			name:  "delimiter alias and header",
			files: map[string]string{"a.txt": "id|name\n1|a\n2|b\n"},
			conf:  "file_format_type = TEXT\ndelimiter = \"\\\\|\"\nskip_header_row_number = 1\nschema { fields { id = bigint, name = string } }",
			cols:  "id:bigint,name:string",
			rows:  []string{"1|a", "2|b"},
		},
		{
			name:  "delimiter as a Java regular expression",
			files: map[string]string{"a.txt": "1 ; a;b ,2\n3,,\t;4\n5;x;y;6;;;\n"},
			conf:  "file_format_type = text\nfield_delimiter = \"\\\\s*[;,]\\\\s*\"\nschema { fields { id = int, a = string, b = string, n = int } }",
			cols:  "id:int,a:string,b:string,n:int",
			rows:  []string{"1|a|b|2", "3|<null>|<null>|4", "5|x|y|6"},
		},
		{
			name:  "csv takes the delimiter's first character",
			files: map[string]string{"a.csv": "1:x:y\n2:\"p:q\""},
			conf:  "file_format_type = csv\nfield_delimiter = \"::\"\nschema { fields { id = int, a = string } }",
			cols:  "id:int,a:string",
			rows:  []string{"1|x", "2|p:q"},
		},
		{
			name:  "csv quoting",
			files: map[string]string{"a.csv": "1,\"a,b\",\"say \"\"hi\"\"\"\n2,plain,\"\"\n3,x\"y,z"},
			conf:  "file_format_type = csv\nschema { fields { id = int, a = string, b = string } }",
			cols:  "id:int,a:string,b:string",
			rows:  []string{"1|a,b|say \"hi\"", "2|plain|<null>", "3|x\"y|z"},
		},
		{
			name:  "csv with another delimiter",
			files: map[string]string{"a.csv": "1;\"x;y\""},
			conf:  "file_format_type = csv\nfield_delimiter = \";\"\nschema { fields { id = int, a = string } }",
			cols:  "id:int,a:string",
			rows:  []string{"1|x;y"},
		},
		{
			name: "json",
			files: map[string]string{"a.json": `{"id": 1, "name": "a\u00e9\n", "extra": {"x": [1, 2]}, "score": "2.5"}` + "\n" +
				`{"name":null,"id":"2"}` + "\n\n" + ` { } `},
			conf: "file_format_type = json\nschema { fields { id = bigint, name = string, score = double } }",
			cols: "id:bigint,name:string,score:double",
			rows: []string{"1|aé\n|2.5", "2|<null>|<null>", "<null>|<null>|<null>"},
		},
		{
			name:  "read columns",
			files: map[string]string{"a.txt": "1\u0001a\u0001true"},
			conf:  "file_format_type = text\nschema { fields { id = int, name = string, ok = boolean } }\nread_columns = [ok, id]",
			cols:  "ok:boolean,id:int",
			rows:  []string{"true|1"},
		},
		{
			name:  "json read columns",
			files: map[string]string{"a.json": `{"id":1,"name":"a","ok":true}`},
			conf:  "file_format_type = json\nschema { fields { id = int, name = string, ok = boolean } }\nread_columns = [ok, id]",
			cols:  "ok:boolean,id:int",
			rows:  []string{"true|1"},
		},
		{
			name: "partitions and filters",
			files: map[string]string{
				"dt=2024-01-01/city=ams/a.txt": "1",
				"dt=2024-01-02/city=rtm/b.txt": "2",
				"dt=2024-01-02/c.log":          "3",
				"dt=2024-01-03/.hidden.txt":    "4",
				"dt=2024-01-03/_SUCCESS":       "5",
				"dt=2024-01-03/empty.txt":      "",
			},
			conf: "file_format_type = text\nschema { fields { id = int } }\nfile_filter_pattern = \".*\\\\.(txt|log)\"",
			cols: "id:int,dt:string,city:string",
			rows: []string{"1|2024-01-01|ams", "3|2024-01-02|<null>", "2|2024-01-02|rtm"},
		},
		{
			name:  "java filter pattern",
			files: map[string]string{"a.txt": "1", "b.txt": "2", "c1.txt": "3"},
			conf:  "file_format_type = text\nschema { fields { id = int } }\nfile_filter_pattern = \"[a-z&&[^b]]\\\\p{Digit}?\\\\.txt\"",
			cols:  "id:int",
			rows:  []string{"1", "3"},
		},
		{
			name:  "partitions off",
			files: map[string]string{"k=v/a.txt": "1"},
			conf:  "file_format_type = text\nschema { fields { id = int } }\nparse_partition_from_path = false",
			cols:  "id:int",
			rows:  []string{"1"},
		},
		{
			name:  "read partitions",
			files: map[string]string{"k=a/a.txt": "1", "k=b/b.txt": "2"},
			conf:  "file_format_type = text\nschema { fields { id = int } }\nread_partitions = [\"k=b\"]",
			cols:  "id:int,k:string",
			rows:  []string{"2|b"},
		},
		{
			name:  "columns schema and date layouts",
			files: map[string]string{"a.txt": "2024.01.26\u00012024/01/26 01:02:03\u000101:02:03.5\n20240126\u000120240126010203\u000101:02:03\n2024-01-26\u00012024-01-26T01:02:03.123\u0001"},
			conf:  "file_format_type = text\nschema { columns = [{name = d, type = date}, {name = ts, type = timestamp}, {name = tm, type = time}] }",
			cols:  "d:date,ts:timestamp,tm:time",
			rows:  []string{"2024-01-26|2024-01-26T01:02:03|01:02:03.500", "2024-01-26|2024-01-26T01:02:03|01:02:03", "2024-01-26|2024-01-26T01:02:03.123|<null>"},
		},
		{
			name:  "nested text",
			files: map[string]string{"a.txt": "1\u00022\u00023\u0001k\u0003v\u0002k2\u0003\u0001x\u00025\u0001\u0001"},
			conf:  "file_format_type = text\nschema { fields { a = \"array<int>\", m = \"map<string, string>\", r = { s = string, n = int }, e = \"array<int>\" } }",
			cols:  "a:array<int>,m:map<string, string>,r:{s = string, n = int},e:array<int>",
			rows:  []string{`[1, 2, 3]|{"k":"v","k2":null}|[x, 5]|<null>`},
		},
		{
			name:  "json schema written as JSON text",
			files: map[string]string{"a.json": `{"id": 1, "name": "a"}`},
			conf:  "file_format_type = json\nschema = \"\"\"{\"table\": \"db.t\", \"columns\": [{\"name\": \"name\", \"type\": \"string\"}, {\"name\": \"id\", \"type\": \"bigint\"}]}\"\"\"",
			cols:  "name:string,id:bigint",
			rows:  []string{"a|1"},
		},
		{
			name:  "json with a schema of no columns",
			files: map[string]string{"k=v/a.json": "{\"id\": 1}\n{}"},
			conf:  "file_format_type = json\nschema { }",
			cols:  "k:string",
			rows:  []string{"v", "v"},
		},
		{
			name:  "nested json",
			files: map[string]string{"a.json": `{"a":[1,null,3],"m":{"1":"x"},"r":{"n":5,"s":"y"},"r2":[1,"z"],"b":"YWI=","d":"2024-01-26","t":"2024-01-26T01:02:03.5","tm":"01:02:03"}`},
			conf:  "file_format_type = json\nschema { fields { a = \"array<int>\", m = \"map<int, string>\", r = { s = string, n = int }, r2 = { n = int, s = string }, b = bytes, d = date, t = timestamp, tm = time } }",
			cols:  "a:array<int>,m:map<int, string>,r:{s = string, n = int},r2:{n = int, s = string},b:bytes,d:date,t:timestamp,tm:time",
			rows:  []string{`[1, null, 3]|{"1":"x"}|[y, 5]|[1, z]|[97, 98]|2024-01-26|2024-01-26T01:02:03.500|01:02:03`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range c.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			s := mustSource(t, srcConf(dir, c.conf))
			var cols []string
			for _, col := range s.Tables()[0].Columns {
				cols = append(cols, col.Name+":"+col.Type.String())
			}
			if got := strings.Join(cols, ","); got != c.cols {
				t.Errorf("columns %s, want %s", got, c.cols)
			}
			rows := readRows(t, s, 1)
			var got []string
			for _, r := range rows {
				got = append(got, render(r))
				if r.Table != s.Tables()[0].ID() || r.Kind != row.Insert {
					t.Errorf("row of %s %s", r.Table, r.Kind)
				}
				if cols := nullFreeColumns(s.Tables()[0].Columns, r); len(cols) > 0 {
					if err := conntest.AssertTypes(context.Background(), s.Tables()[0], []row.Row{r}, cols...); err != nil {
						t.Errorf("row %s: %v", render(r), err)
					}
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.rows, "\n") {
				t.Errorf("rows\n got %q\nwant %q", got, c.rows)
			}
		})
	}
}

// nullFreeColumns names the columns whose value in r holds no null at any depth: the Assert
// sink's type rule, which checks the others, passes a null only in a column of the null type.
func nullFreeColumns(cols []catalog.Column, r row.Row) []string {
	var out []string
	for i, v := range r.Fields {
		if !holdsNull(v) {
			out = append(out, cols[i].Name)
		}
	}
	return out
}

func holdsNull(v row.Value) bool {
	switch {
	case v.IsNull():
		return true
	case v.T == types.Array || v.T == types.Row:
		for _, e := range v.Elems() {
			if holdsNull(e) {
				return true
			}
		}
	case v.T == types.Map:
		m := v.Map()
		for i := 0; m != nil && i < len(m.Keys); i++ {
			if holdsNull(m.Keys[i]) || holdsNull(m.Vals[i]) {
				return true
			}
		}
	}
	return false
}

func TestSourceTableName(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "1")
	if id := mustSource(t, srcConf(dir, "file_format_type = text")).Tables()[0].ID(); id != "default.default" {
		t.Errorf("without schema: %s", id)
	}
	if id := mustSource(t, srcConf(dir, "file_format_type = text\nresult_table_name = fake\nschema { fields { a = int } }")).Tables()[0].ID(); id != "fake" {
		t.Errorf("with schema: %s", id)
	}
	if id := mustSource(t, srcConf(dir, "file_format_type = text\nschema { table = \"db.t\", fields { a = int } }")).Tables()[0].ID(); id != "db.t" {
		t.Errorf("schema table: %s", id)
	}
	// a single file is a path too
	s := mustSource(t, srcConf(filepath.Join(dir, "a.txt"), "file_format_type = text"))
	if rows := readRows(t, s, 1); len(rows) != 1 {
		t.Errorf("%d rows from a file path", len(rows))
	}
}

func TestSourceBadRows(t *testing.T) {
	cases := []struct {
		name, format, schema, content, want string
	}{
		{"bad int", "text", "id = int, n = string", "1\u0001a\nx\u0001b", `a.txt:2: column "id": "x" is not a int`},
		{"int range", "text", "id = tinyint", "127\n128", `a.txt:2: column "id": "128" is not a tinyint`},
		{"too few fields", "text", "id = int, n = string, m = string", "1\u0001a", `a.txt:1: 2 fields, the schema has 3 columns (missing "m")`},
		{"bad boolean", "text", "ok = boolean", "yes", `a.txt:1: column "ok": "yes" is not a boolean`},
		{"bad date", "text", "d = date", "2024-02-30", `a.txt:1: column "d": "2024-02-30" is not a date`},
		{"bad timestamp", "text", "d = timestamp", "2024-01-01 25:00:00", `column "d": "2024-01-01 25:00:00" is not a timestamp`},
		{"bad decimal", "text", `d = "decimal(4, 2)"`, "123.45", `column "d": 123.45 does not fit decimal(4, 2)`},
		{"bad nested", "text", `a = "array<int>"`, "1\u0002x", `column "a": element 1: "x" is not a int`},
		{"csv quote", "csv", "a = string, b = string", "\"a\"x,b", `a.txt:1: field 1: unexpected 'x' after a quoted field`},
		{"csv open quote", "csv", "a = string", "\"abc", `a.txt:1: field 1: quoted field is not closed on its line`},
		{"json syntax", "json", "a = int", `{"a":1,}`, `a.txt:1: bad JSON at byte 8: expected a key, found '}'`},
		{"json trailing", "json", "a = int", `{"a":1} x`, `a.txt:1: bad JSON at byte 9: unexpected 'x' after the object`},
		{"json type", "json", "a = int", `{"a":1.5}`, `a.txt:1: column "a": "1.5" is not a int`},
		{"json array type", "json", `a = "array<int>"`, `{"a":{"x":1}}`, `column "a": expected array<int>, found "{\"x\":1}"`},
		{"json not object", "json", "a = int", `[1]`, `a.txt:1: bad JSON at byte 1: expected an object, found '['`},
		{"json bytes", "json", "a = bytes", `{"a":"!!"}`, `column "a": "!!" is not base64`},
		{"json unterminated", "json", "a = string", `{"a":"x`, `bad JSON at byte 6: unterminated string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "a.txt"), c.content)
			s := mustSource(t, srcConf(dir, "file_format_type = "+c.format+"\nschema { fields { "+c.schema+" } }"))
			err := readErr(t, s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, "a.txt")) || !strings.Contains(err.Error(), "source[0] LocalFile") {
				t.Errorf("error %q does not name the plugin and the file", err)
			}
		})
	}
}

func TestEnumeratorAssignsRoundRobin(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		writeFile(t, filepath.Join(dir, n+".txt"), n)
	}
	s := mustSource(t, srcConf(dir, "file_format_type = text"))
	ctx := context.Background()
	ec := conntest.NewEnumContext(2)
	ec.Registered = []int{0}
	e, _ := s.CreateEnumerator(ec, nil)
	if err := e.Run(ctx); err != nil {
		t.Fatal(err)
	}
	ids := func(ss []connector.Split) (out []string) {
		for _, s := range ss {
			out = append(out, filepath.Base(s.ID))
		}
		return out
	}
	if got := strings.Join(ids(ec.Assigned[0]), ","); got != "a.txt,c.txt,e.txt" || !ec.NoMore[0] || ec.NoMore[1] {
		t.Errorf("reader 0: %s, no more %v", got, ec.NoMore)
	}
	snap, _ := e.Snapshot(1)
	e.RegisterReader(1)
	if got := strings.Join(ids(ec.Assigned[1]), ","); got != "b.txt,d.txt" || !ec.NoMore[1] {
		t.Errorf("late reader 1: %s", got)
	}
	// a restored enumerator does not hand out what it had assigned
	ec2 := conntest.NewEnumContext(2)
	e2, err := s.CreateEnumerator(ec2, snap)
	if err != nil {
		t.Fatal(err)
	}
	e2.Run(ctx)
	if len(ec2.Assigned[0]) != 0 || strings.Join(ids(ec2.Assigned[1]), ",") != "b.txt,d.txt" || !ec2.NoMore[0] || !ec2.NoMore[1] {
		t.Errorf("restored: %v", ec2.Assigned)
	}
	// splits of a failed reader go back to it when it registers again
	e2.AddSplitsBack(ec2.Assigned[1][:1], 1)
	e2.RegisterReader(1)
	if got := ids(ec2.Assigned[1]); len(got) != 3 || got[2] != "b.txt" {
		t.Errorf("added back: %v", got)
	}
	if _, err := s.CreateEnumerator(ec2, []byte("x")); err == nil {
		t.Error("bad enumerator state accepted")
	}
}

func TestReaderResumesFromItsState(t *testing.T) {
	dir := t.TempDir()
	var content []string
	for i := 0; i < 10; i++ {
		content = append(content, itoa(int64(i)))
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "id\n"+strings.Join(content, "\r\n"))
	writeFile(t, filepath.Join(dir, "b.txt"), "id\n10\n11\n")
	s := mustSource(t, srcConf(dir, "file_format_type = text\nskip_header_row_number = 1\nschema { fields { id = int } }"))
	ctx := context.Background()
	ec := conntest.NewEnumContext(1)
	e, _ := s.CreateEnumerator(ec, nil)
	e.Run(ctx)
	r := conntest.OpenReader(t, s, connector.ReaderContext{}, ec.Assigned[0])
	b := row.NewBatch(4)
	done, err := r.PollNext(ctx, b)
	if err != nil || done || b.Len() != 4 {
		t.Fatalf("first poll: %d rows, %v, %v", b.Len(), done, err)
	}
	state, _ := r.SnapshotState(1)
	if len(state) != 2 {
		t.Fatalf("state %v", state)
	}
	var fs fileSplit
	json.Unmarshal(state[0].Data, &fs)
	if fs.Lines != 5 || fs.Offset != int64(len("id\n0\r\n1\r\n2\r\n3\r\n")) {
		t.Errorf("progress %+v", fs)
	}
	r.Close()

	// a new reader given the snapshot emits the rest, and numbers lines on
	r2 := conntest.OpenReader(t, s, connector.ReaderContext{}, state)
	var got []string
	for {
		b := row.NewBatch(3)
		done := conntest.Poll(ctx, t, r2, b)
		for _, rw := range b.Rows {
			got = append(got, rw.Fields[0].String())
		}
		if done {
			break
		}
	}
	if strings.Join(got, ",") != "4,5,6,7,8,9,10,11" {
		t.Errorf("resumed rows %v", got)
	}
	// and a bad line after resuming carries its true line number
	writeFile(t, filepath.Join(dir, "c.txt"), "id\n1\n2\nx\n")
	r3 := conntest.OpenReader(t, s, connector.ReaderContext{}, []connector.Split{newSplit(fileSplit{Path: filepath.Join(dir, "c.txt"), Split: format.Split{Offset: 5, Lines: 2}})})
	_, err = r3.PollNext(ctx, row.NewBatch(10))
	if err == nil || !strings.Contains(err.Error(), "c.txt:4: column \"id\"") {
		t.Errorf("error after resume: %v", err)
	}
}

func TestLongLines(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", readBufferSize*2+17)
	writeFile(t, filepath.Join(dir, "a.txt"), "a\n"+long+"\nb")
	rows := readRows(t, mustSource(t, srcConf(dir, "file_format_type = text")), 1)
	if len(rows) != 3 || rows[1].Fields[0].Str() != long || rows[2].Fields[0].Str() != "b" {
		t.Errorf("%d rows", len(rows))
	}
}

func TestDecimalParsing(t *testing.T) {
	dt := types.DecimalOf(10, 3)
	cases := map[string]string{
		"1":         "1.000",
		"-1.5":      "-1.500",
		"+0.0005":   "0.001",
		"0.0004":    "0.000",
		"12.3456":   "12.346",
		"-12.3455":  "-12.346",
		"0000012.1": "12.100",
		".5":        "0.500",
		"1e2":       "100.000",
		"1234567.1": "1234567.100",
	}
	for in, want := range cases {
		v, err := (&text.Values{}).Scalar([]byte(in), &dt)
		if err != nil || row.AppendDecimal(nil, v) == nil || string(row.AppendDecimal(nil, v)) != want || v.DecimalScale() != 3 {
			t.Errorf("%q -> %v %v, want %s", in, v, err, want)
		}
	}
	for _, bad := range []string{"12345678.1", "abc", "1.2.3", "", "-", "1 "} {
		if v, err := (&text.Values{}).Scalar([]byte(bad), &dt); err == nil {
			t.Errorf("%q accepted as %v", bad, v)
		}
	}
}
