package kafka

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// productsType is the table of SeaTunnel's CDC format tests (KafkaFormatIT).
var productsType = &types.RowType{
	Names: []string{"id", "name", "description", "weight"},
	Types: []types.DataType{types.Of(types.Int), types.Of(types.String), types.Of(types.String), types.Of(types.String)},
}

// applyChanges decodes every line of a file and applies the changes to a table keyed by
// id, as a sink with a primary key does; it returns the table's rows by id and the kinds seen.
func applyChanges(t *testing.T, format, file string) ([]string, map[row.Kind]int) {
	t.Helper()
	table, kinds := map[int64]string{}, map[row.Kind]int{}
	for i, r := range fixtureRows(t, format, file) {
		kinds[r.Kind]++
		id := r.Fields[0].I
		switch r.Kind {
		case row.Insert, row.UpdateAfter:
			table[id] = rowText(r)
		case row.Delete, row.UpdateBefore:
			if table[id] != rowText(r) {
				t.Fatalf("%s: change %d: %s of %q, the table holds %q", file, i+1, r.Kind, rowText(r), table[id])
			}
			delete(table, id)
		}
	}
	var out []string
	for _, v := range table {
		out = append(out, v)
	}
	sort.Strings(out)
	return out, kinds
}

func products(rows ...string) []string {
	sort.Strings(rows)
	return rows
}

// SeaTunnel's canal, maxwell and ogg fixtures decode to the changes whose result its Java
// test checks in the sink table; every before image matches the row it replaces.
func TestCDCFormats(t *testing.T) {
	for _, c := range []struct {
		format, file string
		want         []string
		updates      bool
	}{
		{"canal_json", "canal/canal_data.txt", products(
			"1101 scooter Small 2-wheel scooter 4.56", "1102 car battery 12V car battery 8.1",
			"1103 12-pack drill bits 12-pack of drill bits with sizes ranging from #40 to #3 0.8",
			"1104 hammer 12oz carpenter's hammer 0.75", "1105 hammer 14oz carpenter's hammer 0.875",
			"1106 hammer 16oz carpenter's hammer 1.0", "1107 rocks box of assorted rocks 7.88",
			"1108 jacket water resistent black wind breaker 0.1"), true},
		{"maxwell_json", "maxwell/maxwell_data.txt", products(
			"101 scooter Small 2-wheel scooter 4.56", "102 car battery 12V car battery 8.1",
			"103 12-pack drill bits 12-pack of drill bits with sizes ranging from #40 to #3 0.8",
			"104 hammer 12oz carpenter's hammer 0.75", "105 hammer 14oz carpenter's hammer 0.875",
			"106 hammer 16oz carpenter's hammer 1.0", "107 rocks box of assorted rocks 7.88",
			"108 jacket water resistent black wind breaker 0.1"), true},
		{"ogg_json", "ogg/ogg_data.txt", products(
			"101 scooter Small 2-wheel scooter 3.140000104904175", "102 car battery 12V car battery 8.100000381469727",
			"103 12-pack drill bits 12-pack of drill bits with sizes ranging from #40 to #3 0.800000011920929",
			"104 hammer 12oz carpenter's hammer 0.75", "105 hammer 14oz carpenter's hammer 0.875",
			"106 hammer 18oz carpenter hammer 1", "107 rocks box of assorted rocks 5.099999904632568",
			"108 jacket water resistent black wind breaker 0.10000000149011612",
			"109 spare tire 24 inch spare tire 22.200000762939453", "110 jacket new water resistent white wind breaker 0.5"), true},
	} {
		t.Run(c.format, func(t *testing.T) {
			got, kinds := applyChanges(t, c.format, c.file)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("table\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if c.updates && (kinds[row.UpdateBefore] == 0 || kinds[row.UpdateBefore] != kinds[row.UpdateAfter]) {
				t.Fatalf("kinds %v: want updates as before and after images", kinds)
			}
		})
	}
}

// Debezium's envelope, with and without the schema Kafka Connect adds: c and r insert, u
// updates, d deletes, and a tombstone gives nothing.
func TestDebeziumFormat(t *testing.T) {
	dec := mustDecoder(t, "debezium_json", productsType)
	row1 := `{"id":1,"name":"a","description":"d","weight":"1.5"}`
	row2 := `{"id":1,"name":"b","description":"d","weight":"2.5"}`
	for _, c := range []struct {
		in   string
		want string
	}{
		{fmt.Sprintf(`{"before":null,"after":%s,"op":"c"}`, row1), "INSERT 1 a d 1.5"},
		{fmt.Sprintf(`{"schema":{"type":"struct"},"payload":{"before":null,"after":%s,"op":"r"}}`, row1), "INSERT 1 a d 1.5"},
		{fmt.Sprintf(`{"before":%s,"after":%s,"op":"u"}`, row1, row2), "UPDATE_BEFORE 1 a d 1.5;UPDATE_AFTER 1 b d 2.5"},
		{fmt.Sprintf(`{"before":%s,"after":null,"op":"d"}`, row2), "DELETE 1 b d 2.5"},
		{`{"schema":{"type":"struct"},"payload":null}`, ""},
	} {
		b := row.NewBatch(4)
		if _, err := dec.decode([]byte(c.in), "products", b); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		var got []string
		for _, r := range b.Rows {
			got = append(got, r.Kind.String()+" "+rowText(r))
		}
		if strings.Join(got, ";") != c.want {
			t.Errorf("%s:\n  %s\nwant %s", c.in, strings.Join(got, ";"), c.want)
		}
		b.Release()
	}
	b := row.NewBatch(4)
	if _, err := dec.decode([]byte(`{"before":null,"after":null,"op":"x"}`), "products", b); err == nil {
		t.Error("an unknown op decoded")
	}
}

// mustDecoder is the decoder of format for rt, separated by commas where the format is
// delimited; an error fails the test.
func mustDecoder(t testing.TB, format string, rt *types.RowType) decoder {
	t.Helper()
	dec, err := newDecoder(format, ",", rt, false)
	if err != nil {
		t.Fatal(err)
	}
	return dec
}

// mustEncoder is the encoder of format for rt, separated by commas where the format is
// delimited; an error fails the test.
func mustEncoder(t testing.TB, format string, rt *types.RowType) encoder {
	t.Helper()
	enc, err := newEncoder(format, ",", rt)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}
