package mysqlcdc

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/mytest"
)

// logEnd reads the end of the test server's log, where the next transaction goes.
func (d *testDB) logEnd(t testing.TB) (string, uint32) {
	t.Helper()
	return mytest.LogEnd(t, d.DB.DB)
}

// With stop.mode specific the log is read from the start offset to the stop offset: the
// transactions between them are emitted, the one after is not, and the source ends.
func TestStopModeSpecific(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE s (id INT PRIMARY KEY, v VARCHAR(10))")
	file, from := db.logEnd(t)
	db.exec(t, "INSERT INTO s VALUES (1, 'a'), (2, 'b')", "UPDATE s SET v = 'c' WHERE id = 2")
	stopFile, stop := db.logEnd(t)
	db.exec(t, "INSERT INTO s VALUES (3, 'after')")
	src := mustSource(t, db.conf("s", fmt.Sprintf(`startup.mode = specific
startup.specific-offset.file = %q
startup.specific-offset.pos = %d
stop.mode = specific
stop.specific-offset.file = %q
stop.specific-offset.pos = %d`, file, from, stopFile, stop)), connector.Streaming)
	if src.Boundedness() != connector.Bounded {
		t.Fatal("a source with a stop is not bounded")
	}
	h := newHarness(t, src, 2, nil, nil)
	h.Until("the stop", time.Minute, h.AllDone)
	wantRows(t, "rows", h.Rows, []string{"+I 1,a", "+I 2,b", "-U 2,b", "+U 2,c"})
}

// With stop.mode latest a STREAMING job reads the snapshot and the log as far as it reached
// when the job started, then ends; a restore of a checkpoint taken on the way stops at the
// same place.
func TestStopModeLatest(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE s (id INT PRIMARY KEY)", "INSERT INTO s VALUES (1), (2), (3)")
	src := mustSource(t, db.conf("s", "stop.mode = latest"), connector.Streaming)
	h := newHarness(t, src, 1, nil, nil)
	h.Until("the snapshot", time.Minute, func() bool { return len(h.Rows) == 3 })
	es, rs := h.Checkpoint(1)
	h.Until("the stop", time.Minute, h.AllDone)
	if got := strings.Join(show(h.Rows), " "); got != "+I 1 +I 2 +I 3" {
		t.Fatalf("rows %s", got)
	}
	h.Close()
	db.exec(t, "INSERT INTO s VALUES (4)") // after the stop
	again := newHarness(t, mustSource(t, db.conf("s", "stop.mode = latest"), connector.Streaming), 1, es, rs)
	again.Until("the stop after a restore", time.Minute, again.AllDone)
	if len(again.Rows) != 0 {
		t.Fatalf("the restored source read past its stop: %v", show(again.Rows))
	}
}

func TestStopOptions(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE ok (id INT PRIMARY KEY)")
	for _, tt := range []struct{ extra, want string }{
		{"stop.mode = specific", "stop.specific-offset.file"},
		{"stop.mode = specific\nstop.specific-offset.file = binlog.000001\nstop.specific-offset.pos = 1", "at least 4"},
		{"stop.mode = timestamp", "stop.mode"},
	} {
		t.Run(tt.extra, func(t *testing.T) {
			_, err := newTestSource(t, db.conf("ok", tt.extra), connector.Streaming)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %q", err, tt.want)
			}
		})
	}
	if src := mustSource(t, db.conf("ok", ""), connector.Streaming); src.Boundedness() != connector.Unbounded {
		t.Fatal("stop.mode never is not unbounded")
	}
}

func TestServerIDRanges(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []uint32 // the ids of readers 0, 1 and 2
		err  bool
	}{
		{in: "5652", want: []uint32{5652, 5652, 5652}},
		{in: "5652-5660", want: []uint32{5652, 5653, 5654}},
		{in: " 10 - 11 ", want: []uint32{10, 11, 11}},
		{in: "5660-5652", err: true},
		{in: "0", err: true},
		{in: "x-y", err: true},
		{in: "1-", err: true},
	} {
		r, err := parseServerID(tt.in)
		if (err != nil) != tt.err {
			t.Fatalf("%q: error %v", tt.in, err)
		}
		if err == nil {
			if got := []uint32{r.of(0), r.of(1), r.of(2)}; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%q: ids %v, want %v", tt.in, got, tt.want)
			}
		}
	}
	if r, err := parseServerID(""); err != nil || r.lo != r.hi || r.lo < 5400 || r.lo > 6400 {
		t.Fatalf("the default id %v (%v)", r, err)
	}
}

// A range of server ids holds one for each reader, as SeaTunnel requires.
func TestServerIDRangeTooSmall(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE ok (id INT PRIMARY KEY)")
	root := db.conf("ok", `server-id = "5652-5653"`)
	_, err := newTestSourceP(t, root, connector.Streaming, 3)
	if err == nil || !strings.Contains(err.Error(), "server-id") || !strings.Contains(err.Error(), "parallelism 3") {
		t.Fatalf("got %v", err)
	}
	if _, err := newTestSourceP(t, root, connector.Streaming, 2); err != nil {
		t.Fatal(err)
	}
}

func TestSmallDecimal(t *testing.T) {
	for _, tt := range []struct {
		in    string
		scale int
		want  int64
		ok    bool
	}{
		{"123.45", 2, 12345, true},
		{"-0.01", 2, -1, true},
		{"42", 0, 42, true},
		{"999999999999999999", 0, 999999999999999999, true},
		{"1000000000000000000", 0, 0, false}, // 19 digits
		{"1.5", 2, 0, false},                 // another scale: rescaled the slow way
		{"1.2.3", 1, 0, false},
		{"", 0, 0, false},
		{"-", 0, 0, false},
		{"1e3", 0, 0, false},
	} {
		got, ok := smallDecimal([]byte(tt.in), tt.scale)
		if got != tt.want || ok != tt.ok {
			t.Errorf("smallDecimal(%q, %d) = %d, %v; want %d, %v", tt.in, tt.scale, got, ok, tt.want, tt.ok)
		}
	}
}

// With startup.mode timestamp the log is read from its first file, and the transactions
// written before startup.timestamp are skipped.
func TestStartupTimestamp(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE s (id INT PRIMARY KEY)", "INSERT INTO s VALUES (1)")
	var before int64
	if err := db.QueryRow("SELECT UNIX_TIMESTAMP()").Scan(&before); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for now := before; now <= before; {
		if time.Now().After(deadline) {
			t.Fatal("the server's clock did not pass a second")
		}
		if err := db.QueryRow("SELECT UNIX_TIMESTAMP()").Scan(&now); err != nil {
			t.Fatal(err)
		}
	}
	db.exec(t, "INSERT INTO s VALUES (2)")
	file, end := db.logEnd(t)
	src := mustSource(t, db.conf("s", fmt.Sprintf(`startup.mode = timestamp
startup.timestamp = %d
stop.mode = specific
stop.specific-offset.file = %q
stop.specific-offset.pos = %d`, (before+1)*1000, file, end)), connector.Streaming)
	h := newHarness(t, src, 1, nil, nil)
	h.Until("the stop", 2*time.Minute, h.AllDone)
	if got := strings.Join(show(h.Rows), " "); got != "+I 2" {
		t.Fatalf("rows %q, want only the insert after the timestamp", got)
	}
}
