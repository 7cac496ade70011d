package cdc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/keyrange"
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
