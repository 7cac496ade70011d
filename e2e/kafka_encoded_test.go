package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A Kafka → Kafka job in the json format writes a record that is already in the sink's form
// as it was read, and any other the way it writes rows from their fields: the output is the
// same record for record whichever way each one went, and a record that does not parse is
// still skipped as format_error_handle_way says. With a key from the fields, or a transform
// between source and sink, every record goes by its fields, to the same output.
func TestKafkaRecordsPassAsRead(t *testing.T) {
	addr, adm := kafkaBroker(t)
	in := kafkaTopic(t, adm, "e2e_encoded_in", 1)
	cases := []struct{ in, out string }{
		{`{"id":1,"name":"a","score":1.5,"ok":true}`, ""},
		{`{"id":2,"name":"ünï ✓","score":-0.001,"ok":false}`, ""},
		{`{"id":3,"name":null,"score":null,"ok":null}`, ""},
		{`{"id":4,"name":"b","score":100.0,"ok":true}`, ""},
		{`{"id": 5, "name": "c", "score": 2.5, "ok": true}`, `{"id":5,"name":"c","score":2.5,"ok":true}`},
		{`{"name":"d","id":6,"ok":false,"score":3.25}`, `{"id":6,"name":"d","score":3.25,"ok":false}`},
		{`{"id":7,"name":"e","score":4.5,"ok":true,"extra":[1,2]}`, `{"id":7,"name":"e","score":4.5,"ok":true}`},
		{`{"id":8,"name":"f"}`, `{"id":8,"name":"f","score":null,"ok":null}`},
		{`{"id":"9","name":"g","score":"5","ok":true}`, `{"id":9,"name":"g","score":5.0,"ok":true}`},
		{`{"id":10,"name":"h\u0041\n","score":6.50,"ok":true}`, `{"id":10,"name":"hA\n","score":6.5,"ok":true}`},
		{`{"id":11,"name":"i","score":1e3,"ok":true}`, `{"id":11,"name":"i","score":1000.0,"ok":true}`},
		{`not json`, "-"}, // skipped
		{`{"id":12,"name":"j","score":7.75,"ok":true}`, ""},
	}
	prod, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	var want []string
	for _, c := range cases {
		if err := prod.ProduceSync(context.Background(), &kgo.Record{Topic: in, Value: []byte(c.in)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		switch c.out {
		case "":
			want = append(want, c.in)
		case "-":
		default:
			want = append(want, c.out)
		}
	}
	job := func(out, sinkExtra string, transform bool) string {
		input, tr := "src", ""
		if transform {
			input, tr = "t", `transform { Sql { plugin_input = "src", plugin_output = "t", query = "select * from src" } }`
		}
		return writeJob(t, fmt.Sprintf(`
env { job.mode = BATCH, parallelism = 1 }
source { Kafka { plugin_output = "src", bootstrap.servers = %q, topic = %q, start_mode = earliest,
  format_error_handle_way = skip, schema = { fields { id = bigint, name = string, score = double, ok = boolean } } } }
%[5]s
sink { Kafka { plugin_input = %[6]q, bootstrap.servers = %[1]q, topic = %[3]q, semantics = AT_LEAST_ONCE %[4]s } }`,
			addr, in, out, sinkExtra, tr, input))
	}
	for _, c := range []struct {
		name, extra string
		transform   bool
		encoded     bool
	}{
		{"as read", "", false, true},
		{"from fields (a key from the fields)", ", partition_key_fields = [id]", false, false},
		{"from fields (a transform between)", "", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := kafkaTopic(t, adm, "e2e_encoded_out", 1)
			code, log := run(t, "run", "-v", job(out, c.extra, c.transform)) // -v: the engine's log says how records pass
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, log)
			}
			if got := strings.Contains(log, "records pass to the sink as they were read"); got != c.encoded {
				t.Fatalf("records passed as read: %v, want %v\n%s", got, c.encoded, log)
			}
			got := committedValues(t, addr, adm, out)
			if len(got) != len(want) {
				t.Fatalf("%d records written, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("record %d: %s, want %s", i, got[i], want[i])
				}
			}
		})
	}
}
