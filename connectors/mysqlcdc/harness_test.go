package mysqlcdc

import (
	"reflect"
	"strings"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/connectors/internal/mytest"
	"github.com/strait-dev/strait/row"
)

// testDB is a database of the test's own on the test server.
type testDB struct {
	*mytest.DB
	name string
	addr string
	user string
	pass string
}

func newTestDB(t testing.TB) *testDB {
	t.Helper()
	d := mytest.New(t, "cdc", nil)
	return &testDB{DB: d, name: d.Name, addr: d.Addr, user: d.User, pass: d.Pass}
}

func (d *testDB) exec(t testing.TB, stmts ...string) { d.Run(t, stmts...) }

// conf is a MySQL-CDC block reading the test database's tables, with extra options.
func (d *testDB) conf(tables string, extra string) string {
	var names []string
	for _, t := range strings.Split(tables, ",") {
		names = append(names, `"`+d.name+"."+strings.TrimSpace(t)+`"`)
	}
	return `base-url = "jdbc:mysql://` + d.addr + `/` + d.name + `"
username = "` + d.user + `"
password = "` + d.pass + `"
table-names = [` + strings.Join(names, ", ") + `]
` + extra
}

func newTestSource(t testing.TB, conf string, mode connector.JobMode) (*Source, error) {
	t.Helper()
	return newTestSourceP(t, conf, mode, 1)
}

// newTestSourceP builds a source of a job of parallelism p.
func newTestSourceP(t testing.TB, conf string, mode connector.JobMode, p int) (*Source, error) {
	t.Helper()
	s, _, err := conntest.BuildSourceIn(t, "MySQL-CDC", conf, connector.SourceContext{Job: connector.Job{ID: 1, Mode: mode}, Parallelism: p})
	if err != nil {
		return nil, err
	}
	return s.(*Source), nil
}

func mustSource(t testing.TB, conf string, mode connector.JobMode) *Source {
	t.Helper()
	s, err := newTestSource(t, conf, mode)
	if err != nil {
		t.Fatalf("NewSource: %v", err)
	}
	return s
}

// newHarness steps the source's enumerator and p readers in the test's goroutine
// (conntest.Harness), 64 rows a poll.
func newHarness(t *testing.T, src *Source, p int, enumState []byte, readerStates [][]connector.Split) *conntest.Harness {
	t.Helper()
	return conntest.NewHarness(t, src, p, 64, enumState, readerStates)
}

// show formats rows as kind and fields, for comparisons.
// wantRows checks that rows, shown as show shows them, are want.
func wantRows(t testing.TB, what string, rows []row.Row, want []string) {
	t.Helper()
	if got := show(rows); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func show(rows []row.Row) []string {
	var out []string
	for _, r := range rows {
		var f []string
		for _, v := range r.Fields {
			f = append(f, v.String())
		}
		out = append(out, r.Kind.Short()+" "+strings.Join(f, ","))
	}
	return out
}
