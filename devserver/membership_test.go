//go:build !noembed

package devserver

import (
	"database/sql"
	"net/url"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the driver Temporal's SQLite store uses
)

// The services find each other by static hosts: the server joins no membership ring, so
// its state file holds no members (a ring upserts its heartbeat there as it starts, and a
// killed server's rows were what a restarted one waited on).
func TestServicesJoinNoRing(t *testing.T) {
	file := filepath.Join(t.TempDir(), "temporal.db")
	for start := range 2 { // a new file, then the same file again
		s, err := Start(Options{DBFile: file})
		if err != nil {
			t.Fatalf("start %d: %v", start, err)
		}
		db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: file}).EscapedPath()+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		var members int
		err = db.QueryRow("SELECT count(*) FROM cluster_membership").Scan(&members)
		db.Close()
		if err != nil {
			t.Fatalf("start %d: read cluster membership: %v", start, err)
		}
		if members != 0 {
			t.Errorf("start %d: %d cluster members in the state file, want none", start, members)
		}
		if err := s.Stop(); err != nil {
			t.Fatalf("stop %d: %v", start, err)
		}
	}
}
