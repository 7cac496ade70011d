package binlog

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// EventType is the type byte of an event's header.
type EventType byte

// The event types this package decodes or knows to skip.
const (
	QueryEvent             EventType = 2
	StopEvent              EventType = 3
	RotateEvent            EventType = 4
	IntvarEvent            EventType = 5
	RandEvent              EventType = 13
	UserVarEvent           EventType = 14
	FormatDescriptionEvent EventType = 15
	XIDEvent               EventType = 16
	TableMapEvent          EventType = 19
	WriteRowsV1            EventType = 23
	UpdateRowsV1           EventType = 24
	DeleteRowsV1           EventType = 25
	IncidentEvent          EventType = 26
	HeartbeatEvent         EventType = 27
	RowsQueryEvent         EventType = 29
	WriteRowsV2            EventType = 30
	UpdateRowsV2           EventType = 31
	DeleteRowsV2           EventType = 32
	GTIDEvent              EventType = 33
	AnonymousGTIDEvent     EventType = 34
	PreviousGTIDsEvent     EventType = 35
	PartialUpdateRows      EventType = 39
	TransactionPayload     EventType = 40
	HeartbeatV2Event       EventType = 41
	MariaAnnotateRows      EventType = 160
	MariaBinlogCheckpoint  EventType = 161
	MariaGTIDEvent         EventType = 162
	MariaGTIDListEvent     EventType = 163
	MariaStartEncryption   EventType = 164
	MariaQueryCompressed   EventType = 165
	MariaWriteRowsCompV2   EventType = 166
	MariaDeleteRowsCompV1  EventType = 171
)

// headerLen is the length of an event's header (binlog version 4).
const headerLen = 19

// artificialFlag marks an event the server made up for the stream (the rotate it sends
// first): its position is not a place in the log.
const artificialFlag = 0x20

// Header is an event's common header.
type Header struct {
	Timestamp uint32
	Type      EventType
	ServerID  uint32
	Size      uint32
	LogPos    uint32 // the position of the next event in the file; 0 for some made-up events
	Flags     uint16
}

// Artificial reports whether the server made the event up for the stream.
func (h Header) Artificial() bool { return h.Flags&artificialFlag != 0 || h.LogPos == 0 }

// Event is one decoded event: its header and one of the *...Data types below, or nil for
// an event of a type this package skips.
type Event struct {
	Header
	Data any
}

// FormatDescription describes the log's format: the first event of every file.
type FormatDescription struct {
	BinlogVersion uint16
	ServerVersion string
	HeaderLength  uint8
	PostHeader    []byte // post-header length per event type, from type 1
	Checksum      bool   // events end with a CRC32 of the rest
}

// Rotate names the next file of the log and the position to read it from.
type Rotate struct {
	Position uint64
	File     string
}

// Query is a statement logged as text: BEGIN of a transaction, a DDL, a COMMIT of a
// non-transactional table.
type Query struct {
	ThreadID  uint32
	ErrorCode uint16
	Schema    string // the default database when it ran
	SQL       string
}

// XID commits a transaction.
type XID struct{ XID uint64 }

// MySQLGTID starts a transaction of MySQL's log: its global transaction id.
type MySQLGTID struct {
	SID [16]byte
	GNO int64
}

// String is the GTID as MySQL writes it: uuid:number.
func (g MySQLGTID) String() string { return formatUUID(g.SID) + ":" + strconv.FormatInt(g.GNO, 10) }

// PreviousGTIDs is the set of transactions in earlier files, at the start of a file.
type PreviousGTIDs struct{ Set GTIDSet }

// MariaGTID starts an event group of MariaDB's log.
type MariaGTID struct {
	GTID MariaDBGTID
	// Standalone marks a group without a transaction (a DDL): no XID ends it.
	Standalone bool
}

// GTIDList is MariaDB's list of the last GTID per replication domain, at the start of a
// file.
type GTIDList struct{ GTIDs []MariaDBGTID }

// AnnotateRows is the statement whose rows the next rows events hold (MariaDB, with
// binlog_annotate_row_events).
type AnnotateRows struct{ SQL string }

// Heartbeat says the server is alive and has no event to send.
type Heartbeat struct{ File string }

// Format is what decoding needs to know of the log: whether events carry a checksum and how
// long their post-headers are.
type Format struct {
	Checksum   bool
	PostHeader []byte
}

func (f *Format) postHeader(t EventType, def int) int {
	if int(t) >= 1 && int(t) <= len(f.PostHeader) {
		return int(f.PostHeader[t-1])
	}
	return def
}

// ErrChecksum is the error of an event whose CRC32 does not match.
var ErrChecksum = errors.New("event checksum mismatch")

// Decoder decodes the events of one stream: it keeps the log's format and the table maps
// the rows events refer to.
type Decoder struct {
	Format Format
	Tables map[uint64]*TableMap
}

// NewDecoder makes a decoder for a log whose format is not known yet: the stream's
// FORMAT_DESCRIPTION event sets it.
func NewDecoder() *Decoder { return &Decoder{Tables: map[uint64]*TableMap{}} }

// Decode decodes one event (header, body and checksum). The event's byte slices alias raw.
func (d *Decoder) Decode(raw []byte) (Event, error) {
	if len(raw) < headerLen {
		return Event{}, fmt.Errorf("event of %d bytes is shorter than its header", len(raw))
	}
	h := Header{
		Timestamp: binary.LittleEndian.Uint32(raw),
		Type:      EventType(raw[4]),
		ServerID:  binary.LittleEndian.Uint32(raw[5:]),
		Size:      binary.LittleEndian.Uint32(raw[9:]),
		LogPos:    binary.LittleEndian.Uint32(raw[13:]),
		Flags:     binary.LittleEndian.Uint16(raw[17:]),
	}
	ev := Event{Header: h}
	if int(h.Size) != len(raw) {
		return ev, fmt.Errorf("%s event: its header says %d bytes, the stream holds %d", h.Type, h.Size, len(raw))
	}
	checksum := d.Format.Checksum
	switch {
	case h.Type == FormatDescriptionEvent:
		checksum = fdeHasChecksum(raw)
	case d.Format.PostHeader == nil && len(raw) >= headerLen+4:
		// before the first format description (the rotate a dump starts with) the format
		// is not known: the event carries a checksum if its last four bytes are one
		n := len(raw) - 4
		checksum = crc32.ChecksumIEEE(raw[:n]) == binary.LittleEndian.Uint32(raw[n:])
	}
	body := raw[headerLen:]
	if checksum {
		if len(body) < 4 {
			return ev, fmt.Errorf("%s event: too short for its checksum", h.Type)
		}
		n := len(raw) - 4
		if crc32.ChecksumIEEE(raw[:n]) != binary.LittleEndian.Uint32(raw[n:]) {
			return ev, fmt.Errorf("%s event at %d: %w", h.Type, h.LogPos, ErrChecksum)
		}
		body = body[:len(body)-4]
	}
	var err error
	ev.Data, err = d.decodeBody(h, body)
	if err != nil {
		return ev, fmt.Errorf("%s event ending at %d: %w", h.Type, h.LogPos, err)
	}
	return ev, nil
}

func (d *Decoder) decodeBody(h Header, body []byte) (any, error) {
	r := &reader{b: body}
	var data any
	switch h.Type {
	case FormatDescriptionEvent:
		f := decodeFDE(r)
		if r.err == nil {
			d.Format = Format{Checksum: f.Checksum, PostHeader: f.PostHeader}
		}
		data = f
	case RotateEvent:
		rot := &Rotate{Position: r.u64()}
		rot.File = string(r.rest())
		data = rot
	case QueryEvent:
		data = d.decodeQuery(r)
	case XIDEvent:
		data = &XID{XID: r.u64()}
	case TableMapEvent:
		tm, err := d.decodeTableMap(r)
		if err != nil {
			return nil, err
		}
		data = tm
	case WriteRowsV1, UpdateRowsV1, DeleteRowsV1, WriteRowsV2, UpdateRowsV2, DeleteRowsV2:
		rows, err := d.decodeRows(h.Type, r)
		if err != nil {
			return nil, err
		}
		data = rows
	case GTIDEvent:
		r.skip(1) // flags
		g := &MySQLGTID{}
		copy(g.SID[:], r.bytes(16))
		g.GNO = int64(r.u64())
		data = g
	case PreviousGTIDsEvent:
		set, err := decodeGTIDSet(r)
		if err != nil {
			return nil, err
		}
		data = &PreviousGTIDs{Set: set}
	case MariaGTIDEvent:
		g := &MariaGTID{}
		g.GTID.Seq = r.u64()
		g.GTID.Domain = r.u32()
		g.GTID.Server = h.ServerID
		g.Standalone = r.u8()&1 != 0
		data = g
	case MariaGTIDListEvent:
		n := int(r.u32() & 0x0FFFFFFF)
		if n > r.left()/16 {
			return nil, errShort
		}
		l := &GTIDList{GTIDs: make([]MariaDBGTID, n)}
		for i := range l.GTIDs {
			l.GTIDs[i] = MariaDBGTID{Domain: r.u32(), Server: r.u32(), Seq: r.u64()}
		}
		data = l
	case MariaAnnotateRows, RowsQueryEvent:
		if h.Type == RowsQueryEvent {
			r.skip(1) // a length byte, of the text truncated to 255
		}
		data = &AnnotateRows{SQL: string(r.rest())}
	case HeartbeatEvent, HeartbeatV2Event:
		data = &Heartbeat{File: string(r.rest())}
	case TransactionPayload:
		return nil, errors.New("the log holds compressed transactions, which Strait cannot read: set binlog_transaction_compression = OFF")
	case PartialUpdateRows:
		return nil, errors.New("the log holds partial JSON updates, which Strait cannot read: set binlog_row_value_options to ''")
	default:
		if h.Type >= MariaQueryCompressed && h.Type <= MariaDeleteRowsCompV1 {
			return nil, errors.New("the log holds compressed events, which Strait cannot read: set log_bin_compress = OFF")
		}
		return nil, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	return data, nil
}

// fdeHasChecksum reports whether a FORMAT_DESCRIPTION event carries a checksum: servers
// from MySQL 5.6.1 and MariaDB 5.3 write the algorithm byte before the last four bytes.
func fdeHasChecksum(raw []byte) bool {
	if len(raw) < headerLen+2+50+5 {
		return false
	}
	v := raw[headerLen+2 : headerLen+2+50]
	if i := strings.IndexByte(string(v), 0); i >= 0 {
		v = v[:i]
	}
	if !versionAtLeast(string(v), 5, 6, 1) {
		return false
	}
	// BINLOG_CHECKSUM_ALG_CRC32, then the checksum; with checksums off the event ends with
	// the algorithm byte (0) alone
	n := len(raw) - 4
	return raw[n-1] == 1 && crc32.ChecksumIEEE(raw[:n]) == binary.LittleEndian.Uint32(raw[n:])
}

// versionAtLeast compares the leading major.minor.patch of a server version.
func versionAtLeast(v string, major, minor, patch int) bool {
	var n [3]int
	parts := strings.SplitN(v, ".", 3)
	for i := 0; i < len(parts) && i < 3; i++ {
		s := parts[i]
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		n[i], _ = strconv.Atoi(s[:j])
	}
	if n[0] != major {
		return n[0] > major
	}
	if n[1] != minor {
		return n[1] > minor
	}
	return n[2] >= patch
}

func decodeFDE(r *reader) *FormatDescription {
	f := &FormatDescription{BinlogVersion: r.u16()}
	v := r.bytes(50)
	if i := strings.IndexByte(string(v), 0); i >= 0 {
		v = v[:i]
	}
	f.ServerVersion = string(v)
	r.skip(4)
	f.HeaderLength = r.u8()
	post := r.rest()
	if versionAtLeast(f.ServerVersion, 5, 6, 1) && len(post) >= 1 {
		// the checksum algorithm follows the post-header lengths (the checksum itself was
		// cut off already, or is absent)
		f.Checksum = post[len(post)-1] == 1
		post = post[:len(post)-1]
	}
	f.PostHeader = append([]byte(nil), post...)
	return f
}

func (d *Decoder) decodeQuery(r *reader) *Query {
	q := &Query{ThreadID: r.u32()}
	r.skip(4) // execution time
	dbLen := int(r.u8())
	q.ErrorCode = r.u16()
	if d.Format.postHeader(QueryEvent, 13) >= 13 {
		r.skip(int(r.u16())) // status variables
	}
	q.Schema = string(r.bytes(dbLen))
	r.skip(1)
	q.SQL = string(r.rest())
	return q
}

func formatUUID(b [16]byte) string {
	s := hex.EncodeToString(b[:])
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

func (t EventType) String() string {
	switch t {
	case QueryEvent:
		return "QUERY"
	case RotateEvent:
		return "ROTATE"
	case FormatDescriptionEvent:
		return "FORMAT_DESCRIPTION"
	case XIDEvent:
		return "XID"
	case TableMapEvent:
		return "TABLE_MAP"
	case WriteRowsV1, WriteRowsV2:
		return "WRITE_ROWS"
	case UpdateRowsV1, UpdateRowsV2:
		return "UPDATE_ROWS"
	case DeleteRowsV1, DeleteRowsV2:
		return "DELETE_ROWS"
	case GTIDEvent:
		return "GTID"
	case PreviousGTIDsEvent:
		return "PREVIOUS_GTIDS"
	case MariaGTIDEvent:
		return "MARIADB_GTID"
	case MariaGTIDListEvent:
		return "MARIADB_GTID_LIST"
	case HeartbeatEvent, HeartbeatV2Event:
		return "HEARTBEAT"
	}
	return "event type " + strconv.Itoa(int(t))
}
