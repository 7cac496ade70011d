package jdbc

import (
	"bytes"
	"math"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/row"
)

// TestAppendScalarAsPgx: every value appendScalar encodes itself, of each column type it
// knows, it encodes as pgx does, and pgx accepts it.
func TestAppendScalarAsPgx(t *testing.T) {
	tm := pgtype.NewMap()
	ints := []int64{0, 1, -1, 127, -128, 32767, -32768, 32768, -32769, math.MaxInt32, math.MinInt32,
		math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64}
	var values []row.Value
	for _, i := range ints {
		values = append(values, row.BigIntValue(i), row.TimestampValue(i), row.TimestampValue(i*1_000_003))
	}
	values = append(values, row.IntValue(-7), row.SmallIntValue(12), row.TinyIntValue(-3),
		row.DoubleValue(0), row.DoubleValue(math.Copysign(0, -1)), row.DoubleValue(1.5), row.DoubleValue(math.Inf(1)),
		row.DoubleValue(math.NaN()), row.DoubleValue(-1e300), row.FloatValue(0.1), row.BoolValue(true), row.BoolValue(false),
		row.StringValue(""), row.StringValue("a string, ünïcode"), row.TimestampValue(1_700_000_000_123_456_789),
		row.TimestampValue(-1), row.TimestampValue(-999), row.TimestampValue(-1000), row.TimestampValue(-1001))
	oids := []uint32{pgtype.Int8OID, pgtype.Int4OID, pgtype.Int2OID, pgtype.Float8OID, pgtype.BoolOID, pgtype.TextOID,
		pgtype.VarcharOID, pgtype.TimestamptzOID, pgtype.TimestampOID}
	fast := 0
	for _, oid := range oids {
		for i := range values {
			v := &values[i]
			got, ok := appendScalar(oid, v, []byte{9})
			want, err := tm.Encode(oid, pgtype.BinaryFormatCode, cell{v}, []byte{9})
			switch {
			case ok && err != nil:
				t.Errorf("oid %d, %s %v: encoded, pgx refuses it: %v", oid, v.T, *v, err)
			case ok && !bytes.Equal(got, want):
				t.Errorf("oid %d, %s %v: % x, pgx % x", oid, v.T, *v, got, want)
			case !ok && len(got) != 1:
				t.Errorf("oid %d, %s %v: not encoded, yet appended to", oid, v.T, *v)
			}
			if ok {
				fast++
			}
		}
	}
	if fast < 60 {
		t.Fatalf("only %d values encoded without pgx", fast)
	}
}
