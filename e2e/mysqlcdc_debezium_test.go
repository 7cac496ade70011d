package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestMySQLCDCDebeziumToKafka runs SeaTunnel's documented use of format
// compatible_debezium_json: a STREAMING MySQL-CDC job in that format → a Kafka sink in that
// format. The topic <database.server.name>.<database>.<table> receives Debezium's records:
// the snapshot's rows (op r), then an insert, an update and a delete (c, u, d), each with
// the row's key.
func TestMySQLCDCDebeziumToKafka(t *testing.T) {
	broker, adm := kafkaBroker(t)
	n := time.Now().UnixNano() % 1_000_000_000
	db := newMySQLDatabase(t, sharedMariaDB(t), fmt.Sprintf("cdc_dbz_%d", n))
	db.exec(t, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
	server := fmt.Sprintf("strait_%d", n)
	topic := server + "." + db.name + ".t"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if resp, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil || resp.Err != nil {
		t.Fatalf("create topic %s: %v %v", topic, err, resp.Err)
	}
	t.Cleanup(func() { _, _ = adm.DeleteTopics(context.Background(), topic) })

	addr := startDev(t)
	id := submit(t, addr, writeJob(t, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 1000
}
source {
  MySQL-CDC {
    plugin_output = "table1"
    base-url = %q
    username = "test"
    password = "test"
    "startup.mode" = INITIAL
    table-names = ["%s.t"]
    format = compatible_debezium_json
    debezium = {
      key.converter.schemas.enable = false
      value.converter.schemas.enable = false
      include.schema.changes = true
      database.server.name = %q
    }
  }
}
sink {
  Kafka {
    plugin_input = "table1"
    bootstrap.servers = %q
    topic = "unused" # required by SeaTunnel's Kafka sink, which writes each record to its topic field then
    format = compatible_debezium_json
  }
}`, db.jdbcURL(), db.name, server, broker)))
	t.Cleanup(func() { _, _ = run(t, "job", "cancel", "--address", addr, id) })

	records := func() []string { return committedValues(t, broker, adm, topic) }
	eventually(t, 60*time.Second, "the snapshot's records", func() bool { return len(records()) >= 2 })
	db.exec(t, "INSERT INTO t VALUES (3, 'c')", "UPDATE t SET name = 'bb' WHERE id = 2", "DELETE FROM t WHERE id = 1")
	var got []string
	eventually(t, 60*time.Second, "the changes' records", func() bool { got = records(); return len(got) >= 5 })
	var ops []string
	for _, v := range got {
		var env struct {
			Before, After map[string]any
			Op            string
		}
		if err := json.Unmarshal([]byte(v), &env); err != nil {
			t.Fatalf("record %s: %v", v, err)
		}
		ops = append(ops, fmt.Sprintf("%s %v %v", env.Op, env.Before["name"], env.After["name"]))
	}
	want := []string{"r <nil> a", "r <nil> b", "c <nil> c", "u b bb", "d a <nil>"}
	if !reflect.DeepEqual(ops, want) {
		t.Fatalf("records %q, want %q\n%v", ops, want, got)
	}
}
