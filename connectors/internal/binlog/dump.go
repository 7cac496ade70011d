package binlog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Start is where a dump starts reading the log.
type Start struct {
	// File and Pos: the file and the offset in it (4 is the first event after the file's
	// header). An empty File with no GTID starts at the server's first file.
	File string
	Pos  uint32
	// MariaDB: start after the GTIDs of this position (then File and Pos are not used).
	MariaDB MariaDBPosition
	// MySQL: send every transaction not in this set (then File and Pos are not used).
	MySQL GTIDSet
}

// DumpOptions are the replica's settings.
type DumpOptions struct {
	// ServerID is the replica's server id: unique among the server's replicas.
	ServerID uint32
	// Heartbeat is how often a server with nothing to send says it is alive; 0: 10 s.
	// A stream that hears nothing for three heartbeats fails.
	Heartbeat time.Duration
}

// Stream is a dump of the log in progress: Next returns its events in order.
type Stream struct {
	c       *Conn
	ctx     context.Context
	dec     *Decoder
	timeout time.Duration
	stop    func() bool
}

// StartDump registers the connection as a replica and starts reading the log at start.
// Cancelling ctx ends the stream (Next then fails).
func (c *Conn) StartDump(ctx context.Context, opts DumpOptions, start Start) (*Stream, error) {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 10 * time.Second
	}
	if err := c.prepareDump(opts, start); err != nil {
		return nil, err
	}
	if err := c.registerReplica(opts.ServerID); err != nil {
		return nil, err
	}
	var cmd []byte
	switch {
	case start.MySQL != nil && !c.MariaDB():
		cmd = []byte{comBinlogDumpGTID}
		cmd = binary.LittleEndian.AppendUint16(cmd, 0)
		cmd = binary.LittleEndian.AppendUint32(cmd, opts.ServerID)
		cmd = binary.LittleEndian.AppendUint32(cmd, 0) // no file name
		cmd = binary.LittleEndian.AppendUint64(cmd, 4)
		set := start.MySQL.encode()
		cmd = binary.LittleEndian.AppendUint32(cmd, uint32(len(set)))
		cmd = append(cmd, set...)
	default:
		pos := start.Pos
		file := start.File
		if start.MariaDB != nil {
			file, pos = "", 4
		}
		if pos < 4 {
			pos = 4
		}
		cmd = []byte{comBinlogDump}
		cmd = binary.LittleEndian.AppendUint32(cmd, pos)
		cmd = binary.LittleEndian.AppendUint16(cmd, 0)
		cmd = binary.LittleEndian.AppendUint32(cmd, opts.ServerID)
		cmd = append(cmd, file...)
	}
	if err := c.p.command(cmd); err != nil {
		return nil, err
	}
	s := &Stream{c: c, ctx: ctx, dec: NewDecoder(), timeout: 3 * opts.Heartbeat}
	nc := c.p.conn
	s.stop = context.AfterFunc(ctx, func() { _ = nc.SetReadDeadline(time.Unix(1, 0)) })
	c.p.timeout = 0
	return s, nil
}

// prepareDump sets what the server needs to know of the replica before the dump.
func (c *Conn) prepareDump(opts DumpOptions, start Start) error {
	checksum, err := c.queryValue("SELECT @@global.binlog_checksum")
	if err != nil {
		return fmt.Errorf("read binlog_checksum: %w", err)
	}
	stmts := []string{
		"SET @master_binlog_checksum = " + Quote(checksum),
		"SET @master_heartbeat_period = " + strconv.FormatInt(opts.Heartbeat.Nanoseconds(), 10),
	}
	if c.MariaDB() {
		// send GTID events, and annotate rows events with their statements
		stmts = append(stmts, "SET @mariadb_slave_capability = 4")
		if start.MariaDB != nil {
			stmts = append(stmts,
				"SET @slave_connect_state = "+Quote(start.MariaDB.String()),
				"SET @slave_gtid_strict_mode = 0",
				"SET @slave_gtid_ignore_duplicates = 0")
		}
	}
	for _, s := range stmts {
		if err := c.Exec(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func (c *Conn) registerReplica(id uint32) error {
	host, _ := os.Hostname()
	if len(host) > 60 {
		host = host[:60]
	}
	cmd := []byte{comRegisterSlave}
	cmd = binary.LittleEndian.AppendUint32(cmd, id)
	cmd = append(append(cmd, byte(len(host))), host...)
	cmd = append(cmd, 0, 0) // user, password: not told
	cmd = binary.LittleEndian.AppendUint16(cmd, portOf(c.cfg.Addr))
	cmd = binary.LittleEndian.AppendUint32(cmd, 0) // replication rank
	cmd = binary.LittleEndian.AppendUint32(cmd, 0) // master id
	if err := c.p.command(cmd); err != nil {
		return err
	}
	pkt, err := c.p.read()
	if err != nil {
		return fmt.Errorf("register as a replica: %w", err)
	}
	if len(pkt) > 0 && pkt[0] == 0xFF {
		return fmt.Errorf("register as a replica: %w", parseError(pkt))
	}
	return nil
}

// ErrEndOfLog is the error of Next when the server ends the dump (it does only when told
// not to wait for more events).
var ErrEndOfLog = errors.New("the server ended the log")

// Next returns the next event. Its byte slices are valid until the next call. Events of
// types this package skips come with nil Data.
func (s *Stream) Next() (Event, error) {
	raw, err := s.NextRaw()
	if err != nil {
		return Event{}, err
	}
	return s.dec.Decode(raw)
}

// NextRaw returns the next event undecoded (header, body and checksum), valid until the
// next call: for a caller that decodes events elsewhere, with a Decoder of its own.
func (s *Stream) NextRaw() ([]byte, error) {
	_ = s.c.p.conn.SetReadDeadline(time.Now().Add(s.timeout))
	if err := s.ctx.Err(); err != nil {
		// cancelled before the deadline above replaced the one the cancel set
		return nil, err
	}
	pkt, err := s.c.p.read()
	if err != nil {
		if cerr := s.ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	if len(pkt) == 0 {
		return nil, errors.New("empty packet in the log")
	}
	switch pkt[0] {
	case 0x00:
		return pkt[1:], nil
	case 0xFF:
		return nil, parseError(pkt)
	case 0xFE:
		if len(pkt) < 9 {
			return nil, ErrEndOfLog
		}
	}
	return nil, fmt.Errorf("unexpected packet 0x%02x in the log", pkt[0])
}

// Decoder is the stream's decoder: its format and table maps.
func (s *Stream) Decoder() *Decoder { return s.dec }

// Close ends the stream and its connection.
func (s *Stream) Close() error {
	s.stop()
	return s.c.p.conn.Close()
}
