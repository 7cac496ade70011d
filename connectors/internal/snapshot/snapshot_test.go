package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgtest"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/row"
)

// fixture is a test schema with table t (id bigint, s text) of n rows, and a reader whose
// connections use that schema.
type fixture struct {
	db    *pgtest.DB
	cols  []pgwire.Column
	conns int // connections the reader opened
}

func newFixture(t *testing.T, n int) *fixture {
	db := pgtest.New(t, "snapshot_", 40, nil)
	ctx := context.Background()
	if _, err := db.Conn.Exec(ctx, fmt.Sprintf(`CREATE TABLE t (id bigint PRIMARY KEY, s text);
		INSERT INTO t SELECT i, 'row ' || i FROM generate_series(1, %d) i`, n)); err != nil {
		t.Fatal(err)
	}
	fields, err := pgwire.DescribeSQL(ctx, db.Conn, "SELECT id, s FROM t")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db}
	for _, fd := range fields {
		f.cols = append(f.cols, pgwire.ColumnOf(fd, pgwire.TypeOptions{}))
	}
	return f
}

// reader is a reader of the fixture's schema with the splits queued, closed when the test
// ends.
func (f *fixture) reader(t *testing.T, splits ...Split) *Reader {
	r := &Reader{Where: "source[0] Test", Connect: func(ctx context.Context) (*pgx.Conn, error) {
		f.conns++
		cfg := f.db.Config.Copy()
		cfg.RuntimeParams["search_path"] = f.db.Schema
		return pgx.ConnectConfig(ctx, cfg)
	}}
	t.Cleanup(r.Close)
	for _, sp := range splits {
		r.Add(sp)
	}
	return r
}

// newBatch is a batch of size rows and a decoder that reads into it.
func newBatch(size int) (*row.Batch, *pgwire.Decoder) {
	out := row.NewBatch(size)
	return out, &pgwire.Decoder{Batch: out}
}

func (f *fixture) split(id, where string) Split {
	return Split{Split: connector.Split{ID: id}, Table: "db.public.t", SQL: "SELECT id, s FROM t WHERE " + where + " ORDER BY id", Cols: f.cols}
}

func ids(splits []connector.Split) string {
	var out []string
	for _, s := range splits {
		out = append(out, s.ID)
	}
	return strings.Join(out, ",")
}

// readAll reads every queued split in batches of size rows, checking the unfinished splits
// after each batch.
func readAll(t *testing.T, r *Reader, size int, check func(batch int, unfinished string)) []row.Row {
	t.Helper()
	var got []row.Row
	for batch := 0; r.Busy(); batch++ {
		out, dec := newBatch(size)
		if err := r.Read(context.Background(), out, dec); err != nil {
			t.Fatal(err)
		}
		for i := range out.Rows {
			got = append(got, out.Rows[i].Clone())
		}
		if check != nil {
			check(batch, ids(r.Unfinished(nil)))
		}
	}
	return got
}

// Splits are read in order, each in as many batches as it takes, on one connection; the
// unfinished splits are the one being read and those queued.
func TestReadSplits(t *testing.T) {
	f := newFixture(t, 25)
	r := f.reader(t, f.split("t-0", "id <= 10"), f.split("t-1", "id > 10 AND id <= 12"), f.split("t-2", "id > 12"))
	if got := ids(r.Unfinished(nil)); got != "t-0,t-1,t-2" {
		t.Fatalf("before reading: %s", got)
	}
	var states []string
	rows := readAll(t, r, 4, func(_ int, unfinished string) { states = append(states, unfinished) })
	if len(rows) != 25 {
		t.Fatalf("%d rows, want 25", len(rows))
	}
	for i, rw := range rows {
		if rw.Kind != row.Insert || rw.Table != "db.public.t" || rw.Fields[0].I != int64(i+1) || rw.Fields[1].S != fmt.Sprintf("row %d", i+1) {
			t.Fatalf("row %d = %+v", i, rw)
		}
	}
	// batches of 4: t-0 (10 rows) ends in the third, which t-1's two rows fill, t-1 ends
	// (its result has no more rows) in the fourth
	want := "t-0,t-1,t-2|t-0,t-1,t-2|t-1,t-2|t-2|t-2|t-2|"
	if got := strings.Join(states, "|"); got != want {
		t.Errorf("unfinished after each batch %s, want %s", got, want)
	}
	if f.conns != 1 {
		t.Errorf("%d connections, want 1", f.conns)
	}
	if r.Busy() {
		t.Error("busy after every split was read")
	}
}

// A split whose query fails ends the reader with an error naming the plugin, the table and
// the split, and it stays unfinished.
func TestReadErrors(t *testing.T) {
	f := newFixture(t, 3)
	r := f.reader(t, f.split("t-0", "id <= 1"), Split{Split: connector.Split{ID: "t-1"}, Table: "db.public.t", SQL: "SELECT id, s FROM nope", Cols: f.cols})
	out, dec := newBatch(10)
	err := r.Read(context.Background(), out, dec)
	if err == nil || !strings.Contains(err.Error(), "source[0] Test: table db.public.t: split t-1: ") || !strings.Contains(err.Error(), `"nope" does not exist`) {
		t.Fatalf("error %v", err)
	}
	if out.Len() != 1 || ids(r.Unfinished(nil)) != "t-1" || r.pg != nil {
		t.Errorf("after the error: %d rows, unfinished %s, connection %v", out.Len(), ids(r.Unfinished(nil)), r.pg)
	}

	// a table whose columns changed since the columns were read
	r2 := f.reader(t, Split{Split: connector.Split{ID: "t-2"}, Table: "db.public.t", SQL: "SELECT id::int AS id, s FROM t", Cols: f.cols})
	if err := r2.Read(context.Background(), out, dec); err == nil || !strings.Contains(err.Error(), `split t-2: column "id" changed since the job started`) {
		t.Errorf("changed columns: %v", err)
	}
}

// A context done before the next split starts is returned as it is, and the reader goes on
// where it was once called again with a live one.
func TestReadCancelled(t *testing.T) {
	f := newFixture(t, 5)
	r := f.reader(t, f.split("t-0", "id <= 2"), f.split("t-1", "id > 2"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, dec := newBatch(10)
	if err := r.Read(ctx, out, dec); !errors.Is(err, context.Canceled) || err != ctx.Err() {
		t.Fatalf("cancelled: %v", err)
	}
	if out.Len() != 0 || ids(r.Unfinished(nil)) != "t-0,t-1" || f.conns != 0 {
		t.Fatalf("after the cancel: %d rows, unfinished %s, %d connections", out.Len(), ids(r.Unfinished(nil)), f.conns)
	}
	if rows := readAll(t, r, 10, nil); len(rows) != 5 {
		t.Errorf("%d rows after the cancel, want 5", len(rows))
	}
}
