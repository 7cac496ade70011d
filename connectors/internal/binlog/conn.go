package binlog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Capability flags of the handshake.
const (
	capLongPassword     = 0x1
	capLongFlag         = 0x4
	capConnectWithDB    = 0x8
	capProtocol41       = 0x200
	capTransactions     = 0x2000
	capSecureConnection = 0x8000
	capMultiResults     = 0x20000
	capPluginAuth       = 0x80000
	capPluginAuthLenenc = 0x200000
)

// Commands.
const (
	comQuit           = 0x01
	comQuery          = 0x03
	comBinlogDump     = 0x12
	comRegisterSlave  = 0x15
	comBinlogDumpGTID = 0x1e
)

// charsetUTF8MB4 is utf8mb4_general_ci, the connection's character set.
const charsetUTF8MB4 = 45

// Config is how to reach a server.
type Config struct {
	Addr     string // host:port
	User     string
	Password string
	Database string        // optional
	Timeout  time.Duration // of connecting and of each read until the log is streamed; 0: 30 s
}

// Error is an error packet of the server.
type Error struct {
	Code    uint16
	State   string
	Message string
}

func (e *Error) Error() string {
	if e.State != "" {
		return fmt.Sprintf("Error %d (%s): %s", e.Code, e.State, e.Message)
	}
	return fmt.Sprintf("Error %d: %s", e.Code, e.Message)
}

// Server error codes a caller may want to tell apart.
const (
	ErrAccessDenied     = 1045
	ErrMasterFatal      = 1236 // the log to read from is gone, or the position is wrong
	ErrNoBinaryLogging  = 1381
	ErrSpecificAccess   = 1227
	ErrUnknownDatabase  = 1049
	ErrNoSuchTable      = 1146
	ErrMasterHasPurged  = 1789
	ErrUnknownSystemVar = 1193
)

// IsCode reports whether err is (or wraps) a server error with this code.
func IsCode(err error, code uint16) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Conn is one connection to a server.
type Conn struct {
	p       *packets
	cfg     Config
	version string
	connID  uint32
	caps    uint32
}

// Dial connects and logs in.
func Dial(ctx context.Context, cfg Config) (*Conn, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	d := net.Dialer{Timeout: cfg.Timeout, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", cfg.Addr, err)
	}
	c := &Conn{p: newPackets(nc), cfg: cfg}
	c.p.timeout = cfg.Timeout
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := c.handshake(); err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connect to %s: %w", cfg.Addr, ctx.Err())
		}
		return nil, fmt.Errorf("connect to %s as %s: %w", cfg.Addr, cfg.User, err)
	}
	return c, nil
}

// ServerVersion is the version the server announced, e.g. 10.11.14-MariaDB-0+deb12u2-log.
func (c *Conn) ServerVersion() string { return c.version }

// MariaDB reports whether the server is MariaDB.
func (c *Conn) MariaDB() bool { return strings.Contains(c.version, "MariaDB") }

// Close ends the connection.
func (c *Conn) Close() error {
	_ = c.p.conn.SetWriteDeadline(time.Now().Add(time.Second))
	_ = c.p.command([]byte{comQuit})
	return c.p.conn.Close()
}

// handshake reads the server's greeting, answers it and authenticates.
func (c *Conn) handshake() error {
	pkt, err := c.p.read()
	if err != nil {
		return err
	}
	if len(pkt) > 0 && pkt[0] == 0xFF {
		return parseError(pkt)
	}
	r := &reader{b: pkt}
	if v := r.u8(); v != 10 {
		return fmt.Errorf("unknown handshake protocol %d", v)
	}
	c.version = r.cstring()
	c.connID = r.u32()
	nonce := append([]byte(nil), r.bytes(8)...)
	r.skip(1)
	caps := uint32(r.u16())
	r.skip(3) // character set, status
	caps |= uint32(r.u16()) << 16
	authLen := int(r.u8())
	r.skip(10)
	plugin := nativePassword
	if caps&capSecureConnection != 0 {
		n := max(13, authLen-8)
		part := r.bytes(min(n, r.left()))
		if len(part) > 0 && part[len(part)-1] == 0 {
			part = part[:len(part)-1]
		}
		nonce = append(nonce, part...)
	}
	if caps&capPluginAuth != 0 && r.left() > 0 {
		plugin = r.cstring()
	}
	if r.err != nil {
		return fmt.Errorf("bad handshake: %w", r.err)
	}
	if caps&capProtocol41 == 0 {
		return errors.New("the server does not speak protocol 4.1")
	}
	c.caps = capLongPassword | capLongFlag | capProtocol41 | capTransactions | capSecureConnection |
		capMultiResults | capPluginAuth | capPluginAuthLenenc
	c.caps &= caps | capPluginAuthLenenc
	if c.cfg.Database != "" {
		c.caps |= capConnectWithDB
	}
	answer, err := authAnswer(plugin, nonce, c.cfg.Password)
	if err != nil {
		plugin, answer = nativePassword, scrambleNative(nonce, c.cfg.Password) // the server may switch
	}
	out := binary.LittleEndian.AppendUint32(nil, c.caps)
	out = binary.LittleEndian.AppendUint32(out, maxPayload)
	out = append(out, charsetUTF8MB4)
	out = append(out, make([]byte, 23)...)
	out = append(append(out, c.cfg.User...), 0)
	if c.caps&capPluginAuthLenenc != 0 {
		out = appendLenenc(out, uint64(len(answer)))
	} else {
		out = append(out, byte(len(answer)))
	}
	out = append(out, answer...)
	if c.caps&capConnectWithDB != 0 {
		out = append(append(out, c.cfg.Database...), 0)
	}
	out = append(append(out, plugin...), 0)
	if err := c.p.write(out); err != nil {
		return err
	}
	return c.authenticate(plugin, nonce)
}

// authenticate follows the server's answers until it accepts or refuses the login.
func (c *Conn) authenticate(plugin string, nonce []byte) error {
	askedKey := false
	for {
		pkt, err := c.p.read()
		if err != nil {
			return err
		}
		if len(pkt) == 0 {
			return errors.New("empty authentication packet")
		}
		switch pkt[0] {
		case 0x00:
			return nil
		case 0xFF:
			return parseError(pkt)
		case 0xFE: // switch to another plugin, with a new nonce
			if len(pkt) == 1 {
				return errors.New("the server asks for the pre-4.1 password scramble, which Strait does not speak")
			}
			r := &reader{b: pkt[1:]}
			plugin = r.cstring()
			nonce = append([]byte(nil), r.rest()...)
			if n := len(nonce); n > 0 && nonce[n-1] == 0 {
				nonce = nonce[:n-1]
			}
			answer, err := authAnswer(plugin, nonce, c.cfg.Password)
			if err != nil {
				return err
			}
			askedKey = false
			if err := c.p.write(answer); err != nil {
				return err
			}
		case 0x01: // more data of the plugin
			more := pkt[1:]
			switch {
			case plugin == cachingSHA2 && len(more) == 1 && more[0] == 3:
				// the fast path succeeded: an OK follows
			case plugin == cachingSHA2 && len(more) == 1 && more[0] == 4 && !askedKey:
				// full authentication: ask for the server's RSA key
				askedKey = true
				if err := c.p.write([]byte{2}); err != nil {
					return err
				}
			case plugin == cachingSHA2 || plugin == sha256PasswordAuth:
				enc, err := encryptPassword(more, nonce, c.cfg.Password)
				if err != nil {
					return err
				}
				if err := c.p.write(enc); err != nil {
					return err
				}
			default:
				return fmt.Errorf("unexpected authentication data for plugin %s", plugin)
			}
		default:
			return fmt.Errorf("unexpected authentication packet 0x%02x", pkt[0])
		}
	}
}

func parseError(pkt []byte) error {
	r := &reader{b: pkt[1:]}
	e := &Error{Code: r.u16()}
	if r.left() > 0 && r.b[r.pos] == '#' {
		r.skip(1)
		e.State = string(r.bytes(5))
	}
	e.Message = string(r.rest())
	return e
}

// Exec runs a statement and discards what it returns.
func (c *Conn) Exec(sql string) error {
	_, err := c.Query(sql)
	return err
}

// Query runs a statement and returns the rows of its result in text form (a NULL as ""),
// or none for a statement without a result.
func (c *Conn) Query(sql string) ([][]string, error) {
	if err := c.p.command(append([]byte{comQuery}, sql...)); err != nil {
		return nil, err
	}
	pkt, err := c.p.read()
	if err != nil {
		return nil, err
	}
	switch {
	case len(pkt) == 0:
		return nil, errors.New("empty answer")
	case pkt[0] == 0x00:
		return nil, nil
	case pkt[0] == 0xFF:
		return nil, parseError(pkt)
	}
	r := &reader{b: pkt}
	n, _ := r.lenenc()
	ncol := int(n)
	if r.err != nil || n == 0 || n > 4096 {
		return nil, errors.New("bad result header")
	}
	for i := 0; i <= ncol; i++ { // the column definitions, then EOF
		if pkt, err = c.p.read(); err != nil {
			return nil, err
		}
	}
	var rows [][]string
	for {
		if pkt, err = c.p.read(); err != nil {
			return nil, err
		}
		if len(pkt) > 0 && pkt[0] == 0xFE && len(pkt) < 9 {
			return rows, nil
		}
		if len(pkt) > 0 && pkt[0] == 0xFF {
			return nil, parseError(pkt)
		}
		r := &reader{b: pkt}
		row := make([]string, ncol)
		for i := range row {
			row[i] = string(r.lenencBytes())
		}
		if r.err != nil {
			return nil, errors.New("bad result row")
		}
		rows = append(rows, row)
	}
}

// queryValue returns the first value of a one-row result ("" when there is no row).
func (c *Conn) queryValue(sql string) (string, error) {
	rows, err := c.Query(sql)
	if err != nil || len(rows) == 0 || len(rows[0]) == 0 {
		return "", err
	}
	return rows[0][0], nil
}

// Quote quotes s as an SQL string literal.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// portOf is the port of host:port, 0 when it has none.
func portOf(addr string) uint16 {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(p, 10, 16)
	return uint16(n)
}
