package mysqlcdc

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// build builds a MySQL-CDC source through the registry, as the planner does, and returns
// its error and its warnings about options its spec does not know.
func build(t *testing.T, conf string, mode connector.JobMode) (error, []string) {
	t.Helper()
	_, o, err := conntest.BuildSourceIn(t, "MySQL-CDC", conf, connector.SourceContext{Job: connector.Job{ID: 1, Mode: mode}, Parallelism: 1})
	return err, conntest.Unknown(t, "source", "MySQL-CDC", o, "plugin_output")
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
			conntest.WarningsWithPrefixes(t, got, tc.want)
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
