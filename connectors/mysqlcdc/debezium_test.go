package mysqlcdc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
)

// dbzRecord is a Debezium record of the format's value column, parsed.
type dbzRecord struct {
	Schema *struct {
		Name   string `json:"name"`
		Fields []struct {
			Field  string `json:"field"`
			Fields []struct {
				Field string `json:"field"`
				Type  string `json:"type"`
				Name  string `json:"name"`
			} `json:"fields"`
		} `json:"fields"`
	} `json:"schema"`
	Payload json.RawMessage `json:"payload"`
}

type dbzEnvelope struct {
	Before map[string]any `json:"before"`
	After  map[string]any `json:"after"`
	Op     string         `json:"op"`
	Source struct {
		Connector string `json:"connector"`
		Name      string `json:"name"`
		DB        string `json:"db"`
		Table     string `json:"table"`
		Snapshot  string `json:"snapshot"`
		File      string `json:"file"`
		Pos       int64  `json:"pos"`
	} `json:"source"`
}

func parseJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
}

// format = compatible_debezium_json: the snapshot's rows and the log's changes are each one
// row of topic, key and value, the key and value Kafka Connect records with their schemas,
// the value Debezium's envelope with the values in Debezium's encoding.
func TestCompatibleDebeziumJSON(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(10,2), flag TINYINT(1), d DATE,
		dt DATETIME(6), ts TIMESTAMP(3) NULL, e ENUM('x','y'), j JSON, bin VARBINARY(4), big BIGINT UNSIGNED)`,
		`INSERT INTO t VALUES (1, 'a "quoted"\nname', 12.50, 1, '1970-01-11', '1970-01-01 00:00:01.000002', '2020-07-17 18:00:22.123', 'y', '{"k": [1]}', 0x0102, 18446744073709551615)`)
	src := mustSource(t, db.conf("t", "format = compatible_debezium_json"), connector.Streaming)
	if cols := src.Tables()[0].Columns; len(cols) != 3 || cols[0].Name != "topic" || cols[1].Name != "key" || cols[2].Name != "value" {
		t.Fatalf("the format's table: %+v", cols)
	}
	h := newHarness(t, src, 1, nil, nil)
	h.Until("the snapshot", time.Minute, func() bool { return len(h.Rows) == 1 })
	r := h.Rows[0]
	if r.Table != db.name+".t" || r.Fields[0].Str() != "mysql_binlog_source."+db.name+".t" {
		t.Fatalf("table %s, topic %s", r.Table, r.Fields[0].Str())
	}
	var key dbzRecord
	parseJSON(t, r.Fields[1].Str(), &key)
	if string(key.Payload) != `{"id":1}` || key.Schema == nil || key.Schema.Name != "mysql_binlog_source."+db.name+".t.Key" {
		t.Fatalf("key %s", r.Fields[1].Str())
	}
	var rec dbzRecord
	parseJSON(t, r.Fields[2].Str(), &rec)
	var env dbzEnvelope
	parseJSON(t, string(rec.Payload), &env)
	want := map[string]any{"id": 1.0, "name": "a \"quoted\"\nname", "price": 12.5, "flag": 1.0, "d": 10.0, "dt": 1000002.0,
		"ts": "2020-07-17T18:00:22.123Z", "e": "y", "j": `{"k": [1]}`, "bin": "AQI=", "big": 18446744073709551615.0}
	if env.Op != "r" || env.Before != nil || !reflect.DeepEqual(env.After, want) || env.Source.Snapshot != "true" ||
		env.Source.Connector != "mysql" || env.Source.DB != db.name || env.Source.Table != "t" {
		t.Fatalf("snapshot record %+v\nwant after %v", env, want)
	}
	// the schema describes the payload: a field for each column, Debezium's logical types
	after := rec.Schema.Fields[1]
	types := map[string]string{}
	for _, f := range after.Fields {
		types[f.Field] = f.Type + " " + f.Name
	}
	wantTypes := map[string]string{"id": "int32 ", "name": "string ", "price": "bytes org.apache.kafka.connect.data.Decimal",
		"flag": "int16 ", "d": "int32 io.debezium.time.Date", "dt": "int64 io.debezium.time.MicroTimestamp",
		"ts": "string io.debezium.time.ZonedTimestamp", "e": "string io.debezium.data.Enum", "j": "string ", /* MariaDB's JSON is a LONGTEXT */
		"bin": "bytes ", "big": "bytes org.apache.kafka.connect.data.Decimal"}
	if after.Field != "after" || !reflect.DeepEqual(types, wantTypes) || rec.Schema.Name != "mysql_binlog_source."+db.name+".t.Envelope" {
		t.Fatalf("schema of after: %s %v", after.Field, types)
	}

	h.Rows = nil
	db.exec(t, "INSERT INTO t (id, name) VALUES (2, 'b')", "UPDATE t SET name = 'c' WHERE id = 2", "DELETE FROM t WHERE id = 1")
	h.Until("the changes", time.Minute, func() bool { return len(h.Rows) >= 3 })
	var ops []string
	for _, r := range h.Rows {
		parseJSON(t, r.Fields[2].Str(), &rec)
		env = dbzEnvelope{}
		parseJSON(t, string(rec.Payload), &env)
		var b, a any
		if env.Before != nil {
			b = env.Before["name"]
		}
		if env.After != nil {
			a = env.After["name"]
		}
		if env.Source.File == "" || env.Source.Pos == 0 || env.Source.Snapshot != "false" {
			t.Fatalf("the source block of a change: %+v", env.Source)
		}
		ops = append(ops, env.Op+" "+toText(b)+" "+toText(a))
	}
	if w := []string{"c null b", "u b c", "d a \"quoted\"\nname null"}; !reflect.DeepEqual(ops, w) {
		t.Fatalf("changes %q, want %q", ops, w)
	}
}

func toText(v any) string {
	if v == nil {
		return "null"
	}
	return v.(string)
}

// Without the converters' schemas the records are the bare payloads; the topic's prefix is
// debezium.database.server.name.
func TestCompatibleDebeziumJSONWithoutSchemas(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "CREATE TABLE nokey (v INT)", "INSERT INTO t VALUES (1, 2)", "INSERT INTO nokey VALUES (3)")
	src := mustSource(t, db.conf("t, nokey", `format = compatible_debezium_json
debezium {
  key.converter.schemas.enable = false
  value.converter.schemas.enable = false
  database.server.name = "srv"
}`), connector.Streaming)
	h := newHarness(t, src, 1, nil, nil)
	h.Until("the snapshot", time.Minute, func() bool { return len(h.Rows) == 2 })
	got := map[string]string{}
	for _, r := range h.Rows {
		got[r.Fields[0].Str()] = r.Fields[1].String()
		var env dbzEnvelope
		parseJSON(t, r.Fields[2].Str(), &env)
		if env.Op != "r" || env.Source.Name != "srv" || strings.Contains(r.Fields[2].Str(), `"schema"`) {
			t.Fatalf("value %s", r.Fields[2].Str())
		}
	}
	if want := map[string]string{"srv." + db.name + ".t": `{"id":1}`, "srv." + db.name + ".nokey": "null"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("topics and keys %v, want %v", got, want)
	}
}
