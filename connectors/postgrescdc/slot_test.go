package postgrescdc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// A transaction left prepared stops the creation of every logical slot on the server until
// it ends. The source's error names it and says how to end it, instead of a bare timeout.
func TestSlotWaitNamesPreparedTransaction(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, tableT)
	gid := db.slot + "_left_prepared"
	db.exec(t, "BEGIN; INSERT INTO t VALUES (1, 'a', 1); PREPARE TRANSACTION '"+gid+"'")
	t.Cleanup(func() { _, _ = db.conn.Exec(context.Background(), "ROLLBACK PREPARED '"+gid+"'") })

	defer func(d time.Duration) { slotWaitReport = d }(slotWaitReport)
	slotWaitReport = 500 * time.Millisecond
	src := mustSource(t, db.options([]string{"t"}, ""), connector.Streaming, 1)
	en, err := src.CreateEnumerator(conntest.NewEnumContext(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := en.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	err = en.Run(ctx)
	if err == nil {
		t.Fatal("the slot was created while a transaction was left prepared")
	}
	for _, want := range []string{"create replication slot " + db.slot, "prepared transaction '" + gid + "'", "ROLLBACK PREPARED"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
