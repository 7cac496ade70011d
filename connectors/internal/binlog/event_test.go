package binlog

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"
)

// rawEvent builds an event: the header, the body and, with crc, its CRC32.
func rawEvent(typ EventType, logPos uint32, body []byte, crc bool) []byte {
	size := headerLen + len(body)
	if crc {
		size += 4
	}
	b := binary.LittleEndian.AppendUint32(nil, 1700000000)
	b = append(b, byte(typ))
	b = binary.LittleEndian.AppendUint32(b, 7)
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = binary.LittleEndian.AppendUint32(b, logPos)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = append(b, body...)
	if crc {
		b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	}
	return b
}

// fdeBody is a FORMAT_DESCRIPTION body of a MariaDB 10.11 server; tableIDLen 4 makes the
// post-headers of table maps and rows events those of servers with 4-byte table ids.
func fdeBody(crc bool, tableIDLen int) []byte {
	b := binary.LittleEndian.AppendUint16(nil, 4)
	v := make([]byte, 50)
	copy(v, "10.11.14-MariaDB-log")
	b = append(b, v...)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, headerLen)
	post := make([]byte, 164)
	post[QueryEvent-1] = 13
	post[RotateEvent-1] = 8
	post[TableMapEvent-1] = byte(tableIDLen + 2)
	for _, t := range []EventType{WriteRowsV1, UpdateRowsV1, DeleteRowsV1} {
		post[t-1] = byte(tableIDLen + 2)
	}
	for _, t := range []EventType{WriteRowsV2, UpdateRowsV2, DeleteRowsV2} {
		post[t-1] = byte(tableIDLen + 4)
	}
	b = append(b, post...)
	if crc {
		return append(b, 1)
	}
	return append(b, 0)
}

// tableMapBody describes table test.t (id 42): INT, VARCHAR(20), DECIMAL(10,2), nullable
// but the first.
func tableMapBody(idLen int) []byte {
	b := make([]byte, idLen)
	b[0] = 42
	b = append(b, 1, 0) // flags
	b = append(b, 4)
	b = append(append(b, "test"...), 0)
	b = append(b, 1)
	b = append(append(b, "t"...), 0)
	b = append(b, 3, TypeLong, TypeVarchar, TypeNewDecimal)
	b = append(b, 4, 20, 0, 10, 2) // metadata: VARCHAR's length (2 bytes), DECIMAL's precision and scale
	b = append(b, 0b110)           // nullable
	// optional metadata: signedness (the INT and the DECIMAL are signed) and the names
	b = append(b, metaSignedness, 1, 0b00000000)
	names := []byte{}
	for _, n := range []string{"id", "name", "price"} {
		names = append(append(names, byte(len(n))), n...)
	}
	b = append(append(b, metaColumnName, byte(len(names))), names...)
	return b
}

// writeRowsBody inserts (1, 'ab', 12345678.91) and (2, NULL, NULL) into table 42.
func writeRowsBody(v2 bool, idLen int) []byte {
	b := make([]byte, idLen)
	b[0] = 42
	b = append(b, StmtEndFlag, 0)
	if v2 {
		b = append(b, 2, 0) // no extra data
	}
	b = append(b, 3, 0b111)
	b = append(b, 0b000)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, 2, 'a', 'b')
	b = append(b, 0x80, 0xbc, 0x61, 0x4e, 0x5b)
	b = append(b, 0b110)
	b = binary.LittleEndian.AppendUint32(b, 2)
	return b
}

// updateRowsBody updates (1, 'ab', NULL) to (1, 'c', NULL), the DECIMAL absent from the
// images (a minimal row image).
func updateRowsBody() []byte {
	b := []byte{42, 0, 0, 0, 0, 0, StmtEndFlag, 0, 2, 0}
	b = append(b, 3, 0b011, 0b011)
	b = append(b, 0b00)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, 2, 'a', 'b')
	b = append(b, 0b00)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, 1, 'c')
	return b
}

func decodeAll(t *testing.T, d *Decoder, events ...[]byte) []Event {
	t.Helper()
	var out []Event
	for _, raw := range events {
		ev, err := d.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func rowsOf(t *testing.T, r *Rows) [][]string {
	t.Helper()
	var out [][]string
	a, b := make([]Value, r.Columns), make([]Value, r.Columns)
	for r.More() {
		if err := r.Next(a, b); err != nil {
			t.Fatal(err)
		}
		imgs := [][]Value{a}
		if r.Kind == Updated {
			imgs = append(imgs, b)
		}
		for _, img := range imgs {
			var row []string
			for _, v := range img {
				row = append(row, show(v))
			}
			out = append(out, row)
		}
	}
	return out
}

func TestDecodeEvents(t *testing.T) {
	for _, tt := range []struct {
		name  string
		crc   bool
		idLen int
		v2    bool
	}{
		{"checksums, 6-byte table ids, v2 rows", true, 6, true},
		{"no checksums, 4-byte table ids, v1 rows", false, 4, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder()
			query := append([]byte{9, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0}, "test\x00BEGIN"...)
			rotate := append(binary.LittleEndian.AppendUint64(nil, 4), "binlog.000002"...)
			writeType := WriteRowsV1
			if tt.v2 {
				writeType = WriteRowsV2
			}
			evs := decodeAll(t, d,
				rawEvent(FormatDescriptionEvent, 256, fdeBody(tt.crc, tt.idLen), tt.crc),
				rawEvent(QueryEvent, 300, query, tt.crc),
				rawEvent(TableMapEvent, 350, tableMapBody(tt.idLen), tt.crc),
				rawEvent(writeType, 400, writeRowsBody(tt.v2, tt.idLen), tt.crc),
				rawEvent(XIDEvent, 431, binary.LittleEndian.AppendUint64(nil, 77), tt.crc),
				rawEvent(RotateEvent, 500, rotate, tt.crc),
			)
			fde := evs[0].Data.(*FormatDescription)
			if fde.Checksum != tt.crc || fde.ServerVersion != "10.11.14-MariaDB-log" || d.Format.Checksum != tt.crc {
				t.Errorf("format description: %+v", fde)
			}
			if q := evs[1].Data.(*Query); q.SQL != "BEGIN" || q.Schema != "test" || q.ThreadID != 9 {
				t.Errorf("query: %+v", q)
			}
			tm := evs[2].Data.(*TableMap)
			if tm.Schema != "test" || tm.Table != "t" || !reflect.DeepEqual(tm.Names, []string{"id", "name", "price"}) ||
				!reflect.DeepEqual(tm.Signed, []bool{true, false, true}) || tm.ColumnNullable(0) || !tm.ColumnNullable(1) {
				t.Errorf("table map: %+v", tm)
			}
			rows := evs[3].Data.(*Rows)
			if rows.Kind != Inserted || rows.Table != tm {
				t.Errorf("rows: %+v", rows)
			}
			want := [][]string{{"1", "ab", "12345678.91"}, {"2", "NULL", "NULL"}}
			if got := rowsOf(t, rows); !reflect.DeepEqual(got, want) {
				t.Errorf("rows: got %v, want %v", got, want)
			}
			if x := evs[4].Data.(*XID); x.XID != 77 || evs[4].LogPos != 431 {
				t.Errorf("xid: %+v at %d", x, evs[4].LogPos)
			}
			if r := evs[5].Data.(*Rotate); r.File != "binlog.000002" || r.Position != 4 {
				t.Errorf("rotate: %+v", r)
			}
		})
	}
}

func TestDecodeUpdateWithAbsentColumns(t *testing.T) {
	d := NewDecoder()
	evs := decodeAll(t, d,
		rawEvent(FormatDescriptionEvent, 256, fdeBody(true, 6), true),
		rawEvent(TableMapEvent, 350, tableMapBody(6), true),
		rawEvent(UpdateRowsV2, 400, updateRowsBody(), true))
	want := [][]string{{"1", "ab", "<absent>"}, {"1", "c", "<absent>"}}
	if got := rowsOf(t, evs[2].Data.(*Rows)); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDecodeGTIDEvents(t *testing.T) {
	d := NewDecoder()
	decodeAll(t, d, rawEvent(FormatDescriptionEvent, 256, fdeBody(true, 6), true))
	maria := binary.LittleEndian.AppendUint64(nil, 15)
	maria = binary.LittleEndian.AppendUint32(maria, 3)
	maria = append(maria, 1) // standalone
	list := binary.LittleEndian.AppendUint32(nil, 2)
	for _, g := range []MariaDBGTID{{0, 1, 15}, {3, 2, 9}} {
		list = binary.LittleEndian.AppendUint32(list, g.Domain)
		list = binary.LittleEndian.AppendUint32(list, g.Server)
		list = binary.LittleEndian.AppendUint64(list, g.Seq)
	}
	sid := unhex(t, "3e11fa4771ca11e19e33c80aa9429562")
	mysql := append(append([]byte{1}, sid...), binary.LittleEndian.AppendUint64(nil, 23)...)
	set, err := ParseGTIDSet("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,00000000-0000-0000-0000-000000000001:3")
	if err != nil {
		t.Fatal(err)
	}
	evs := decodeAll(t, d,
		rawEvent(MariaGTIDEvent, 300, maria, true),
		rawEvent(MariaGTIDListEvent, 340, list, true),
		rawEvent(GTIDEvent, 400, mysql, true),
		rawEvent(PreviousGTIDsEvent, 500, set.encode(), true))
	if g := evs[0].Data.(*MariaGTID); g.GTID.String() != "3-7-15" || !g.Standalone {
		t.Errorf("MariaDB GTID: %+v", g)
	}
	if l := evs[1].Data.(*GTIDList); MariaDBPosition(l.GTIDs).String() != "0-1-15,3-2-9" {
		t.Errorf("GTID list: %+v", l)
	}
	if g := evs[2].Data.(*MySQLGTID); g.String() != "3e11fa47-71ca-11e1-9e33-c80aa9429562:23" {
		t.Errorf("MySQL GTID: %s", g)
	}
	if p := evs[3].Data.(*PreviousGTIDs); p.Set.String() != set.String() {
		t.Errorf("previous GTIDs: %s, want %s", p.Set, set)
	}
}

func TestDecodeEventErrors(t *testing.T) {
	good := rawEvent(XIDEvent, 100, make([]byte, 8), true)
	bad := append([]byte(nil), good...)
	bad[headerLen] ^= 1
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"checksum", bad, ErrChecksum.Error()},
		{"shorter than the header", good[:10], "shorter than its header"},
		{"size", good[:len(good)-1], "the stream holds"},
		{"rows of an unknown table", rawEvent(WriteRowsV2, 100, writeRowsBody(true, 6), true), "no table map"},
		{"compressed", rawEvent(MariaWriteRowsCompV2, 100, nil, true), "log_bin_compress"},
		{"transaction payload", rawEvent(TransactionPayload, 100, nil, true), "binlog_transaction_compression"},
		{"truncated rotate", rawEvent(RotateEvent, 100, []byte{1, 2}, true), "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder()
			decodeAll(t, d, rawEvent(FormatDescriptionEvent, 256, fdeBody(true, 6), true))
			_, err := d.Decode(tt.raw)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
			if tt.name == "checksum" && !errors.Is(err, ErrChecksum) {
				t.Fatalf("%v is not ErrChecksum", err)
			}
		})
	}
}

func TestGTIDSet(t *testing.T) {
	set, err := ParseGTIDSet("3e11fa47-71ca-11e1-9e33-c80aa9429562:7:1-5:6")
	if err != nil {
		t.Fatal(err)
	}
	if got := set.String(); got != "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7" {
		t.Errorf("merged: %s", got)
	}
	sid, _ := parseUUID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
	set.Add(MySQLGTID{SID: sid, GNO: 9})
	if !set.Contains(MySQLGTID{SID: sid, GNO: 9}) || set.Contains(MySQLGTID{SID: sid, GNO: 8}) {
		t.Errorf("contains: %s", set)
	}
	back, err := decodeGTIDSet(&reader{b: set.encode()})
	if err != nil || back.String() != "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7:9" {
		t.Errorf("round trip: %s, %v", back, err)
	}
	for _, bad := range []string{"nouuid:1", "3e11fa47-71ca-11e1-9e33-c80aa9429562", "3e11fa47-71ca-11e1-9e33-c80aa9429562:5-2"} {
		if _, err := ParseGTIDSet(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	p, err := ParseMariaDBPosition("1-2-3, 0-1-15")
	if err != nil || p.String() != "0-1-15,1-2-3" || p.With(MariaDBGTID{0, 1, 16}).String() != "0-1-16,1-2-3" {
		t.Errorf("MariaDB position: %s, %v", p, err)
	}
	if _, err := ParseMariaDBPosition("0-1"); err == nil {
		t.Error("0-1: want an error")
	}
}

// The rotate a dump starts with comes before any format description: its checksum is
// recognised, not read as part of the file name.
func TestRotateBeforeFormatDescription(t *testing.T) {
	rotate := append(binary.LittleEndian.AppendUint64(nil, 4), "binlog.000007"...)
	for _, crc := range []bool{true, false} {
		ev, err := NewDecoder().Decode(rawEvent(RotateEvent, 0, rotate, crc))
		if err != nil {
			t.Fatal(err)
		}
		if r := ev.Data.(*Rotate); r.File != "binlog.000007" || r.Position != 4 {
			t.Errorf("checksum %v: %+v", crc, r)
		}
	}
}

// A rows event of a table with more columns than the event has bytes after its column
// count: ten columns, nine of them NULL, take two bytes of present bits, two of NULL bits
// and the four of the one INT.
func TestDecodeRowsOfManyNullColumns(t *testing.T) {
	d := NewDecoder()
	tm := []byte{42, 0, 0, 0, 0, 0, 1, 0, 4}
	tm = append(append(tm, "test"...), 0, 1, 't', 0, 10)
	for range 10 {
		tm = append(tm, TypeLong)
	}
	tm = append(tm, 0, 0xfe, 0x03) // no metadata; every column but the first nullable
	rows := []byte{42, 0, 0, 0, 0, 0, StmtEndFlag, 0, 10, 0xff, 0x03, 0xfe, 0x03}
	rows = binary.LittleEndian.AppendUint32(rows, 2)
	evs := decodeAll(t, d,
		rawEvent(FormatDescriptionEvent, 256, fdeBody(true, 6), true),
		rawEvent(TableMapEvent, 300, tm, true),
		rawEvent(WriteRowsV1, 340, rows, true))
	got := rowsOf(t, evs[2].Data.(*Rows))
	want := [][]string{{"2", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
}
