package file

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
)

// SeaTunnel's LocalFile options: those its docs list (source/LocalFile.md, sink/LocalFile.md)
// and its option rules read, and those of later versions that its configs may carry.
var (
	seatunnelSourceOptions = []string{
		"path", "file_format_type", "read_columns", "delimiter", "field_delimiter", "parse_partition_from_path",
		"date_format", "datetime_format", "time_format", "skip_header_row_number", "schema", "sheet_name",
		"xml_row_tag", "xml_use_attr_format", "file_filter_pattern", "compress_codec", "archive_compress_codec",
		"encoding", "tables_configs", "read_partitions", "csv_use_header_line", "null_format",
	}
	seatunnelSinkOptions = []string{
		"path", "tmp_path", "custom_filename", "file_name_expression", "filename_time_format", "file_format_type",
		"field_delimiter", "row_delimiter", "have_partition", "partition_by", "partition_dir_expression",
		"is_partition_field_write_in_file", "sink_columns", "is_enable_transaction", "batch_size", "compress_codec",
		"max_rows_in_memory", "sheet_name", "xml_root_tag", "xml_row_tag", "xml_use_attr_format",
		"parquet_avro_write_timestamp_as_int96", "parquet_avro_write_fixed_as_int96", "enable_header_write",
		"encoding", "schema_save_mode", "data_save_mode", "date_format", "datetime_format", "time_format",
		"multi_table_sink_replica", "single_file_mode", "create_empty_file_when_no_data",
	}
	engineOptions = []string{"plugin_name", "plugin_input", "plugin_output", "source_table_name", "result_table_name", "parallelism"}
)

func pluginSpec(t *testing.T, kind string) *config.Spec {
	t.Helper()
	p, ok := connector.LookupPlugin(kind, "LocalFile")
	if !ok || p.Spec == nil || p.Doc == "" {
		t.Fatalf("the LocalFile %s is not registered with a spec and a doc: %+v", kind, p)
	}
	return p.Spec
}

// known reports whether the spec reads the option under its name or as a fallback.
func known(s *config.Spec, name string) bool {
	for _, f := range s.Fields {
		if f.Name == name {
			return true
		}
		for _, fb := range f.Fallbacks {
			if fb == name {
				return true
			}
		}
	}
	return false
}

func TestSpecsHoldSeaTunnelsOptions(t *testing.T) {
	for kind, names := range map[string][]string{"source": seatunnelSourceOptions, "sink": seatunnelSinkOptions} {
		s := pluginSpec(t, kind)
		for _, n := range names {
			if !known(s, n) {
				t.Errorf("%s: SeaTunnel's option %s is not in the spec", kind, n)
			}
		}
		for _, n := range engineOptions {
			if known(s, n) {
				t.Errorf("%s: the engine's option %s is in the plugin's spec", kind, n)
			}
		}
		for _, f := range s.Fields {
			if f.Doc == "" {
				t.Errorf("%s: option %s has no doc", kind, f.Name)
			}
		}
	}
}

func TestSpecDeclarations(t *testing.T) {
	src, sink := pluginSpec(t, "source"), pluginSpec(t, "sink")
	cases := []struct {
		spec               *config.Spec
		name               string
		def                string
		required, noEffect bool
		fallback           string
		values             string
	}{
		{spec: src, name: "field_delimiter", fallback: "delimiter"},
		{spec: src, name: "path"}, // required unless tables_configs is set: the factory checks it
		{spec: src, name: "parse_partition_from_path", def: "true"},
		{spec: src, name: "skip_header_row_number", def: "0"},
		{spec: src, name: "encoding", def: "UTF-8"},
		{spec: src, name: "compress_codec", def: "none"},
		{spec: src, name: "archive_compress_codec", def: "none"},
		{spec: src, name: "datetime_format", def: "yyyy-MM-dd HH:mm:ss"},
		{spec: src, name: "csv_use_header_line", def: "false"},
		{spec: sink, name: "path", required: true},
		{spec: sink, name: "tmp_path", def: "/tmp/seatunnel"},
		{spec: sink, name: "file_format_type", def: "text"},
		{spec: sink, name: "field_delimiter", def: "\u0001"},
		{spec: sink, name: "row_delimiter", def: "\n"},
		{spec: sink, name: "file_name_expression", def: "${transactionId}"},
		{spec: sink, name: "filename_time_format", def: "yyyy.MM.dd"},
		{spec: sink, name: "batch_size", def: "1000000"},
		{spec: sink, name: "is_enable_transaction", def: "true"},
		{spec: sink, name: "custom_filename", def: "false", noEffect: true},
		{spec: sink, name: "have_partition", def: "false", noEffect: true},
		{spec: sink, name: "max_rows_in_memory", noEffect: true},
		{spec: sink, name: "multi_table_sink_replica", def: "1", noEffect: true},
		{spec: sink, name: "xml_root_tag", def: "RECORDS"},
		{spec: sink, name: "xml_row_tag", def: "RECORD"},
		{spec: sink, name: "schema_save_mode", def: "CREATE_SCHEMA_WHEN_NOT_EXIST",
			values: "RECREATE_SCHEMA,CREATE_SCHEMA_WHEN_NOT_EXIST,ERROR_WHEN_SCHEMA_NOT_EXIST,IGNORE"},
		{spec: sink, name: "data_save_mode", def: "APPEND_DATA", values: "DROP_DATA,APPEND_DATA,ERROR_WHEN_DATA_EXISTS"},
		{spec: sink, name: "single_file_mode", def: "false"},
		{spec: sink, name: "create_empty_file_when_no_data", def: "false"},
	}
	for _, c := range cases {
		f := c.spec.Field(c.name)
		if f == nil {
			t.Errorf("%s: not in the spec", c.name)
			continue
		}
		if f.Default != c.def || f.Required != c.required || f.NoEffect != c.noEffect ||
			strings.Join(f.Fallbacks, ",") != c.fallback || strings.Join(f.Enum, ",") != c.values {
			t.Errorf("%s: %+v, want default %q required %v noeffect %v fallback %q values %q", c.name, *f, c.def, c.required, c.noEffect, c.fallback, c.values)
		}
	}
}

// TestUnknownOptionsWarned plans jobs with misspelled LocalFile options: the planner warns
// about each with the nearest option the spec knows, and about nothing else.
func TestUnknownOptionsWarned(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	writeFile(t, filepath.Join(in, "a.txt"), "1,x\n")
	source := "path = " + quote(in) + ", file_format_type = text, schema { fields { id = int, name = string } }"
	sink := "path = " + quote(filepath.Join(dir, "out")) + ", tmp_path = " + quote(filepath.Join(dir, "tmp"))
	tables := func(entry string) string {
		return "tables_configs = [{ path = " + quote(in) + ", file_format_type = text, schema { table = a, fields { id = int, name = string } } }, { " + entry + " }]"
	}
	cases := []struct {
		name, source, sink string
		want               []string
	}{
		{"none", source + ", delimiter = \",\", plugin_output = t", sink + ", plugin_input = t, partition_by = [id]", nil},
		{"source", source + ", feild_delimiter = \",\"", sink,
			[]string{`source[0] LocalFile: unknown option "feild_delimiter" (did you mean "field_delimiter"?) at job.conf:`}},
		{"source fallback", source + ", delimter = \",\"", sink,
			[]string{`source[0] LocalFile: unknown option "delimter" (did you mean "delimiter"?)`}},
		{"tables_configs", tables(source + ", feild_delimiter = \",\", tables_configs = []"), sink,
			[]string{
				`source[0] LocalFile: unknown option "tables_configs[1].feild_delimiter" (did you mean "tables_configs[1].field_delimiter"?)`,
				`source[0] LocalFile: unknown option "tables_configs[1].tables_configs" at job.conf:`,
			}},
		{"sink", source, sink + ", sink_colums = [id], fiel_format_type = json, wholly_unknown = 1",
			[]string{
				`sink[0] LocalFile: unknown option "sink_colums" (did you mean "sink_columns"?)`,
				`sink[0] LocalFile: unknown option "fiel_format_type" (did you mean "file_format_type"?)`,
				`sink[0] LocalFile: unknown option "wholly_unknown" at job.conf:`,
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := planner.Plan(contract.ConfigSource{File: "job.conf", Text: "env { job.mode = BATCH }\nsource { LocalFile { " + c.source +
				" } }\nsink { LocalFile { " + c.sink + " } }"}, connector.Job{ID: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Warnings) != len(c.want) {
				t.Fatalf("warnings %q, want %d", plan.Warnings, len(c.want))
			}
			for i, w := range c.want {
				if !strings.HasPrefix(plan.Warnings[i], w) {
					t.Errorf("warning %q, want %q", plan.Warnings[i], w)
				}
			}
		})
	}
}

func TestRequiredOptions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "x\n")
	tbl := table("db.t", "id", "int")
	cases := []struct {
		name, conf string
		sink       bool
		want       string
	}{
		{"sink path", "file_format_type = csv", true, "sink[0] LocalFile: path: option is required (at job.conf:1:1)"},
		{"sink path null", "path = null", true, "sink[0] LocalFile: path: option is required"},
		{"source path", "file_format_type = text", false, "source[0] LocalFile: path: option is required"},
		{"source format", srcConf(dir, ""), false, "source[0] LocalFile: file_format_type: option is required"},
		{"table path", "tables_configs = [{ file_format_type = text }]", false, "source[0] LocalFile: tables_configs[0].path: option is required"},
		{"table format", "tables_configs = [{ " + srcConf(dir, "") + " }]", false, "source[0] LocalFile: tables_configs[0].file_format_type: option is required"},
		{"xml row tag", srcConf(dir, "file_format_type = xml, xml_use_attr_format = false, schema { fields { a = int } }"), false, "xml_row_tag: option is required for the xml format"},
		{"xml attributes", sinkConf(dir, "file_format_type = xml"), true, "xml_use_attr_format: option is required for the xml format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.sink {
				_, err = newTestSink(t, c.conf, tbl)
			} else {
				_, err = newTestSource(t, c.conf)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestOptionsNotYetSupported: the options of later SeaTunnel versions are accepted at what
// Strait does anyway and refused beyond it, never ignored.
func TestOptionsNotYetSupported(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.csv"), "1\n")
	tbl := table("db.t", "id", "int")
	cases := []struct {
		name, conf string
		sink       bool
		want       string // "" when accepted
	}{
		{"csv header line", srcConf(dir, "file_format_type = csv\ncsv_use_header_line = true"), false, "csv_use_header_line: true is not supported yet"},
		{"csv header line off", srcConf(dir, "file_format_type = csv\ncsv_use_header_line = false"), false, ""},
		{"null format", srcConf(dir, "file_format_type = text\nnull_format = \"\\\\N\""), false, `null_format: "\\N" is not supported yet`},
		{"null format blank", srcConf(dir, "file_format_type = text\nnull_format = \"\""), false, ""},
		{"single file", sinkConf(dir, "single_file_mode = true"), true, "single_file_mode: true is not supported yet"},
		{"single file off", sinkConf(dir, "single_file_mode = false"), true, ""},
		{"empty file", sinkConf(dir, "create_empty_file_when_no_data = true"), true, "create_empty_file_when_no_data: true is not supported yet"},
		{"empty file off", sinkConf(dir, "create_empty_file_when_no_data = false"), true, ""},
		{"replicas", sinkConf(dir, "multi_table_sink_replica = 4"), true, ""},
		{"replicas not a number", sinkConf(dir, "multi_table_sink_replica = many"), true, `multi_table_sink_replica: "many" is not an integer`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.sink {
				_, err = newTestSink(t, c.conf, tbl)
			} else {
				_, err = newTestSource(t, c.conf)
			}
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestTablesConfigsDecodedEach: every entry of tables_configs is decoded with the options
// of one table, so its option errors name the entry.
func TestTablesConfigsDecodedEach(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), "x\n")
	entry := func(table, extra string) string {
		return "{ " + srcConf(dir, "file_format_type = text\nschema { table = "+table+" }\n"+extra) + " }"
	}
	for _, c := range []struct{ conf, want string }{
		{"tables_configs = [" + entry("a", "") + ", " + entry("b", "skip_header_row_number = many") + "]", `tables_configs[1].skip_header_row_number: "many" is not an integer`},
		{"tables_configs = [" + entry("a", "parse_partition_from_path = maybe") + "]", `tables_configs[0].parse_partition_from_path: expected true or false`},
		{"tables_configs = 3", `tables_configs: expected a list of objects, found number`},
	} {
		_, err := newTestSource(t, c.conf)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\nerror %v, want %q", c.conf, err, c.want)
		}
	}
	// the options beside tables_configs are not read: a path that does not exist is no error
	s, err := newTestSource(t, "path = "+quote(filepath.Join(dir, "nope"))+"\nfile_format_type = orc\ntables_configs = ["+entry("a", "")+", "+entry("b", "")+"]")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(s.Tables()); got != 2 {
		t.Fatalf("%d tables", got)
	}
}
