package kafka

import (
	"encoding/base64"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Debezium writes some values in numeric forms of its own: dates as days since the epoch,
// times and timestamps as counts of milli-, micro- or nanoseconds (io.debezium.time.*, Kafka
// Connect's Date/Time/Timestamp), decimals as the base64 bytes of their unscaled value, bits
// as base64 bytes. SeaTunnel's debezium_json reads them by the declared type: a date from
// epoch days, a time from microseconds of the day, a timestamp from epoch milliseconds in UTC,
// a decimal from a number or from such bytes, an integer from a number (a text that is no
// number, Bits' bytes, reads as 0). When a record carries its schema, the logical type named
// there picks the unit instead (a MicroTimestamp is read in microseconds).

// debeziumUnits are the units of Debezium's and Kafka Connect's numeric temporal types, in
// nanoseconds.
var debeziumUnits = map[string]int64{
	"io.debezium.time.Timestamp":              int64(time.Millisecond),
	"io.debezium.time.MicroTimestamp":         int64(time.Microsecond),
	"io.debezium.time.NanoTimestamp":          1,
	"org.apache.kafka.connect.data.Timestamp": int64(time.Millisecond),
	"io.debezium.time.Time":                   int64(time.Millisecond),
	"io.debezium.time.MicroTime":              int64(time.Microsecond),
	"io.debezium.time.NanoTime":               1,
	"org.apache.kafka.connect.data.Time":      int64(time.Millisecond),
	"io.debezium.time.Date":                   int64(24 * time.Hour),
	"org.apache.kafka.connect.data.Date":      int64(24 * time.Hour),
}

// debeziumLogical reads the logical type names of the row fields from a record's schema (the
// struct of its before or after field): name by field, nil without a schema.
func debeziumLogical(schema *hocon.Value, into map[string]string) map[string]string {
	clear(into)
	if schema == nil {
		return into
	}
	for _, f := range elems(schema.Get("fields")) {
		if k := text(f.Get("field")); k != "after" && k != "before" {
			continue
		}
		for _, c := range elems(f.Get("fields")) {
			if name := text(c.Get("name")); name != "" {
				into[text(c.Get("field"))] = name
			}
		}
		break
	}
	return into
}

// debeziumValue converts v of type t in Debezium's forms; ok is false when the general
// conversion applies (the value is in no form of Debezium's own).
func debeziumValue(v *hocon.Value, t types.DataType, logical string) (out row.Value, ok bool) {
	if v == nil || v.Kind == hocon.Null {
		return row.Value{}, false
	}
	switch t.Kind {
	case types.Date, types.Time, types.Timestamp:
		if v.Kind != hocon.Number {
			if t.Kind == types.Timestamp && v.Kind == hocon.String {
				return zonedTimestamp(v.Str)
			}
			return row.Value{}, false
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.Str), 10, 64)
		if err != nil {
			return row.Value{}, false
		}
		unit, known := debeziumUnits[logical]
		switch t.Kind {
		case types.Date:
			if known && unit != int64(24*time.Hour) {
				// a timestamp's count into a date: its day
				return row.DateValue(civil.FloorDiv(n*unit, int64(24*time.Hour))), true
			}
			return row.DateValue(n), true
		case types.Time:
			if !known {
				unit = int64(time.Microsecond) // SeaTunnel: microseconds of the day
			}
			return row.TimeValue(n * unit), true
		default:
			if !known {
				unit = int64(time.Millisecond) // SeaTunnel: epoch milliseconds, UTC
			}
			if n > math.MaxInt64/unit || n < math.MinInt64/unit {
				return row.Value{}, false
			}
			return row.TimestampValue(n * unit), true
		}
	case types.Decimal:
		if v.Kind != hocon.String {
			return row.Value{}, false
		}
		if _, err := literal.ParseDecimal(v.Str, t.Precision, t.Scale); err == nil {
			return row.Value{}, false // a decimal written as text
		}
		b, err := base64.StdEncoding.DecodeString(v.Str)
		if err != nil || len(b) == 0 {
			return row.Value{}, false
		}
		unscaled := new(big.Int).SetBytes(b)
		if b[0]&0x80 != 0 { // two's complement
			unscaled.Sub(unscaled, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		return scaled(unscaled, t)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		if v.Kind != hocon.String {
			return row.Value{}, false
		}
		if _, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64); err == nil {
			return row.Value{}, false // a number written as text: the general way reads it
		}
		return row.Value{T: t.Kind, I: 0}, true // bytes (Bits) or text: 0, as SeaTunnel reads them
	}
	return row.Value{}, false
}

// scaled is the decimal of an unscaled value at the type's scale.
func scaled(unscaled *big.Int, t types.DataType) (row.Value, bool) {
	s := unscaled.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if t.Scale > 0 {
		if len(s) <= t.Scale {
			s = strings.Repeat("0", t.Scale-len(s)+1) + s
		}
		s = s[:len(s)-t.Scale] + "." + s[len(s)-t.Scale:]
	}
	if neg {
		s = "-" + s
	}
	d, err := literal.ParseDecimal(s, t.Precision, t.Scale)
	if err != nil {
		return row.Value{}, false
	}
	return d, true
}

// zonedTimestamp reads Debezium's ZonedTimestamp (ISO 8601 with an offset, 2023-04-27T03:08:40Z)
// as the local date and time in UTC, as SeaTunnel reads it.
func zonedTimestamp(s string) (row.Value, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, "Z") && !hasOffset(s) {
		return row.Value{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return row.Value{}, false
	}
	t = t.UTC()
	return row.TimestampValue(time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC).UnixNano()), true
}

// hasOffset reports whether an ISO date-time ends with a zone offset (+01:00, -05:30).
func hasOffset(s string) bool {
	if len(s) < 6 || strings.IndexByte(s, 'T') < 0 {
		return false
	}
	o := s[len(s)-6:]
	return (o[0] == '+' || o[0] == '-') && o[3] == ':'
}
