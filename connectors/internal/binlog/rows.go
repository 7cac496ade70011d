package binlog

import (
	"errors"
	"fmt"
)

// TableMap describes the table of the rows events that follow it: its name and its columns'
// types with the metadata their values need to be read.
type TableMap struct {
	ID       uint64
	Flags    uint16
	Schema   string
	Table    string
	Types    []byte   // the column types (Type...)
	Meta     []uint16 // per column: lengths, precision and scale, fractional digits
	Nullable []byte   // bitmap of the columns that may be NULL
	// From the optional metadata (binlog_row_metadata, MySQL 8 and MariaDB 10.5), nil when
	// the server sent none.
	Signed []bool   // per column: a numeric column that is signed
	Names  []string // the column names (binlog_row_metadata = FULL)
}

// Optional metadata fields of a table map.
const (
	metaSignedness = 1
	metaColumnName = 4
)

func (d *Decoder) tableID(r *reader, t EventType, def int) uint64 {
	if d.Format.postHeader(t, def) == 6 {
		return uint64(r.u32())
	}
	return r.u48()
}

func (d *Decoder) decodeTableMap(r *reader) (*TableMap, error) {
	tm := &TableMap{ID: d.tableID(r, TableMapEvent, 8), Flags: r.u16()}
	tm.Schema = string(r.bytes(int(r.u8())))
	r.skip(1)
	tm.Table = string(r.bytes(int(r.u8())))
	r.skip(1)
	n := r.count()
	tm.Types = append([]byte(nil), r.bytes(n)...)
	meta := &reader{b: r.lenencBytes()}
	tm.Meta = make([]uint16, n)
	for i, t := range tm.Types {
		switch t {
		case TypeFloat, TypeDouble, TypeBlob, TypeTinyBlob, TypeMediumBlob, TypeLongBlob, TypeGeometry, TypeJSON,
			TypeTimestamp2, TypeDatetime2, TypeTime2:
			tm.Meta[i] = uint16(meta.u8())
		case TypeVarchar, TypeVarString, TypeBit:
			tm.Meta[i] = meta.u16()
		case TypeNewDecimal, TypeString, TypeEnum, TypeSet:
			hi := meta.u8()
			tm.Meta[i] = uint16(hi)<<8 | uint16(meta.u8())
		}
	}
	if meta.err != nil {
		return nil, fmt.Errorf("table %s.%s: column metadata: %w", tm.Schema, tm.Table, meta.err)
	}
	tm.Nullable = append([]byte(nil), r.bytes((n+7)/8)...)
	if r.err != nil {
		return nil, r.err
	}
	for r.left() > 0 {
		kind := r.u8()
		val := &reader{b: r.lenencBytes()}
		if r.err != nil {
			break
		}
		switch kind {
		case metaSignedness:
			tm.Signed = make([]bool, n)
			bit := 0
			for i, t := range tm.Types {
				if !numericType(t) {
					continue
				}
				if bit/8 < len(val.b) {
					tm.Signed[i] = val.b[bit/8]&(0x80>>(bit%8)) == 0
				}
				bit++
			}
		case metaColumnName:
			for val.left() > 0 && val.err == nil {
				tm.Names = append(tm.Names, string(val.lenencBytes()))
			}
		}
	}
	d.Tables[tm.ID] = tm
	return tm, nil
}

func numericType(t byte) bool {
	switch t {
	case TypeTiny, TypeShort, TypeInt24, TypeLong, TypeLongLong, TypeFloat, TypeDouble, TypeNewDecimal, TypeDecimal:
		return true
	}
	return false
}

// ColumnNullable reports whether column i may be NULL.
func (tm *TableMap) ColumnNullable(i int) bool { return tm.Nullable[i/8]&(1<<(i%8)) != 0 }

// RowsKind says what a rows event does.
type RowsKind uint8

// The kinds of rows events.
const (
	Inserted RowsKind = iota
	Updated
	Deleted
)

// Rows is a WRITE_ROWS, UPDATE_ROWS or DELETE_ROWS event: the row images of one table,
// decoded one at a time with Next.
type Rows struct {
	Kind    RowsKind
	TableID uint64
	Table   *TableMap // the table map the event refers to
	Flags   uint16
	Columns int

	present      []byte // the columns each (before) image holds
	presentAfter []byte // the columns each after image of an update holds
	data         []byte
	pos          int
	scratch      []byte
}

// StmtEndFlag marks the last rows event of a statement.
const StmtEndFlag = 1

func (d *Decoder) decodeRows(t EventType, r *reader) (*Rows, error) {
	rows := &Rows{}
	switch t {
	case WriteRowsV1, WriteRowsV2:
		rows.Kind = Inserted
	case UpdateRowsV1, UpdateRowsV2:
		rows.Kind = Updated
	default:
		rows.Kind = Deleted
	}
	v2 := t >= WriteRowsV2
	def := 8
	if v2 {
		def = 10
	}
	rows.TableID = d.tableID(r, t, def)
	rows.Flags = r.u16()
	if v2 {
		extra := int(r.u16())
		if extra < 2 {
			return nil, fmt.Errorf("bad extra data length %d", extra)
		}
		r.skip(extra - 2)
	}
	// a column of a row image may take no byte at all (a NULL is a bit): the count is bounded
	// by the bits left, not the bytes
	n, _ := r.lenenc()
	if n > 8*uint64(r.left()) {
		return nil, errShort
	}
	rows.Columns = int(n)
	rows.present = r.bytes((rows.Columns + 7) / 8)
	if rows.Kind == Updated {
		rows.presentAfter = r.bytes((rows.Columns + 7) / 8)
	}
	rows.data = r.rest()
	if r.err != nil {
		return nil, r.err
	}
	rows.Table = d.Tables[rows.TableID]
	if rows.Table == nil {
		return nil, fmt.Errorf("rows of table id %d, which no table map described", rows.TableID)
	}
	if len(rows.Table.Types) != rows.Columns {
		return nil, fmt.Errorf("rows of table %s.%s have %d columns, its table map %d", rows.Table.Schema, rows.Table.Table, rows.Columns, len(rows.Table.Types))
	}
	return rows, nil
}

// More reports whether row images are left to decode.
func (r *Rows) More() bool { return r.pos < len(r.data) }

// Next decodes the next row: into a the inserted or deleted row, or the row before an
// update and into b the row after it (b is unused otherwise). Both must have Columns
// values. The values' bytes are valid until the next call.
func (r *Rows) Next(a, b []Value) error {
	if len(a) < r.Columns || (r.Kind == Updated && len(b) < r.Columns) {
		return errors.New("rows: too few values to decode into")
	}
	r.scratch = r.scratch[:0]
	if err := r.image(r.present, a); err != nil {
		return err
	}
	if r.Kind == Updated {
		return r.image(r.presentAfter, b)
	}
	return nil
}

// image decodes one row image.
func (r *Rows) image(present []byte, out []Value) error {
	tm := r.Table
	n := 0
	for i := 0; i < r.Columns; i++ {
		if present[i/8]&(1<<(i%8)) != 0 {
			n++
		}
	}
	nulls := (n + 7) / 8
	if len(r.data)-r.pos < nulls {
		return fmt.Errorf("table %s.%s: row image: %w", tm.Schema, tm.Table, errShort)
	}
	nullMap := r.data[r.pos : r.pos+nulls]
	r.pos += nulls
	bit := 0
	for i := 0; i < r.Columns; i++ {
		v := &out[i]
		*v = Value{Type: tm.Types[i]}
		if present[i/8]&(1<<(i%8)) == 0 {
			v.Absent = true
			continue
		}
		isNull := nullMap[bit/8]&(1<<(bit%8)) != 0
		bit++
		if isNull {
			v.Null = true
			continue
		}
		used, err := decodeValue(v, tm.Types[i], tm.Meta[i], r.data[r.pos:], &r.scratch)
		if err != nil {
			name := fmt.Sprintf("column %d", i+1)
			if i < len(tm.Names) {
				name = fmt.Sprintf("column %q", tm.Names[i])
			}
			return fmt.Errorf("table %s.%s, %s (%s): %w", tm.Schema, tm.Table, name, TypeName(tm.Types[i]), err)
		}
		r.pos += used
	}
	return nil
}
