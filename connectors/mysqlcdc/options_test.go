package mysqlcdc

import (
	"context"
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
)

// build builds a MySQL-CDC source through the registry, as the planner does, and returns
// its error and its warnings about options its spec does not know.
func build(t *testing.T, conf string, mode connector.JobMode) (error, []string) {
	t.Helper()
	root, err := hocon.Parse([]byte(conf), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatalf("parse %q: %v", conf, err)
	}
	o := config.New(root, "source[0] MySQL-CDC")
	f, _, _ := connector.LookupSource("MySQL-CDC")
	_, err = f(&connector.SourceContext{Context: context.Background(), Options: o, Job: connector.Job{ID: 1, Mode: mode}, Parallelism: 1})
	p, _ := connector.LookupPlugin("source", "MySQL-CDC")
	return err, p.Spec.Unknown(o, "plugin_output")
}

func TestUnknownOptionsAreWarned(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE t (id INT PRIMARY KEY)")
	for _, tc := range []struct {
		name, extra string
		want        []string
	}{
		{"SeaTunnel's options, those without effect too, are known", `exactly_once = true
server-id = "5400-5404"
server-time-zone = "Europe/Paris"
snapshot.fetch.size = 10
connection.pool.size = 4
schema-changes.enabled = true
database-names = ["` + db.name + `"]
debezium { "snapshot.mode" = never }
table-names-config = [{ table = "` + db.name + `.t", primaryKeys = [id], snapshotSplitColumn = id }]`, nil},
		{"a misspelt option", `startup.mdoe = latest`, []string{`unknown option "startup.mdoe" (did you mean "startup.mode"?)`}},
		{"a misspelt option of a table's settings", `table-names-config = [{ table = "` + db.name + `.t", primaryKey = [id] }]`,
			[]string{`unknown option "table-names-config[0].primaryKey" (did you mean "table-names-config[0].primaryKeys"?)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, got := build(t, db.conf("t", tc.extra), connector.Batch)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("warnings\n%q\nwant\n%q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("warning\n%s\nwant\n%s", got[i], tc.want[i])
				}
			}
		})
	}
}

// Missing required options fail before anything connects.
func TestRequiredOptions(t *testing.T) {
	for _, tc := range []struct {
		name, conf, want string
	}{
		{"base-url", `username = u, table-names = ["d.t"]`, `base-url: option is required`},
		{"username", `base-url = "jdbc:mysql://127.0.0.1:1/d", table-names = ["d.t"]`, `username: option is required`},
		{"table-names", `base-url = "jdbc:mysql://127.0.0.1:1/d", username = u`, `table-names: option is required`},
		{"startup.timestamp", `base-url = "jdbc:mysql://127.0.0.1:1/d", username = u, table-names = ["d.t"], startup.mode = timestamp`, `startup.timestamp`},
		{"a table of table-names-config not captured", `base-url = "jdbc:mysql://127.0.0.1:1/d", username = u, table-names = ["d.t"], table-names-config = [{table = "d.x", primaryKeys = [a]}]`, `table d.x is not in table-names`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, _ := build(t, tc.conf, connector.Streaming)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %s", err, tc.want)
			}
		})
	}
}
