package jdbc

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/nettest"
)

// buildPlugin builds the Jdbc source or sink through the registry, as the planner does,
// and returns its error and its warnings about options its spec does not know.
func buildPlugin(t *testing.T, ctx context.Context, kind, conf string) (error, []string) {
	t.Helper()
	var o *config.Options
	var err error
	if kind == "source" {
		_, o, err = conntest.BuildSourceIn(t, "Jdbc", conf, connector.SourceContext{Context: ctx, Job: connector.Job{ID: 1, Mode: connector.Batch}, Parallelism: 1})
	} else {
		_, o, err = conntest.BuildSinkIn(t, "Jdbc", conf, connector.SinkContext{Context: ctx, Job: connector.Job{ID: 1}, Inputs: []*catalog.Table{scoreTable()}})
	}
	return err, conntest.Unknown(t, kind, "Jdbc", o, "plugin_input", "plugin_output")
}

// warnCase is options added to a plugin's block, and the warnings about unknown options
// the plugin should give for them.
type warnCase struct {
	name, opts string
	want       []string
}

// warned builds the plugin of kind from conf and the options of each case, and checks its
// warnings about unknown options are the case's.
func warned(t *testing.T, kind, conf string, cases []warnCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err, got := buildPlugin(t, context.Background(), kind, conf+tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			conntest.Warnings(t, got, tc.want)
		})
	}
}

func TestSinkUnknownOptionsAreWarned(t *testing.T) {
	const conf = "url = \"jdbc:postgresql://127.0.0.1:1/test\"\nuser = test\ngenerate_sink_sql = true\n"
	warned(t, "sink", conf, []warnCase{
		{"options without effect are known", "max_commit_attempts = 5\ntransaction_timeout_sec = 60\ncreate_index = false\nxa_data_source_class_name = org.postgresql.xa.PGXADataSource\ncompatible_mode = x\nsupport_upsert_by_query_primary_key_exist = true\nproperties { ssl = false }", nil},
		{"a misspelt option", "bacth_size = 10", []string{`unknown option "bacth_size" (did you mean "batch_size"?) at job.conf:4:14`}},
		{"a misspelt option of the catalog", "tablePrefx = p_", []string{`unknown option "tablePrefx" (did you mean "tablePrefix"?) at job.conf:4:14`}},
		{"a source option", "split.size = 10", []string{`unknown option "split.size" at job.conf:4:14`}},
	})
}

func TestSourceUnknownOptionsAreWarned(t *testing.T) {
	url, conn := testDB(t)
	mustExec(t, conn, "CREATE TABLE src (id INT PRIMARY KEY, name TEXT)")
	conf := "url = \"" + url + "\"\n"
	warned(t, "source", conf, []warnCase{
		{"options without effect are known", "table_path = src\nfetch_size = 100\nuse_select_count = true\nskip_analyze = true\ndialect = postgres", nil},
		{"a misspelt option", "table_path = src\nsplit.sizee = 10", []string{`unknown option "split.sizee" (did you mean "split.size"?) at job.conf:3:15`}},
		{"a misspelt option of a listed table", "table_list = [{ table_path = src, partition_colum = id }]", []string{`unknown option "table_list[0].partition_colum" (did you mean "table_list[0].partition_column"?) at job.conf:2:53`}},
		{"a sink option", "table_path = src\nis_exactly_once = true", []string{`unknown option "is_exactly_once" at job.conf:3:19`}},
	})
}

func TestRequiredOptions(t *testing.T) {
	for _, tc := range []struct{ kind, conf, want string }{
		{"source", "query = \"select 1\"", "source[0] Jdbc: url: option is required (at job.conf:1:1)"},
		{"sink", "generate_sink_sql = true", "sink[0] Jdbc: url: option is required (at job.conf:1:1)"},
		{"source", "url = \"jdbc:postgresql://127.0.0.1:1/test\"\ntable_list = [{ where_condition = \"where id > 1\" }]", "source[0] Jdbc: table_list[0].query: set query, table_path or table_list to say what to read (at job.conf:2:15)"},
	} {
		err, _ := buildPlugin(t, context.Background(), tc.kind, tc.conf)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %q:\n  error %v\n  want  %s", tc.kind, tc.conf, err, tc.want)
		}
	}
}

// The options SeaTunnel's configs carry that change nothing here say so, and why.
func TestNoEffectOptions(t *testing.T) {
	for kind, names := range map[string][]string{
		"sink":   {"max_commit_attempts", "transaction_timeout_sec", "create_index", "support_upsert_by_query_primary_key_exist", "xa_data_source_class_name", "compatible_mode", "dialect"},
		"source": {"fetch_size", "use_select_count", "skip_analyze", "xa_data_source_class_name", "compatible_mode", "dialect"},
	} {
		p, _ := connector.LookupPlugin(kind, "Jdbc")
		for _, n := range names {
			f := p.Spec.Field(n)
			if f == nil || !f.NoEffect || !strings.Contains(f.Doc, ";") {
				t.Errorf("%s %s: %+v, want an option without effect whose doc says why", kind, n, f)
			}
		}
	}
	p, _ := connector.LookupPlugin("source", "Jdbc")
	if f := p.Spec.Field("password"); f == nil || !f.Secret {
		t.Errorf("password: %+v, want a secret", f)
	}
}

// A source whose database does not answer gives up at the planning deadline or at
// connection_check_timeout_sec, whichever comes first, naming the host and port.
func TestSourceGivesUpOnADatabaseThatIsDown(t *testing.T) {
	for _, tc := range []struct {
		name     string
		addr     string
		timeout  int           // connection_check_timeout_sec
		deadline time.Duration // of the planning context; 0 for none
		bound    time.Duration // the source must have given up by then
	}{
		{"refused", nettest.ClosedAddr(t), 30, 0, 10 * time.Second},
		{"silent, planning deadline first", nettest.SilentAddr(t), 30, 300 * time.Millisecond, 10 * time.Second},
		{"silent, connect timeout first", nettest.SilentAddr(t), 1, 0, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := conntest.Deadline(t, tc.deadline)
			conf := "url = \"jdbc:postgresql://" + tc.addr + "/test\"\nuser = test\nquery = \"select 1\"\nconnection_check_timeout_sec = " + strconv.Itoa(tc.timeout)
			start := time.Now()
			err, _ := buildPlugin(t, ctx, "source", conf)
			if took := time.Since(start); took > tc.bound {
				t.Errorf("gave up after %v, want within %v", took, tc.bound)
			}
			if err == nil || !strings.HasPrefix(err.Error(), "source[0] Jdbc: ") || !strings.Contains(err.Error(), tc.addr) {
				t.Fatalf("error %v, want one naming the plugin and %s", err, tc.addr)
			}
		})
	}
}
