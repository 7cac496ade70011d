package file

import (
	"encoding/json"
	"testing"

	"github.com/strait-dev/strait/connectors/internal/format"
)

// A split's JSON, which checkpoints keep, has the names it had before the formats moved out
// of the core: the format's part is flattened into it, and an old split reads back whole.
func TestSplitJSON(t *testing.T) {
	d := fileSplit{Path: "/d/a.parquet", Table: 1, Entry: 2,
		Split: format.Split{Offset: 3, Lines: 4, FirstGroup: 5, EndGroup: 6, Group: 7, GroupRows: 8}}
	const want = `{"path":"/d/a.parquet","table":1,"entry":2,"offset":3,"lines":4,"first_group":5,"end_group":6,"group":7,"group_rows":8}`
	b, err := json.Marshal(d)
	if err != nil || string(b) != want {
		t.Fatalf("%s %v, want %s", b, err, want)
	}
	var back fileSplit
	if err := json.Unmarshal([]byte(want), &back); err != nil || back != d {
		t.Fatalf("%+v %v, want %+v", back, err, d)
	}
}
