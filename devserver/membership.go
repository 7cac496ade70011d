package devserver

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // the driver Temporal's SQLite store uses
)

// forgetDeadMembers deletes from a SQLite state file the cluster membership of an earlier
// server process that no longer runs (a kill leaves its rows, which live for two days).
// Left there, they are the seeds a restarted server's membership ring starts from: it
// waits for the dead hosts to be found faulty, and routes requests to them meanwhile, so
// workflow tasks stall for most of a minute after a restart. A member that still answers
// on its address is kept.
func forgetDeadMembers(ctx context.Context, file string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: file}).EscapedPath()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT host_id, rpc_address, rpc_port FROM cluster_membership")
	if err != nil {
		return fmt.Errorf("read cluster membership: %w", err)
	}
	type member struct {
		id   []byte
		addr string
	}
	var dead []member
	for rows.Next() {
		var m member
		var host string
		var port int
		if err := rows.Scan(&m.id, &host, &port); err != nil {
			rows.Close()
			return fmt.Errorf("read cluster membership: %w", err)
		}
		m.addr = net.JoinHostPort(host, strconv.Itoa(port))
		if !answers(m.addr) {
			dead = append(dead, m)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, m := range dead {
		if _, err := db.ExecContext(ctx, "DELETE FROM cluster_membership WHERE host_id = ?", m.id); err != nil {
			return fmt.Errorf("forget member %s: %w", m.addr, err)
		}
	}
	return nil
}

// answers reports whether something accepts connections at addr.
func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
