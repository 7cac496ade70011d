package cdc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/keyrange"
	"github.com/strait-dev/strait/types"
)

type testStream struct {
	At string `json:"at"`
}

// A split carries a snapshot's range or the stream's position, in the JSON checkpoints
// hold; one that carries neither, or both, is refused.
func TestSplits(t *testing.T) {
	hi := int64(10)
	splits := SnapshotSplits("db.t", []keyrange.Range{{Table: "db.t", Key: "id", Hi: &hi}, {Table: "db.t", Key: "id", Lo: &hi}})
	if len(splits) != 2 || splits[0].ID != "db.t-0" || splits[1].ID != "db.t-1" || string(splits[0].Data) != `{"snapshot":{"table":"db.t","key":"id","hi":10}}` {
		t.Fatalf("snapshot splits %+v", splits)
	}
	d, err := DecodeSplit[testStream](splits[1], "log")
	if err != nil || d.Stream != nil || d.Snapshot == nil || *d.Snapshot.Lo != 10 {
		t.Fatalf("decoded %+v, %v", d, err)
	}
	st := Split[testStream]{Stream: &testStream{At: "f:4"}}.Encode("binlog")
	if st.ID != "binlog" || string(st.Data) != `{"stream":{"at":"f:4"}}` {
		t.Fatalf("stream split %+v", st)
	}
	if d, err := DecodeSplit[testStream](st, "log"); err != nil || d.Stream.At != "f:4" {
		t.Fatalf("decoded %+v, %v", d, err)
	}
	for _, data := range []string{`{}`, `{"snapshot":{"table":"t"},"stream":{"at":"x"}}`} {
		if _, err := DecodeSplit[testStream](connector.Split{Data: []byte(data)}, "log"); err == nil || err.Error() != "neither a snapshot nor a log split" {
			t.Errorf("%s: %v", data, err)
		}
	}
	if _, err := DecodeSplit[testStream](connector.Split{Data: []byte(`{`)}, "log"); err == nil {
		t.Error("bad JSON decoded")
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"30000", 30 * time.Second, ""},
		{" 1 M ", time.Minute, ""},
		{"250ms", 250 * time.Millisecond, ""},
		{"-1", 0, "must not be negative"},
		{"soon", 0, "is not a duration"},
		{"", 0, "is not a duration"},
	} {
		got, err := ParseDuration(config.New(nil, "source[0] Test"), "connect.timeout.ms", tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: %v, %v; want %v, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Table names are read from lists separated by commas, each table once in the order first
// named; table-names-config gives keys to tables of table-names only.
func TestTableNames(t *testing.T) {
	o := config.New(nil, "source[0] Test")
	parse := func(s string) (string, error) {
		if !strings.Contains(s, ".") {
			return "", fmt.Errorf("%q is not database.table", s)
		}
		return strings.ToLower(s), nil
	}
	names, pks, err := TableNames(o, []string{"d.T, d.u", " ", "d.t"}, []TableConfig{{Table: "d.u", PrimaryKeys: []string{"id"}, At: o}, {Table: "d.t", At: o}}, parse, nil)
	if err != nil || fmt.Sprint(names) != "[d.t d.u]" || fmt.Sprint(pks) != "map[d.u:[id]]" {
		t.Fatalf("%v %v %v", names, pks, err)
	}
	onlyD := func(n, s string) error {
		if !strings.HasPrefix(s, "d.") {
			return fmt.Errorf("table %s is not in d", n)
		}
		return nil
	}
	for _, tc := range []struct {
		names   []string
		configs []TableConfig
		want    string
	}{
		{[]string{"d.t", "x"}, nil, `table-names: "x" is not database.table`},
		{[]string{"d.t, e.t"}, nil, "table-names: table e.t is not in d"},
		{[]string{" , "}, nil, "table-names: names no table"},
		{[]string{"d.t"}, []TableConfig{{Table: "d.v", At: o}}, "table: table d.v is not in table-names"},
		{[]string{"d.t"}, []TableConfig{{Table: "v", At: o}}, `table: "v" is not database.table`},
	} {
		if _, _, err := TableNames(o, tc.names, tc.configs, parse, onlyD); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.names, tc.configs, err, tc.want)
		}
	}
}

// A change source's tables at a fresh start are the planned ones, or the job fails naming
// the table's columns then and now; a table the plan does not name, or no plan, passes.
func TestUnchanged(t *testing.T) {
	table := func(name string, cols ...string) *catalog.Table {
		tb := &catalog.Table{Path: catalog.TablePath{Database: "shop", Table: name}}
		for i := 0; i < len(cols); i += 2 {
			tb.Columns = append(tb.Columns, catalog.Column{Name: cols[i], Type: types.MustParse(cols[i+1])})
		}
		return tb
	}
	planned := []*catalog.Table{table("a", "id", "int", "name", "string"), table("b", "id", "bigint")}
	for _, tc := range []struct {
		name string
		now  []*catalog.Table
		want string
	}{
		{"the same", []*catalog.Table{table("a", "id", "int", "name", "string"), table("b", "id", "bigint")}, ""},
		{"a table not planned", []*catalog.Table{table("c", "x", "int")}, ""},
		{"a column added", []*catalog.Table{table("a", "id", "int", "name", "string", "added", "int")},
			"src: table shop.a changed after the job was planned: its columns were {id = int, name = string} and are {id = int, name = string, added = int}; submit the job again"},
		{"a type changed", []*catalog.Table{table("a", "id", "int", "name", "string"), table("b", "id", "decimal(20, 0)")},
			"table shop.b changed after the job was planned: its columns were {id = bigint} and are {id = decimal(20, 0)}"},
		{"a column renamed", []*catalog.Table{table("a", "id", "int", "title", "string")}, "and are {id = int, title = string}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Unchanged("src", planned, tc.now)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !connector.IsPermanent(err) {
				t.Fatalf("error %v, want a permanent one with %q", err, tc.want)
			}
		})
	}
	if err := Unchanged("src", nil, planned); err != nil {
		t.Fatalf("no plan to compare with: %v", err)
	}
}
