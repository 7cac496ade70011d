package jdbc

import (
	"encoding/binary"
	"testing"
)

// pushKey buffers a row of one field, its key, as the drivers encode it.
func pushKey(b *rowBuffer, o op, key string, upsert bool) {
	first := len(b.buf)
	b.buf = binary.BigEndian.AppendUint32(b.buf, uint32(len(key)))
	b.buf = append(b.buf, key...)
	b.push(o, first, []int{0}, upsert)
}

// TestRowBufferReducesByKey: the last change of a key wins within a flush, an update of a
// row inserted in the same flush is inserted with its last values, and a delete before a
// plain insert of the same key stays.
func TestRowBufferReducesByKey(t *testing.T) {
	b := newRowBuffer()
	pushKey(&b, opInsert, "a", false) // 0: superseded by 2, which becomes its insert
	pushKey(&b, opInsert, "b", false) // 1: deleted by 3
	pushKey(&b, opUpdate, "a", false) // 2
	pushKey(&b, opDelete, "b", false) // 3: stays before 4
	pushKey(&b, opInsert, "b", false) // 4
	pushKey(&b, opUpdate, "c", false) // 5
	want := []struct {
		op   op
		dead bool
	}{{opInsert, true}, {opInsert, true}, {opInsert, false}, {opDelete, false}, {opInsert, false}, {opUpdate, false}}
	for i, w := range want {
		if e := b.entries[i]; e.op != w.op || e.dead != w.dead {
			t.Errorf("entry %d: op %d dead %v, want op %d dead %v", i, e.op, e.dead, w.op, w.dead)
		}
	}
	b.clear(0)
	if len(b.entries) != 0 || len(b.keys) != 0 {
		t.Fatalf("clear left %d entries, %d keys", len(b.entries), len(b.keys))
	}
}

// TestRowBufferHashCollision: keys that hash alike are told apart by their bytes along the
// chain of entries of that hash.
func TestRowBufferHashCollision(t *testing.T) {
	b := newRowBuffer()
	pushKey(&b, opUpsert, "x", true) // 0
	pushKey(&b, opUpsert, "y", true) // 1
	pushKey(&b, opUpsert, "z", true) // 2
	// as if all three hashed alike: 2 -> 1 -> 0
	b.entries[2].sameHash, b.entries[1].sameHash = 1, 0
	for _, tc := range []struct {
		key  string
		want int32
	}{{"x", 0}, {"y", 1}, {"z", 2}, {"w", -1}} {
		key := binary.BigEndian.AppendUint32(nil, uint32(len(tc.key))) // as key encodes it
		if got := b.find(2, append(key, tc.key...), []int{0}); got != tc.want {
			t.Errorf("find %q = %d, want %d", tc.key, got, tc.want)
		}
	}
	// find's key may be the scratch the entries' keys are cut into
	if got := b.find(2, b.key(b.entries[0], []int{0}), []int{0}); got != 0 {
		t.Errorf("find of a key in the scratch = %d, want 0", got)
	}
}
