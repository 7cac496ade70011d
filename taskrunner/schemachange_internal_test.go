package taskrunner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/types"
)

func keyedTable(names ...string) *catalog.Table {
	rt := &types.RowType{Names: names, Types: make([]types.DataType, len(names))}
	for i := range rt.Types {
		rt.Types[i] = types.Of(types.Int)
	}
	return catalog.FromRowType(catalog.TablePath{Database: "db", Table: "t"}, rt)
}

// A hash edge's key positions follow a change: a column added before the key, the key
// renamed; a change that drops the key fails; a restored reader's tables rebase them.
func TestHasherFollowsSchemaChanges(t *testing.T) {
	h := newHasher(&planvertex.Vertex{Tables: []*catalog.Table{keyedTable("a", "k", "b")}}, []string{"k"})
	col := func(name string) catalog.Column { return catalog.Column{Name: name, Type: types.Of(types.Int)} }
	steps := []struct {
		change connector.ColumnChange
		want   int
		err    string
	}{
		{connector.ColumnChange{Op: connector.AddColumn, Column: col("x"), First: true}, 2, ""},
		{connector.ColumnChange{Op: connector.DropColumn, Name: "a"}, 1, ""},
		{connector.ColumnChange{Op: connector.ChangeColumn, Name: "k", Column: col("key"), After: "b"}, 2, ""},
		{connector.ColumnChange{Op: connector.DropColumn, Name: "key"}, 2, `drops key field "key"`},
	}
	for i, s := range steps {
		err := h.follow(&connector.SchemaChange{Table: "db.t", Columns: []connector.ColumnChange{s.change}})
		if s.err != "" {
			if err == nil || !strings.Contains(err.Error(), s.err) {
				t.Fatalf("step %d: %v, want %q", i, err, s.err)
			}
			continue
		}
		if err != nil || h.keys["db.t"][0] != s.want {
			t.Fatalf("step %d: key at %v (%v), want %d", i, h.keys["db.t"], err, s.want)
		}
	}
	// the plan's table has the key at 1; the reader's, restored, at 0
	h = newHasher(&planvertex.Vertex{Tables: []*catalog.Table{keyedTable("a", "k")}}, []string{"k"})
	h.rebase(keyedTable("k", "a", "c"))
	if h.keys["db.t"][0] != 0 {
		t.Fatalf("rebased key at %v", h.keys["db.t"])
	}
	h.rebase(keyedTable("a", "c")) // without the key: the plan's stays
	if h.keys["db.t"][0] != 0 {
		t.Fatalf("key at %v after a table without it", h.keys["db.t"])
	}
}

// Subtasks meet: none goes on before the last arrived; a canceled one gives up.
func TestMeet(t *testing.T) {
	ex := &execution{}
	const n = 3
	var mu sync.Mutex
	arrived := 0
	var wg sync.WaitGroup
	released := make(chan int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			arrived++
			mu.Unlock()
			if err := ex.meet(context.Background(), "g1/c1", n); err != nil {
				t.Error(err)
			}
			mu.Lock()
			released <- arrived
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(released)
	for a := range released {
		if a != n {
			t.Fatalf("a subtask went on after %d of %d arrived", a, n)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := ex.meet(ctx, "g1/c2", 2); err == nil {
		t.Fatal("a meeting no sibling came to ended without an error")
	}
}
