package binlog

import "testing"

// FuzzDecode decodes arbitrary events after a format description and a table map of every
// column type: it must fail cleanly, never panic, whatever the bytes.
func FuzzDecode(f *testing.F) {
	f.Add(rawEvent(WriteRowsV2, 400, writeRowsBody(true, 6), true)[headerLen:], byte(WriteRowsV2))
	f.Add(updateRowsBody(), byte(UpdateRowsV2))
	f.Add(tableMapBody(6), byte(TableMapEvent))
	f.Add([]byte{0, 0, 0, 0}, byte(MariaGTIDListEvent))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0}, byte(PreviousGTIDsEvent))
	f.Fuzz(func(t *testing.T, body []byte, typ byte) {
		d := NewDecoder()
		if _, err := d.Decode(rawEvent(FormatDescriptionEvent, 256, fdeBody(false, 6), false)); err != nil {
			t.Fatal(err)
		}
		if _, err := d.Decode(rawEvent(TableMapEvent, 300, everyTypeMap(), false)); err != nil {
			t.Fatal(err)
		}
		ev, err := d.Decode(rawEvent(EventType(typ), 400, body, false))
		if err != nil {
			return
		}
		if rows, ok := ev.Data.(*Rows); ok {
			a, b := make([]Value, rows.Columns), make([]Value, rows.Columns)
			for rows.More() {
				if err := rows.Next(a, b); err != nil {
					return
				}
			}
		}
	})
}

// everyTypeMap is a table map (id 42) with a column of each type and its metadata.
func everyTypeMap() []byte {
	cols := []struct {
		t    byte
		meta []byte
	}{
		{TypeTiny, nil}, {TypeShort, nil}, {TypeInt24, nil}, {TypeLong, nil}, {TypeLongLong, nil},
		{TypeFloat, []byte{4}}, {TypeDouble, []byte{8}}, {TypeNewDecimal, []byte{30, 10}}, {TypeYear, nil},
		{TypeDate, nil}, {TypeTime, nil}, {TypeDatetime, nil}, {TypeTimestamp, nil},
		{TypeTimestamp2, []byte{3}}, {TypeDatetime2, []byte{6}}, {TypeTime2, []byte{2}}, {TypeTime2, []byte{5}},
		{TypeBit, []byte{3, 2}}, {TypeString, []byte{TypeEnum, 2}}, {TypeString, []byte{TypeSet, 8}},
		{TypeString, []byte{TypeString, 40}}, {TypeString, []byte{0xEE, 0x90}}, {TypeVarchar, []byte{0, 4}},
		{TypeBlob, []byte{2}}, {TypeGeometry, []byte{4}}, {TypeJSON, []byte{4}}, {TypeNull, nil},
	}
	b := []byte{42, 0, 0, 0, 0, 0, 1, 0, 4}
	b = append(append(b, "test"...), 0, 1)
	b = append(append(b, "t"...), 0, byte(len(cols)))
	var meta []byte
	for _, c := range cols {
		b = append(b, c.t)
		meta = append(meta, c.meta...)
	}
	b = append(append(b, byte(len(meta))), meta...)
	return append(b, 0xFF, 0xFF, 0xFF, 0xFF)
}

// FuzzJSON decodes arbitrary binary JSON: an error or text, never a panic.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"00020020001200010013000100050100021400616202000c000401000c0a000178", "0301000000150000000b0d000000000000000000f83f", "0c03616263"} {
		f.Add(unhex(f, s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var out []byte
		_ = appendJSON(&out, doc)
	})
}
