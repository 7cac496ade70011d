package kafka

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// fixtureRows decodes every line of one of SeaTunnel's fixture files into rows.
func fixtureRows(t *testing.T, format, file string) []row.Row {
	t.Helper()
	dec := mustDecoder(t, format, productsType)
	f, err := os.Open(filepath.Join("testdata", "seatunnel", file))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	defer f.Close()
	var out []row.Row
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := row.NewBatch(16)
		if _, err := dec.decode(sc.Bytes(), "products", b); err != nil {
			t.Fatalf("%s:%d: %v", file, line, err)
		}
		for i := range b.Rows {
			out = append(out, b.Rows[i].Clone())
		}
		b.Release()
	}
	return out
}

// KafkaFormatIT's Kafka → Kafka jobs: the canal and maxwell changes SeaTunnel's fixtures hold
// are written as the records the test expects in the sink topic, in order.
func TestCDCSinkWritesSeaTunnelsRecords(t *testing.T) {
	canal := []string{
		`{"data":{"id":1101,"name":"scooter","description":"Small 2-wheel scooter","weight":"3.14"},"type":"INSERT"}`,
		`{"data":{"id":1102,"name":"car battery","description":"12V car battery","weight":"8.1"},"type":"INSERT"}`,
		`{"data":{"id":1103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":"0.8"},"type":"INSERT"}`,
		`{"data":{"id":1104,"name":"hammer","description":"12oz carpenter's hammer","weight":"0.75"},"type":"INSERT"}`,
		`{"data":{"id":1105,"name":"hammer","description":"14oz carpenter's hammer","weight":"0.875"},"type":"INSERT"}`,
		`{"data":{"id":1106,"name":"hammer","description":"16oz carpenter's hammer","weight":"1.0"},"type":"INSERT"}`,
		`{"data":{"id":1107,"name":"rocks","description":"box of assorted rocks","weight":"5.3"},"type":"INSERT"}`,
		`{"data":{"id":1108,"name":"jacket","description":"water resistent black wind breaker","weight":"0.1"},"type":"INSERT"}`,
		`{"data":{"id":1109,"name":"spare tire","description":"24 inch spare tire","weight":"22.2"},"type":"INSERT"}`,
		`{"data":{"id":1101,"name":"scooter","description":"Small 2-wheel scooter","weight":"3.14"},"type":"DELETE"}`,
		`{"data":{"id":1101,"name":"scooter","description":"Small 2-wheel scooter","weight":"4.56"},"type":"INSERT"}`,
		`{"data":{"id":1107,"name":"rocks","description":"box of assorted rocks","weight":"5.3"},"type":"DELETE"}`,
		`{"data":{"id":1107,"name":"rocks","description":"box of assorted rocks","weight":"7.88"},"type":"INSERT"}`,
		`{"data":{"id":1109,"name":"spare tire","description":"24 inch spare tire","weight":"22.2"},"type":"DELETE"}`,
	}
	maxwell := make([]string, len(canal))
	for i, c := range canal {
		maxwell[i] = strings.ReplaceAll(c, `"id":11`, `"id":1`)
	}
	for _, c := range []struct {
		format, file string
		want         []string
	}{
		{"canal_json", "canal/canal_data.txt", canal},
		{"maxwell_json", "maxwell/maxwell_data.txt", maxwell},
	} {
		t.Run(c.format, func(t *testing.T) {
			enc := mustEncoder(t, c.format, productsType)
			var got []string
			for _, r := range fixtureRows(t, c.format, c.file) {
				b, err := enc.encode(nil, r.Kind, r.Fields)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(b))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("wrote\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// Every change format reads back what it writes: inserts and updates' after images as
// inserts, deletes and before images as deletes, the fields unchanged.
func TestCDCSinkRoundTrip(t *testing.T) {
	kinds := []row.Kind{row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete}
	for _, format := range []string{"canal_json", "debezium_json", "maxwell_json", "ogg_json"} {
		t.Run(format, func(t *testing.T) {
			enc := mustEncoder(t, format, productsType)
			dec := mustDecoder(t, format, productsType)
			b := row.NewBatch(8)
			defer b.Release()
			for i, k := range kinds {
				fields := []row.Value{row.IntValue(int32(i)), row.StringValue(fmt.Sprintf("n\"%d", i)), row.NullValue(), row.StringValue("1.5")}
				rec, err := enc.encode(nil, k, fields)
				if err != nil {
					t.Fatal(err)
				}
				if n, err := dec.decode(rec, "t", b); err != nil || n != 1 {
					t.Fatalf("%s record %s: %d rows, %v", k, rec, n, err)
				}
				got := b.Rows[len(b.Rows)-1]
				want := row.Insert
				if !inserts(k) {
					want = row.Delete
				}
				if got.Kind != want || !row.Equal(row.RowValue(got.Fields), row.RowValue(fields)) {
					t.Fatalf("%s written as %s read back as %s %v", k, rec, got.Kind, got.Fields)
				}
			}
		})
	}
}

// compatible_kafka_connect_json reads the payload of Kafka Connect's records (SeaTunnel's
// fixture), an object or an array of rows; without value_converter_schema_enabled the schema
// may be missing, with it a record without one is refused.
func TestKafkaConnectJSON(t *testing.T) {
	rows := fixtureRows(t, formatKafkaConnect, "compatible/compatible_data.txt")
	var got []string
	for _, r := range rows {
		if r.Kind != row.Insert {
			t.Fatalf("a %s row", r.Kind)
		}
		got = append(got, rowText(r))
	}
	if want := "15 test test 20;16 test-001 test 30;18 sdc sdc sdc"; strings.Join(got, ";") != want {
		t.Fatalf("rows %q, want %q", strings.Join(got, ";"), want)
	}
	bare := []byte(`{"payload":[{"id":1,"name":"a"},{"id":2,"name":"b"}]}`)
	b := row.NewBatch(4)
	defer b.Release()
	if _, err := (&connectDecoder{rt: productsType, envelope: true}).decode(bare, "t", b); err == nil {
		t.Fatal("a record without its schema read with value_converter_schema_enabled")
	}
	if n, err := (&connectDecoder{rt: productsType}).decode(bare, "t", b); err != nil || n != 2 {
		t.Fatalf("payload array: %d rows, %v", n, err)
	}
	if _, err := newDecoder(formatCompatibleDebezium, ",", productsType, false); err == nil {
		t.Fatal("the source reads compatible_debezium_json, which SeaTunnel writes only")
	}
}

// compatible_debezium_json writes the rows of a CDC source that keeps Debezium's records: the
// value field as the value, the key field as the key (none when null), to the row's topic.
func TestSinkCompatibleDebeziumJSON(t *testing.T) {
	addr := testBroker(t)
	topic := newTopic(t, addr, 1)
	in := catalog.FromRowType(catalog.TablePath{Table: "cdc"}, &types.RowType{
		Names: []string{"topic", "key", "value"},
		Types: []types.DataType{types.Of(types.String), types.Of(types.String), types.Of(types.String)},
	})
	f, _, _ := connector.LookupSink("Kafka")
	s, err := f(&connector.SinkContext{Context: context.Background(), Job: connector.Job{ID: 7, Mode: connector.Batch},
		Options: conntest.Options(t, fmt.Sprintf("bootstrap.servers = %q\ntopic = ignored\nformat = compatible_debezium_json", addr), "sink[0] Kafka"),
		Inputs:  []*catalog.Table{in}})
	if err != nil {
		t.Fatal(err)
	}
	w := mustWriter(t, s, 0, 1, nil)
	b := row.NewBatch(2)
	for i, key := range []row.Value{row.StringValue(`{"id":1}`), row.NullValue()} {
		r := b.Add(row.Insert, in.ID(), 3)
		r.Fields[0], r.Fields[1], r.Fields[2] = row.StringValue(topic), key, row.StringValue(fmt.Sprintf(`{"op":"c","n":%d}`, i))
	}
	write(t, w, b)
	if _, err := w.PrepareCommit(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := consumeAll(t, addr, topic, false)
	if len(got) != 2 || got[0].Key != `{"id":1}` || got[0].Value != `{"op":"c","n":0}` || got[1].Key != "" || got[1].Value != `{"op":"c","n":1}` {
		t.Fatalf("records %+v", got)
	}
	bad := catalog.FromRowType(catalog.TablePath{Table: "x"}, &types.RowType{Names: []string{"topic"}, Types: []types.DataType{types.Of(types.String)}})
	if _, err := f(&connector.SinkContext{Context: context.Background(), Job: connector.Job{ID: 7},
		Options: conntest.Options(t, fmt.Sprintf("bootstrap.servers = %q\ntopic = t\nformat = compatible_debezium_json", addr), "sink[0] Kafka"),
		Inputs:  []*catalog.Table{bad}}); err == nil || !strings.Contains(err.Error(), "no key") {
		t.Fatalf("an input without key and value: %v", err)
	}
}
