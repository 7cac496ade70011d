package postgrescdc

import (
	"context"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
)

// TestBytesBehind: the reader tells how much WAL it has yet to read: nothing once it caught
// up, some while a large transaction is read a row at a time, nothing again after it.
func TestBytesBehind(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT)
	src := mustSource(t, db.options([]string{"t"}, ""), connector.Streaming, 1)
	h := newHarness(t, src, 1, nil, nil)
	rd := h.Readers[0].(*reader)
	if _, known := rd.BytesBehind(); known {
		t.Fatal("lag known before the stream was read")
	}
	caughtUp := func() bool { n, known := rd.BytesBehind(); return known && n == 0 }
	h.Until("the reader reads the stream and is caught up", 30*time.Second, caughtUp)
	db.exec(t, `INSERT INTO t SELECT g, 'n' || g, g FROM generate_series(1, 20000) g`)
	h.Batch = 1
	h.Until("the reader is behind", 30*time.Second, func() bool { n, _ := rd.BytesBehind(); return n > 0 })
	h.Batch = 4096
	h.Until("the reader caught up again", 60*time.Second, caughtUp)
	if err := h.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
}
