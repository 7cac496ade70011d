package postgrescdc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/internal/nettest"
)

// build builds a Postgres-CDC source through the registry, as the planner does, and returns
// its error and its warnings about options its spec does not know.
func build(t *testing.T, ctx context.Context, conf string, mode connector.JobMode) (error, []string) {
	t.Helper()
	_, o, err := conntest.BuildSourceIn(t, "Postgres-CDC", conf, connector.SourceContext{Context: ctx, Job: connector.Job{ID: 1, Mode: mode}, Parallelism: 1})
	return err, conntest.Unknown(t, "source", "Postgres-CDC", o, "plugin_output")
}

func TestUnknownOptionsAreWarned(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT)
	for _, tc := range []struct {
		name, extra string
		want        []string
	}{
		{"options without effect and Debezium's properties are known", `exactly_once = true
snapshot.fetch.size = 10
server-time-zone = "Europe/Paris"
connection.pool.size = 4
chunk-key.even-distribution.factor.upper-bound = 10
sample-sharding.threshold = 5
debezium { publication.name = p, snapshot.mode = never, "column.exclude.list" = x }
table-names-config = [{ table = "` + db.table("t") + `", primaryKeys = [id], snapshotSplitColumn = id }]`, nil},
		{"a misspelt option", `startup.mdoe = latest`, []string{`unknown option "startup.mdoe" (did you mean "startup.mode"?) at job.conf:9:16`}},
		{"a misspelt option of a table's settings", `table-names-config = [{ table = "` + db.table("t") + `", primaryKey = [id] }]`,
			[]string{`unknown option "table-names-config[0].primaryKey" (did you mean "table-names-config[0].primaryKeys"?) at job.conf:9:`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, got := build(t, context.Background(), db.options([]string{"t"}, tc.extra), connector.Batch)
			if err != nil {
				t.Fatal(err)
			}
			conntest.WarningsWithPrefixes(t, got, tc.want)
		})
	}
}

func TestRequiredOptions(t *testing.T) {
	const url = `base-url = "jdbc:postgresql://127.0.0.1:1/test"` + "\n"
	for _, tc := range []struct{ conf, want string }{
		{`table-names = ["test.public.t"]`, "source[0] Postgres-CDC: base-url: option is required (at job.conf:1:1)"},
		{url + `username = u`, "source[0] Postgres-CDC: table-names: option is required (at job.conf:1:1)"},
		{url + `table-names = ["test.public.t"]`, "source[0] Postgres-CDC: username: option is required (at job.conf:1:1)"},
		{url + "username = u\ntable-names = [\"test.public.t\"]\ntable-names-config = [{ primaryKeys = [id] }]", "source[0] Postgres-CDC: table-names-config[0].table: option is required (at job.conf:4:23)"},
	} {
		err, _ := build(t, context.Background(), tc.conf, connector.Streaming)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n  error %v\n  want  %s", tc.conf, err, tc.want)
		}
	}
}

// A source whose database does not answer gives up at the planning deadline or at
// connect.timeout.ms, whichever comes first, naming the host and port.
func TestSourceGivesUpOnADatabaseThatIsDown(t *testing.T) {
	closed := nettest.ClosedAddr(t)
	for _, tc := range []struct {
		name     string
		addr     string
		extra    string
		deadline time.Duration // of the planning context; 0 for none
	}{
		{"refused", closed, "connect.max-retries = 0", 0},
		{"silent, planning deadline first", nettest.SilentAddr(t), "connect.timeout.ms = 30s", 300 * time.Millisecond},
		{"silent, planning deadline between attempts", nettest.SilentAddr(t), "connect.timeout.ms = 200\nconnect.max-retries = 30", 2 * time.Second},
		{"silent, connect timeout first", nettest.SilentAddr(t), "connect.timeout.ms = 1000\nconnect.max-retries = 0", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := conntest.Deadline(t, tc.deadline)
			conf := "base-url = \"jdbc:postgresql://" + tc.addr + "/test\"\nusername = test\ntable-names = [\"test.public.t\"]\n" + tc.extra
			start := time.Now()
			err, _ := build(t, ctx, conf, connector.Streaming)
			if took, bound := time.Since(start), 10*time.Second; took > bound {
				t.Errorf("gave up after %v, want within %v", took, bound)
			}
			if err == nil || !strings.HasPrefix(err.Error(), "source[0] Postgres-CDC: ") || !strings.Contains(err.Error(), tc.addr) {
				t.Fatalf("error %v, want one naming the plugin and %s", err, tc.addr)
			}
		})
	}
}
