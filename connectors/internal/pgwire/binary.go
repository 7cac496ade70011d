package pgwire

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// TypeInfo is what the catalog (pg_type) says of a type: enough to know how its binary form
// becomes its text.
type TypeInfo struct {
	OID  uint32
	Name string // typname
	Kind byte   // typtype: b base, e enum, c composite, r range, d domain, m multirange
	Send string // the binary output function (typsend)
	// Elem is the element type of an array type, nil otherwise.
	Elem *TypeInfo
}

// LookupTypes reads the TypeInfo of types (and of their elements) from the catalog.
func LookupTypes(ctx context.Context, pg *pgx.Conn, oids []uint32) (map[uint32]*TypeInfo, error) {
	out := map[uint32]*TypeInfo{}
	if len(oids) == 0 {
		return out, nil
	}
	rows, err := pg.Query(ctx, `SELECT t.oid, t.typname::text, t.typtype::text, t.typsend::text,
			coalesce(e.oid, 0), coalesce(e.typname::text, ''), coalesce(e.typtype::text, ''), coalesce(e.typsend::text, '')
		FROM pg_catalog.pg_type t
		LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem AND t.typsend = 'pg_catalog.array_send'::regproc
		WHERE t.oid = ANY($1)`, oids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t, e TypeInfo
		var tk, ek string
		if err := rows.Scan(&t.OID, &t.Name, &tk, &t.Send, &e.OID, &e.Name, &ek, &e.Send); err != nil {
			return nil, err
		}
		if tk != "" {
			t.Kind = tk[0]
		}
		t.Send = unqualified(t.Send)
		e.Send = unqualified(e.Send)
		if e.OID != 0 {
			if ek != "" {
				e.Kind = ek[0]
			}
			t.Elem = &e
		}
		out[t.OID] = &t
	}
	return out, rows.Err()
}

// unqualified drops the schema from a function name.
func unqualified(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// textKind says how the binary form of a value read as a string becomes its text.
type textKind uint8

const (
	textSame     textKind = iota // the binary form is the text: text, varchar, char, name, json, xml, enums...
	textUUID                     // 16 bytes
	textJSONB                    // a version byte, then the text
	textInet                     // inet and cidr
	textMacaddr                  // macaddr and macaddr8
	textInterval                 // interval, in the postgres IntervalStyle
	textBits                     // bit and varbit
	textUint                     // oid, xid, cid (4 bytes), xid8 (8 bytes)
	textHex                      // PostGIS geometry and geography: the binary form in upper-case hex
	textPgx                      // a type pgx knows: decoded, then encoded as text by pgx
	textArray                    // an array of one of the kinds above, in PostgreSQL's array syntax
)

// sameTextSends are the binary output functions whose output is the text itself.
var sameTextSends = map[string]bool{
	"textsend": true, "varcharsend": true, "bpcharsend": true, "namesend": true, "charsend": true,
	"enum_send": true, "json_send": true, "xml_send": true, "unknownsend": true, "cstring_send": true,
	"citextsend": true,
}

// textKindOf says how a type's binary form becomes its text; ok is false when Strait does
// not know.
func textKindOf(t *TypeInfo) (textKind, bool) {
	switch t.OID {
	case pgtype.UUIDOID:
		return textUUID, true
	case pgtype.JSONBOID:
		return textJSONB, true
	case pgtype.InetOID, pgtype.CIDROID:
		return textInet, true
	case pgtype.MacaddrOID, macaddr8OID:
		return textMacaddr, true
	case pgtype.IntervalOID:
		return textInterval, true
	case pgtype.BitOID, pgtype.VarbitOID:
		return textBits, true
	case pgtype.OIDOID, pgtype.XIDOID, pgtype.CIDOID, pgtype.XID8OID:
		return textUint, true
	}
	switch {
	case sameTextSends[t.Send]:
		return textSame, true
	case t.Send == "geometry_send" || t.Send == "geography_send":
		return textHex, true
	case t.Elem != nil && t.Send == "array_send":
		if _, ok := textKindOf(t.Elem); ok {
			return textArray, true
		}
	}
	if _, ok := pgtype.NewMap().TypeForOID(t.OID); ok && t.Kind != 'c' && !strings.HasPrefix(t.Send, "reg") {
		return textPgx, true
	}
	return 0, false
}

const macaddr8OID = 774

// UseBinary makes a column that is read as a string in text format (Format is TextFormat) be
// read in binary format instead, as logical replication with binary output sends it: its
// values are turned from their binary form into the text PostgreSQL prints for them. Other
// columns are read in binary format already and are left as they are. t describes the
// column's type (LookupTypes); UseBinary fails for types whose binary form Strait cannot
// turn into text (composite types, reg* types, extension types other than PostGIS's...).
func (c *Column) UseBinary(t *TypeInfo) error {
	if c.Format == BinaryFormat {
		return nil
	}
	if t == nil {
		return fmt.Errorf("type %d is not in the catalog", c.OID)
	}
	k, ok := textKindOf(t)
	if !ok {
		return fmt.Errorf("values of type %s cannot be read in binary format: Strait does not know its binary form", t.Name)
	}
	c.Format, c.kind, c.text, c.textType = BinaryFormat, decBinText, k, t
	return nil
}

// binText reads the binary form of a string column's value as its text.
func (d *Decoder) binText(c *Column, b []byte, v *row.Value) error {
	switch c.text {
	case textSame:
		*v = row.Value{T: types.String, S: d.keep(b)}
		return nil
	case textJSONB:
		return d.scalar(decJSONB, 0, b, v)
	case textUUID:
		return d.scalar(decUUID, 0, b, v)
	}
	buf, err := d.appendText(nil, c.text, c.textType, b)
	if err != nil {
		return fmt.Errorf("%s value: %w", c.textType.Name, err)
	}
	*v = row.Value{T: types.String, S: d.keep(buf)}
	return nil
}

// appendText appends the text of the binary value b of type t, read as kind k.
func (d *Decoder) appendText(dst []byte, k textKind, t *TypeInfo, b []byte) ([]byte, error) {
	switch k {
	case textSame:
		return append(dst, b...), nil
	case textUUID:
		if len(b) != 16 {
			return nil, lengthError("uuid", len(b))
		}
		var buf [36]byte
		formatUUID(buf[:], b)
		return append(dst, buf[:]...), nil
	case textJSONB:
		if len(b) == 0 || b[0] != 1 {
			return nil, fmt.Errorf("jsonb value in an unknown binary format")
		}
		return append(dst, b[1:]...), nil
	case textInet:
		return appendInet(dst, b)
	case textMacaddr:
		if len(b) != 6 && len(b) != 8 {
			return nil, lengthError("macaddr", len(b))
		}
		for i, x := range b {
			if i > 0 {
				dst = append(dst, ':')
			}
			dst = append(dst, hexDigits[x>>4], hexDigits[x&15])
		}
		return dst, nil
	case textInterval:
		if len(b) != 16 {
			return nil, lengthError("interval", len(b))
		}
		return appendInterval(dst, int64(binary.BigEndian.Uint64(b)), int32(binary.BigEndian.Uint32(b[8:])), int32(binary.BigEndian.Uint32(b[12:]))), nil
	case textBits:
		if len(b) < 4 {
			return nil, lengthError("bit", len(b))
		}
		n := int(int32(binary.BigEndian.Uint32(b)))
		if n < 0 || (n+7)/8 != len(b)-4 {
			return nil, lengthError("bit", len(b))
		}
		for i := 0; i < n; i++ {
			if b[4+i/8]&(0x80>>(i%8)) != 0 {
				dst = append(dst, '1')
			} else {
				dst = append(dst, '0')
			}
		}
		return dst, nil
	case textUint:
		switch len(b) {
		case 4:
			return strconv.AppendUint(dst, uint64(binary.BigEndian.Uint32(b)), 10), nil
		case 8:
			return strconv.AppendUint(dst, binary.BigEndian.Uint64(b), 10), nil
		}
		return nil, lengthError(t.Name, len(b))
	case textHex:
		n := len(dst)
		dst = hex.AppendEncode(dst, b)
		for i := n; i < len(dst); i++ {
			if c := dst[i]; c >= 'a' && c <= 'f' {
				dst[i] = c - 'a' + 'A'
			}
		}
		return dst, nil
	case textPgx:
		if d.types == nil {
			d.types = pgtype.NewMap()
		}
		typ, ok := d.types.TypeForOID(t.OID)
		if !ok {
			return nil, fmt.Errorf("type %s is unknown", t.Name)
		}
		val, err := typ.Codec.DecodeValue(d.types, t.OID, pgtype.BinaryFormatCode, b)
		if err != nil {
			return nil, err
		}
		if rc, ok := typ.Codec.(*pgtype.RangeCodec); ok {
			if r, ok := val.(pgtype.Range[any]); ok {
				return d.appendRange(dst, rc.ElementType.OID, r)
			}
		}
		return d.types.Encode(t.OID, pgtype.TextFormatCode, val, dst)
	case textArray:
		return d.appendArray(dst, t, b)
	}
	return nil, fmt.Errorf("no text for kind %d", k)
}

const hexDigits = "0123456789abcdef"

// appendRange writes a range as range_out does: empty, or its bounds in brackets, each
// quoted when it needs it.
func (d *Decoder) appendRange(dst []byte, elem uint32, r pgtype.Range[any]) ([]byte, error) {
	if r.LowerType == pgtype.Empty {
		return append(dst, "empty"...), nil
	}
	bound := func(v any, t pgtype.BoundType) error {
		if t == pgtype.Unbounded {
			return nil
		}
		e, err := d.types.Encode(elem, pgtype.TextFormatCode, v, nil)
		if err != nil {
			return err
		}
		quote := len(e) == 0
		for _, c := range e {
			if c == '"' || c == '\\' || c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == ' ' || (c >= '\t' && c <= '\r') {
				quote = true
			}
		}
		if !quote {
			dst = append(dst, e...)
			return nil
		}
		dst = append(dst, '"')
		for _, c := range e {
			if c == '"' || c == '\\' {
				dst = append(dst, c)
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
		return nil
	}
	if r.LowerType == pgtype.Inclusive {
		dst = append(dst, '[')
	} else {
		dst = append(dst, '(')
	}
	if err := bound(r.Lower, r.LowerType); err != nil {
		return nil, err
	}
	dst = append(dst, ',')
	if err := bound(r.Upper, r.UpperType); err != nil {
		return nil, err
	}
	if r.UpperType == pgtype.Inclusive {
		dst = append(dst, ']')
	} else {
		dst = append(dst, ')')
	}
	return dst, nil
}

// appendInet writes inet and cidr values as PostgreSQL's network_out does: the address,
// then /bits unless an inet value covers a single host.
func appendInet(dst, b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, lengthError("inet", len(b))
	}
	family, bits, cidr, n := b[0], int(b[1]), b[2] != 0, int(b[3])
	addr := b[4:]
	if len(addr) != n {
		return nil, lengthError("inet", len(b))
	}
	full := 32
	switch {
	case family == 2 && n == 4: // PGSQL_AF_INET
		for i, x := range addr {
			if i > 0 {
				dst = append(dst, '.')
			}
			dst = strconv.AppendUint(dst, uint64(x), 10)
		}
	case family == 3 && n == 16: // PGSQL_AF_INET6
		full = 128
		dst = appendIPv6(dst, addr)
	default:
		return nil, fmt.Errorf("inet value of unknown family %d", family)
	}
	if cidr || bits != full {
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(bits), 10)
	}
	return dst, nil
}

// appendIPv6 writes an IPv6 address as PostgreSQL's inet_net_ntop does: the longest run of
// two or more zero groups as ::, and an IPv4 tail for IPv4-compatible and IPv4-mapped
// addresses.
func appendIPv6(dst, a []byte) []byte {
	var w [8]uint16
	for i := range w {
		w[i] = binary.BigEndian.Uint16(a[2*i:])
	}
	best, bestLen, cur, curLen := -1, 0, -1, 0
	for i, x := range w {
		if x == 0 {
			if cur < 0 {
				cur, curLen = i, 1
			} else {
				curLen++
			}
			if curLen > bestLen {
				best, bestLen = cur, curLen
			}
		} else {
			cur = -1
		}
	}
	if bestLen < 2 {
		best = -1
	}
	for i := 0; i < 8; i++ {
		if best >= 0 && i >= best && i < best+bestLen {
			if i == best {
				dst = append(dst, ':')
			}
			continue
		}
		if i > 0 {
			dst = append(dst, ':')
		}
		if i == 6 && best == 0 && (bestLen == 6 || (bestLen == 5 && w[5] == 0xffff)) {
			ip := netip.AddrFrom4([4]byte{a[12], a[13], a[14], a[15]})
			return ip.AppendTo(dst)
		}
		dst = strconv.AppendUint(dst, uint64(w[i]), 16)
	}
	if best >= 0 && best+bestLen == 8 {
		dst = append(dst, ':')
	}
	return dst
}

// appendInterval writes an interval as PostgreSQL does in its default IntervalStyle,
// postgres: "1 year 2 mons 3 days 04:05:06.5".
func appendInterval(dst []byte, us int64, days, months int32) []byte {
	zero, before := true, false
	part := func(v int64, unit string) {
		if v == 0 {
			return
		}
		if !zero {
			dst = append(dst, ' ')
		}
		if before && v > 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, ' ')
		dst = append(dst, unit...)
		if v != 1 {
			dst = append(dst, 's')
		}
		before, zero = v < 0, false
	}
	part(int64(months/12), "year")
	part(int64(months%12), "mon")
	part(int64(days), "day")
	hour := us / 3600000000
	us -= hour * 3600000000
	min := us / 60000000
	us -= min * 60000000
	sec := us / 1000000
	fsec := us - sec*1000000
	if zero || hour != 0 || min != 0 || sec != 0 || fsec != 0 {
		if !zero {
			dst = append(dst, ' ')
		}
		switch {
		case hour < 0 || min < 0 || sec < 0 || fsec < 0:
			dst = append(dst, '-')
		case before:
			dst = append(dst, '+')
		}
		dst = appendPadded(dst, abs(hour))
		dst = append(dst, ':')
		dst = appendPadded(dst, abs(min))
		dst = append(dst, ':')
		dst = appendPadded(dst, abs(sec))
		if fsec != 0 {
			f := strconv.AppendInt(nil, 1000000+abs(fsec), 10)[1:]
			dst = append(dst, '.')
			dst = append(dst, strings.TrimRight(string(f), "0")...)
		}
	}
	return dst
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendPadded writes a non-negative number with at least two digits.
func appendPadded(dst []byte, v int64) []byte {
	if v < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, v, 10)
}

// appendArray writes an array in PostgreSQL's text syntax, as array_out does: {a,b},
// nested braces for more dimensions, the bounds first when one does not start at 1,
// elements quoted when they need it.
func (d *Decoder) appendArray(dst []byte, t *TypeInfo, b []byte) ([]byte, error) {
	if len(b) < 12 {
		return nil, lengthError("array", len(b))
	}
	ndim := int(int32(binary.BigEndian.Uint32(b)))
	if ndim == 0 {
		return append(dst, "{}"...), nil
	}
	if ndim < 0 || ndim > 6 || len(b) < 12+8*ndim {
		return nil, lengthError("array", len(b))
	}
	ek, _ := textKindOf(t.Elem)
	dims := make([]int, ndim)
	bounds := false
	total := 1
	for i := range dims {
		dims[i] = int(int32(binary.BigEndian.Uint32(b[12+8*i:])))
		if lb := int32(binary.BigEndian.Uint32(b[16+8*i:])); lb != 1 {
			bounds = true
		}
		if dims[i] < 0 {
			return nil, lengthError("array", len(b))
		}
		total *= dims[i]
	}
	if bounds {
		for i := range dims {
			lb := int64(int32(binary.BigEndian.Uint32(b[16+8*i:])))
			dst = append(dst, '[')
			dst = strconv.AppendInt(dst, lb, 10)
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, lb+int64(dims[i])-1, 10)
			dst = append(dst, ']')
		}
		dst = append(dst, '=')
	}
	delim := byte(',')
	if t.Elem.OID == pgtype.BoxOID {
		delim = ';'
	}
	p := 12 + 8*ndim
	var elem []byte
	// idx counts, per dimension, the elements written of the current sub-array
	idx := make([]int, ndim)
	for i := 0; i < ndim; i++ {
		dst = append(dst, '{')
	}
	for n := 0; n < total; n++ {
		if p+4 > len(b) {
			return nil, lengthError("array", len(b))
		}
		l := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if l < 0 {
			dst = append(dst, "NULL"...)
		} else {
			if p+l > len(b) {
				return nil, lengthError("array", len(b))
			}
			var err error
			if elem, err = d.appendText(elem[:0], ek, t.Elem, b[p:p+l]); err != nil {
				return nil, fmt.Errorf("element %d: %w", n+1, err)
			}
			p += l
			dst = appendArrayElem(dst, elem, delim)
		}
		// close finished sub-arrays, open the next ones
		j := ndim - 1
		idx[j]++
		closed := 0
		for j > 0 && idx[j] == dims[j] {
			idx[j] = 0
			dst = append(dst, '}')
			closed++
			j--
			idx[j]++
		}
		if n < total-1 {
			dst = append(dst, delim)
			for ; closed > 0; closed-- {
				dst = append(dst, '{')
			}
		}
	}
	dst = append(dst, '}')
	return dst, nil
}

// appendArrayElem writes one element of an array's text, quoted as array_out quotes it.
func appendArrayElem(dst, e []byte, delim byte) []byte {
	quote := len(e) == 0 || strings.EqualFold(string(e), "NULL")
	for _, c := range e {
		if c == '"' || c == '\\' || c == '{' || c == '}' || c == delim || c == ' ' || (c >= '\t' && c <= '\r') {
			quote = true
			break
		}
	}
	if !quote {
		return append(dst, e...)
	}
	dst = append(dst, '"')
	for _, c := range e {
		if c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return append(dst, '"')
}
