package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestPostgresCDCToJdbc runs a STREAMING job Postgres-CDC → Jdbc on a dev server: the
// snapshot of a table, then inserts, updates (one of the key) and deletes made while the
// job runs, written by key until the sink table equals the source table. The job is then
// canceled and its replication slot dropped.
func TestPostgresCDCToJdbc(t *testing.T) {
	conn := postgres(t)
	ctx := context.Background()
	n := time.Now().UnixNano() % 1_000_000_000
	schema := fmt.Sprintf("cdc_e2e_%d", n)
	slot := fmt.Sprintf("strait_e2e_%d", n)
	if _, err := conn.Exec(ctx, fmt.Sprintf(`CREATE SCHEMA %[1]s;
CREATE TABLE %[1]s.src (id int PRIMARY KEY, name text, score int);
ALTER TABLE %[1]s.src REPLICA IDENTITY FULL;
INSERT INTO %[1]s.src SELECT g, 'n' || g, g FROM generate_series(1, 20) g;
CREATE TABLE %[1]s.sink (id int PRIMARY KEY, name text, score int);`, schema)); err != nil {
		t.Fatal(err)
	}
	dropCDCWhenDone(t, conn, slot, schema)

	addr := startDev(t)
	job := writeJob(t, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 2000
}
source {
  Postgres-CDC {
    plugin_output = "cdc"
    base-url = "jdbc:postgresql://postgresql:5432/test?loggerLevel=OFF"
    username = "test"
    password = "test"
    database-names = ["test"]
    schema-names = ["%[1]s"]
    table-names = ["test.%[1]s.src"]
    slot.name = "%[2]s"
    decoding.plugin.name = "decoderbufs"
  }
}
sink {
  jdbc {
    plugin_input = "cdc"
    url = "jdbc:postgresql://postgresql:5432/test?loggerLevel=OFF"
    driver = "org.postgresql.Driver"
    user = "test"
    password = "test"
    generate_sink_sql = true
    database = test
    table = %[1]s.sink
    primary_keys = ["id"]
  }
}`, schema, slot))
	id := submit(t, addr, job)
	src := "SELECT id, name, score FROM " + schema + ".src ORDER BY id"
	sink := "SELECT id, name, score FROM " + schema + ".sink ORDER BY id"
	same := func() bool { return tableRows(t, conn, src) == tableRows(t, conn, sink) }
	eventually(t, 30*time.Second, "the snapshot written", same)
	for _, sql := range []string{
		"INSERT INTO %s.src VALUES (21, 'new', 21), (22, 'new', 22)",
		"UPDATE %s.src SET score = -1 WHERE id <= 5",
		"DELETE FROM %s.src WHERE id IN (7, 21)",
		"UPDATE %s.src SET id = 100 WHERE id = 10",
		"UPDATE %s.src SET name = NULL WHERE id = 100",
	} {
		if _, err := conn.Exec(ctx, fmt.Sprintf(sql, schema)); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 30*time.Second, "the changes written", same)
	if got := tableRows(t, conn, sink); got == "" {
		t.Fatal("empty sink")
	}
	if code, out := run(t, "job", "cancel", "--address", addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, out)
	}
}
