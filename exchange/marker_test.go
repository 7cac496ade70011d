package exchange

import (
	"context"
	"testing"
	"time"
)

// A marker's data arrives with it, after the batch sent before it: a schema change rides
// the exchange so.
func TestMarkerData(t *testing.T) {
	_, q, snd := openLink(t, 4, nil)
	ctx := context.Background()
	b := seqBatch(0, 0, 3, "x")
	defer b.Release()
	payload := []byte(`{"table":"shop.products"}`)
	for _, step := range []func() error{
		func() error { return snd.Send(ctx, b) },
		func() error { return snd.Mark(ctx, Marker{Kind: "schema-change", Data: payload}) },
		func() error { return snd.Mark(ctx, Marker{ID: 4, Kind: "barrier"}) },
		func() error { return snd.Close(ctx) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if r := q.next(t, 10*time.Second); r.m.Batch == nil || r.m.Batch.Len() != 3 {
		t.Fatalf("first %+v, want the batch", r.m)
	} else {
		r.m.Batch.Release()
	}
	if r := q.next(t, 10*time.Second); r.m.Marker == nil || r.m.Marker.Kind != "schema-change" || string(r.m.Marker.Data) != string(payload) {
		t.Fatalf("second %+v, want the schema change with its data", r.m)
	}
	if r := q.next(t, 10*time.Second); r.m.Marker == nil || r.m.Marker.ID != 4 || r.m.Marker.Data != nil {
		t.Fatalf("third %+v, want the barrier without data", r.m)
	}
	if r := q.next(t, 10*time.Second); !r.m.End {
		t.Fatalf("fourth %+v, want End", r.m)
	}
}
