// Package kafkatest holds what the Kafka connector's tests and the end-to-end tests both
// use: the row SeaTunnel's Kafka test (KafkaIT) generates, as each of SeaTunnel's formats
// writes it, and the transactions a broker holds open.
package kafkatest

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
)

// RecordJSON is a record as SeaTunnel's json format writes the row KafkaIT generates.
func RecordJSON(id int) string {
	return fmt.Sprintf(`{"id":%d,"c_map":{"key":1},"c_array":[1],"c_string":"string","c_boolean":false,"c_tinyint":1,`+
		`"c_smallint":1,"c_int":1,"c_bigint":1,"c_float":1.1,"c_double":1.1,"c_decimal":1.1,"c_bytes":"dGVzdA==",`+
		`"c_date":"2024-01-01","c_timestamp":"2024-01-01T12:59:23"}`, id)
}

// RecordText is the same row as SeaTunnel's text format writes it with delimiter ",".
func RecordText(id int) string {
	return fmt.Sprintf("%d,key\x031,1,string,false,1,1,1,1,1.1,1.1,1.1,test,2024-01-01,2024-01-01 12:59:23", id)
}

// avroSchema is the schema SeaTunnel's avro format derives from KafkaIT's row type.
var avroSchema = avro.MustParse(`{"type":"record","name":"SeaTunnelRecord","fields":[
{"name":"id","type":"long"},{"name":"c_map","type":{"type":"map","values":"int"}},
{"name":"c_array","type":{"type":"array","items":"int"}},{"name":"c_string","type":"string"},
{"name":"c_boolean","type":"boolean"},{"name":"c_tinyint","type":"int"},{"name":"c_smallint","type":"int"},
{"name":"c_int","type":"int"},{"name":"c_bigint","type":"long"},{"name":"c_float","type":"float"},
{"name":"c_double","type":"double"},
{"name":"c_decimal","type":{"type":"bytes","logicalType":"decimal","precision":2,"scale":1}},
{"name":"c_bytes","type":"bytes"},{"name":"c_date","type":{"type":"int","logicalType":"date"}},
{"name":"c_timestamp","type":{"type":"long","logicalType":"local-timestamp-millis"}}]}`)

// javaAvro encodes as Java's GenericDatumWriter does: array and map blocks carry counts only.
var javaAvro = avro.Config{DisableBlockSizeHeader: true}.Freeze()

// RecordAvro is the same row as SeaTunnel's avro format writes it.
func RecordAvro(id int) string {
	at := time.Date(2024, 1, 1, 12, 59, 23, 0, time.UTC)
	b, err := javaAvro.Marshal(avroSchema, map[string]any{
		"id": int64(id), "c_map": map[string]any{"key": 1}, "c_array": []any{1}, "c_string": "string",
		"c_boolean": false, "c_tinyint": 1, "c_smallint": 1, "c_int": 1, "c_bigint": int64(1), "c_float": float32(1.1),
		"c_double": 1.1, "c_decimal": big.NewRat(11, 10), "c_bytes": []byte("test"), "c_date": at, "c_timestamp": at,
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// OpenTransactions lists the transactions whose ids start with prefix that the broker holds
// open.
func OpenTransactions(t testing.TB, adm *kadm.Client, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listed, err := adm.ListTransactions(ctx, nil, []string{"Ongoing"})
	if err != nil {
		t.Fatalf("list transactions: %v", err)
	}
	var out []string
	listed.Each(func(tx kadm.ListedTransaction) {
		if strings.HasPrefix(tx.TxnID, prefix) {
			out = append(out, tx.TxnID)
		}
	})
	return out
}
