package taskrunner

import (
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func TestHasherKeepsEqualKeysTogether(t *testing.T) {
	rt := &types.RowType{Names: []string{"k", "v"}, Types: []types.DataType{types.Of(types.String), types.Of(types.Int)}}
	v := &planvertex.Vertex{Tables: []*catalog.Table{catalog.FromRowType(catalog.TablePath{Table: "t"}, rt)}}
	h := newHasher(v, []string{"k"})
	b := row.NewBatch(1024)
	for i := 0; i < 1000; i++ {
		r := b.Add(row.Insert, "t", 2)
		r.Fields[0] = row.StringValue(string(rune('a' + i%13)))
		r.Fields[1] = row.IntValue(int32(i))
	}
	parts := h.split(b, 4)
	where := map[string]int{}
	total, used := 0, 0
	for p, pb := range parts {
		if pb == nil {
			continue
		}
		used++
		for i := range pb.Rows {
			k := pb.Rows[i].Fields[0].S
			if prev, ok := where[k]; ok && prev != p {
				t.Fatalf("key %q went to %d and %d", k, prev, p)
			}
			where[k] = p
			total++
		}
	}
	if total != 1000 || used < 2 {
		t.Fatalf("total %d over %d parts", total, used)
	}
}
