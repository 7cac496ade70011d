package devserver

import (
	"context"
	"database/sql"
	"net"
	"path/filepath"
	"testing"

	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"

	"github.com/strait-dev/strait/internal/freeport"
)

// A state file keeps the membership of a server that was killed; a restart forgets the
// members that no longer answer and keeps one that does.
func TestForgetDeadMembers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "temporal.db")
	cfg := &config.SQL{PluginName: sqliteplugin.PluginName, DatabaseName: file,
		ConnectAttributes: map[string]string{"mode": "rwc", "_journal_mode": "WAL"}}
	if err := sqliteschema.SetupSchema(cfg); err != nil {
		t.Fatal(err)
	}
	live, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	deadPort, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, port := range []int{deadPort, live.Addr().(*net.TCPAddr).Port} {
		id := make([]byte, 16)
		id[0] = byte(i + 1)
		if _, err := db.Exec("INSERT INTO cluster_membership (membership_partition, host_id, rpc_address, rpc_port, role) VALUES (0, ?, '127.0.0.1', ?, 1)", id, port); err != nil {
			t.Fatal(err)
		}
	}
	if err := forgetDeadMembers(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	var ports []int
	rows, err := db.Query("SELECT rpc_port FROM cluster_membership")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		ports = append(ports, p)
	}
	rows.Close()
	if len(ports) != 1 || ports[0] != live.Addr().(*net.TCPAddr).Port {
		t.Fatalf("members left: ports %v, want only the live %d", ports, live.Addr().(*net.TCPAddr).Port)
	}
}
