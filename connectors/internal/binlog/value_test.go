package binlog

import (
	"encoding/hex"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeValue(t *testing.T) {
	tests := []struct {
		name string
		typ  byte
		meta uint16
		data string
		want string // as show formats it
		used int
	}{
		{"tinyint", TypeTiny, 0, "80", "-128", 1},
		{"smallint", TypeShort, 0, "ff7f", "32767", 2},
		{"mediumint negative", TypeInt24, 0, "000080", "-8388608", 3},
		{"int", TypeLong, 0, "ffffffff", "-1", 4},
		{"bigint", TypeLongLong, 0, "0100000000000000", "1", 8},
		{"float", TypeFloat, 4, "0000c03f", "1.5", 4},
		{"double", TypeDouble, 8, "000000000000f0bf", "-1", 8},
		{"year", TypeYear, 0, "7d", "2025", 1},
		{"zero year", TypeYear, 0, "00", "0", 1},
		{"decimal(10,2)", TypeNewDecimal, 10<<8 | 2, "80bc614e5b", "12345678.91", 5},
		{"negative decimal(10,2)", TypeNewDecimal, 10<<8 | 2, "7f439eb1a4", "-12345678.91", 5},
		// the examples of MySQL's decimal2bin
		{"decimal(14,4)", TypeNewDecimal, 14<<8 | 4, "810dfb38d204d2", "1234567890.1234", 7},
		{"negative decimal(14,4)", TypeNewDecimal, 14<<8 | 4, "7ef204c72dfb2d", "-1234567890.1234", 7},
		{"zero decimal(5,0)", TypeNewDecimal, 5 << 8, "800000", "0", 3},
		{"decimal(4,4)", TypeNewDecimal, 4<<8 | 4, "80ff", "0.0255", 2},
		{"date", TypeDate, 0, "3d6c0f", "1974-01-29 00:00:00.000000", 3},
		{"datetime2(6)", TypeDatetime2, 6, "99b2badb78 01e240", "2024-02-29 13:45:56.123456", 8},
		{"datetime2(0)", TypeDatetime2, 0, "99b2badb78", "2024-02-29 13:45:56.000000", 5},
		{"time2(0) at its maximum", TypeTime2, 0, "b46efb", "0000-00-00 838:59:59.000000", 3},
		{"negative time2(1)", TypeTime2, 1, "7ffffe ce", "-0000-00-00 00:00:01.500000", 4},
		{"timestamp2(3)", TypeTimestamp2, 3, "6553f100 04ce", "2023-11-14 22:13:20.123", 6},
		{"timestamp", TypeTimestamp, 0, "00f15365", "2023-11-14 22:13:20", 4},
		{"old datetime", TypeDatetime, 0, hexLE(20240229134556), "2024-02-29 13:45:56.000000", 8},
		{"old time", TypeTime, 0, "7f5602", "0000-00-00 15:32:15.000000", 3},
		{"bit(10)", TypeBit, 1<<8 | 2, "0201", "513", 2},
		{"bit(64)", TypeBit, 8 << 8, "ffffffffffffffff", "-1", 8},
		{"enum", TypeString, TypeEnum<<8 | 1, "02", "2", 1},
		{"set of 2 bytes", TypeString, TypeSet<<8 | 2, "0101", "257", 2},
		{"char", TypeString, TypeString<<8 | 20, "026162", "ab", 3},
		// CHAR(100) utf8mb4 holds up to 400 bytes: two bits of the length in the type byte
		{"long char", TypeString, 0xEE<<8 | 0x90, "0300616263", "abc", 5},
		{"varchar", TypeVarchar, 20, "0568656c6c6f", "hello", 6},
		{"long varchar", TypeVarchar, 1000, "03006162 63", "abc", 5},
		{"blob", TypeBlob, 2, "0200dead", "\xde\xad", 4},
		{"longblob", TypeBlob, 4, "01000000ff", "\xff", 5},
		{"geometry", TypeGeometry, 4, "0200000001ff", "\x01\xff", 6},
		{"json", TypeJSON, 4, "03000000 040100", "true", 7},
		{"empty json", TypeJSON, 4, "00000000", "null", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Value
			v.Type = tt.typ
			var scratch []byte
			used, err := decodeValue(&v, tt.typ, tt.meta, unhex(t, tt.data), &scratch)
			if err != nil {
				t.Fatal(err)
			}
			if got := show(v); got != tt.want || used != tt.used {
				t.Errorf("got %q (%d bytes), want %q (%d bytes)", got, used, tt.want, tt.used)
			}
		})
	}
}

func hexLE(n uint64) string {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(n >> (8 * i))
	}
	return hex.EncodeToString(b)
}

func TestDecodeValueErrors(t *testing.T) {
	tests := []struct {
		name string
		typ  byte
		meta uint16
		data string
		want string
	}{
		{"truncated int", TypeLong, 0, "0102", "truncated"},
		{"truncated varchar", TypeVarchar, 20, "05616263", "truncated"},
		{"decimal group out of range", TypeNewDecimal, 9 << 8, "bb9aca00", "bad value"},
		{"decimal precision", TypeNewDecimal, 70 << 8, "80", "bad value"},
		{"pre-5.0 decimal", TypeDecimal, 0, "00", "not supported"},
		{"bad json", TypeJSON, 1, "0199", "malformed binary JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Value
			var scratch []byte
			_, err := decodeValue(&v, tt.typ, tt.meta, unhex(t, tt.data), &scratch)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestUint(t *testing.T) {
	tests := []struct {
		typ  byte
		data string
		want uint64
	}{
		{TypeTiny, "ff", 255},
		{TypeShort, "ffff", 65535},
		{TypeInt24, "ffffff", 16777215},
		{TypeLong, "ffffffff", 4294967295},
		{TypeLongLong, "ffffffffffffffff", 18446744073709551615},
	}
	for _, tt := range tests {
		v := Value{Type: tt.typ}
		var scratch []byte
		if _, err := decodeValue(&v, tt.typ, 0, unhex(t, tt.data), &scratch); err != nil {
			t.Fatal(err)
		}
		if got := v.Uint(); got != tt.want {
			t.Errorf("%s %s: Uint() = %d, want %d", TypeName(tt.typ), tt.data, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"small object", "00 0200 2000 1200 0100 1300 0100 050100 021400 61 62 0200 0c00 040100 0c0a00 0178",
			`{"a": 1, "b": [true, "x"]}`},
		{"large array of a double", "03 01000000 15000000 0b0d000000 000000000000f83f", `[1.5]`},
		{"large array of an inlined int32", "03 01000000 0d000000 07feffffff", `[-2]`},
		{"uint64", "0a ffffffffffffffff", "18446744073709551615"},
		{"escaped string, a cut rune replaced", "0c 05 22 5c 0a 01 c3", `"\"\\\n\u0001` + "\ufffd\""},
		{"literals", "02 0300 0d00 040000 040100 040200", "[null, true, false]"},
		{"opaque decimal", "0f f6 09 0e04 810dfb38d204d2", "1234567890.1234"},
		{"opaque date", "0f 0a 08 " + hexLE(uint64(((2024*13+2)<<5|29)<<17)<<24), `"2024-02-29"`},
		{"opaque datetime", "0f 0c 08 " + hexLE(uint64(((2024*13+2)<<5|29)<<17|(13<<12|45<<6|56))<<24|5), `"2024-02-29 13:45:56.000005"`},
		{"opaque blob", "0f fc 02 ff00", `"base64:type252:/wA="`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out []byte
			if err := appendJSON(&out, unhex(t, tt.doc)); err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("got %s, want %s", out, tt.want)
			}
		})
	}
}

func TestJSONErrors(t *testing.T) {
	for _, doc := range []string{
		"00 0500 0400",                 // more entries than the size holds
		"02 0100 0700 0c2000",          // an offset past the end
		"0c 85",                        // a length that does not end
		"04 07",                        // no such literal
		"13",                           // no such type
		"0b 000000000000f07f",          // infinity
		"00 0100 0b00 ff000100 050100", // a key past the end
	} {
		var out []byte
		if err := appendJSON(&out, unhex(t, doc)); err == nil {
			t.Errorf("%s: decoded as %s, want an error", doc, out)
		}
	}
	// nesting deeper than the limit
	deep := strings.Repeat("02 0100 0700 020300 ", 200)
	var out []byte
	if err := appendJSON(&out, unhex(t, deep+"0200 0400")); err == nil {
		t.Error("nested 200 deep: want an error")
	}
}
