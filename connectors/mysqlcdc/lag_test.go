package mysqlcdc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
)

func TestLogLagArithmetic(t *testing.T) {
	files := []logFile{{"mysql-bin.000007", 1000}, {"mysql-bin.000008", 500}, {"mysql-bin.000009", 200}}
	for _, c := range []struct {
		read  position
		files []logFile
		want  int64
		known bool
	}{
		{position{}, files, 0, false},
		{position{File: "mysql-bin.000007", Pos: 400}, nil, 0, false},
		{position{File: "mysql-bin.000007", Pos: 400}, files, 600 + 500 + 200, true},
		{position{File: "mysql-bin.000009", Pos: 200}, files, 0, true},
		{position{File: "mysql-bin.000009", Pos: 150}, files, 50, true},
		// a file purged since the reader's position: only what is still listed counts
		{position{File: "mysql-bin.000005", Pos: 4}, files, 1700, true},
	} {
		var l logLag
		l.files = c.files
		l.setRead(c.read)
		if n, known := l.behind(); n != c.want || known != c.known {
			t.Errorf("read %v: behind %d, %v; want %d, %v", c.read, n, known, c.want, c.known)
		}
	}
}

// TestBytesBehind: once the reader reads the log, it tells how much of it it has yet to
// read: at least a large transaction written and not yet read (other writers of the server
// only add to it).
func TestBytesBehind(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE lag (id INT PRIMARY KEY, pad VARCHAR(200))")
	src := mustSource(t, db.conf("lag", ""), connector.Streaming)
	h := newHarness(t, src, 1, nil, nil)
	rd := h.Readers[0].(*reader)
	if _, known := rd.BytesBehind(); known {
		t.Fatal("lag known before the log was read")
	}
	h.Until("the lag known", 30*time.Second, func() bool { _, known := rd.BytesBehind(); return known })
	var b strings.Builder
	b.WriteString("INSERT INTO lag VALUES ")
	const rows = 10000
	for i := 1; i <= rows; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d, '%s')", i, strings.Repeat("x", 200))
	}
	db.exec(t, b.String())
	// 10,000 rows of over 200 bytes: more than 2 MB of log the reader has not read (it is
	// not polled meanwhile; the watcher lists the server's files every few seconds)
	deadline := time.Now().Add(30 * time.Second)
	for n, _ := rd.BytesBehind(); n <= 2_000_000; n, _ = rd.BytesBehind() {
		if time.Now().After(deadline) {
			t.Fatalf("behind %d bytes after a transaction of over 2 MB nobody read", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	h.Batch = 4096
	h.Until("the transaction read", time.Minute, func() bool { return len(h.Rows) >= rows })
}
