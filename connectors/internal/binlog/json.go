package binlog

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/strait-dev/strait/internal/jsontext"
)

// MySQL's binary JSON (the JSON column of MySQL 5.7 and 8; MariaDB's JSON is text): a type
// byte, then the value.
const (
	jsonSmallObject = 0x00
	jsonLargeObject = 0x01
	jsonSmallArray  = 0x02
	jsonLargeArray  = 0x03
	jsonLiteral     = 0x04
	jsonInt16       = 0x05
	jsonUint16      = 0x06
	jsonInt32       = 0x07
	jsonUint32      = 0x08
	jsonInt64       = 0x09
	jsonUint64      = 0x0a
	jsonDouble      = 0x0b
	jsonString      = 0x0c
	jsonOpaque      = 0x0f
)

// jsonMaxDepth bounds the nesting (MySQL's own limit is 100).
const jsonMaxDepth = 150

var errJSON = errors.New("malformed binary JSON")

// appendJSON appends the JSON text of a binary JSON document, formatted as MySQL prints it
// ({"a": 1, "b": [true, null]}). An empty document is JSON null.
func appendJSON(dst *[]byte, doc []byte) error {
	if len(doc) == 0 {
		*dst = append(*dst, "null"...)
		return nil
	}
	out, err := jsonValue(*dst, doc[0], doc[1:], 0)
	if err != nil {
		return err
	}
	*dst = out
	return nil
}

// jsonValue appends the value of type t whose data starts at b.
func jsonValue(out []byte, t byte, b []byte, depth int) ([]byte, error) {
	if depth > jsonMaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", errJSON, jsonMaxDepth)
	}
	switch t {
	case jsonSmallObject, jsonLargeObject, jsonSmallArray, jsonLargeArray:
		return jsonContainer(out, t, b, depth)
	case jsonLiteral:
		if len(b) < 1 {
			return nil, errJSON
		}
		switch b[0] {
		case 0:
			return append(out, "null"...), nil
		case 1:
			return append(out, "true"...), nil
		case 2:
			return append(out, "false"...), nil
		}
		return nil, fmt.Errorf("%w: literal %d", errJSON, b[0])
	case jsonInt16, jsonUint16:
		if len(b) < 2 {
			return nil, errJSON
		}
		n := binary.LittleEndian.Uint16(b)
		if t == jsonInt16 {
			return strconv.AppendInt(out, int64(int16(n)), 10), nil
		}
		return strconv.AppendUint(out, uint64(n), 10), nil
	case jsonInt32, jsonUint32:
		if len(b) < 4 {
			return nil, errJSON
		}
		n := binary.LittleEndian.Uint32(b)
		if t == jsonInt32 {
			return strconv.AppendInt(out, int64(int32(n)), 10), nil
		}
		return strconv.AppendUint(out, uint64(n), 10), nil
	case jsonInt64, jsonUint64:
		if len(b) < 8 {
			return nil, errJSON
		}
		n := binary.LittleEndian.Uint64(b)
		if t == jsonInt64 {
			return strconv.AppendInt(out, int64(n), 10), nil
		}
		return strconv.AppendUint(out, n, 10), nil
	case jsonDouble:
		if len(b) < 8 {
			return nil, errJSON
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(b))
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%w: double %v", errJSON, f)
		}
		s := strconv.AppendFloat(out, f, 'g', -1, 64)
		return s, nil
	case jsonString:
		n, used, err := jsonLength(b)
		if err != nil || n > len(b)-used {
			return nil, errJSON
		}
		return jsontext.AppendBytes(out, b[used:used+n]), nil
	case jsonOpaque:
		return jsonOpaqueValue(out, b)
	}
	return nil, fmt.Errorf("%w: value type 0x%02x", errJSON, t)
}

// jsonContainer appends an object or an array: a count and a size, the keys' offsets and
// lengths (objects), the values' types and offsets (or the values themselves when they
// fit), then the keys and values.
func jsonContainer(out []byte, t byte, b []byte, depth int) ([]byte, error) {
	large := t == jsonLargeObject || t == jsonLargeArray
	object := t == jsonSmallObject || t == jsonLargeObject
	w := 2
	if large {
		w = 4
	}
	word := func(at int) (int, bool) {
		if at < 0 || at+w > len(b) {
			return 0, false
		}
		if large {
			v := binary.LittleEndian.Uint32(b[at:])
			return int(v), v <= math.MaxInt32
		}
		return int(binary.LittleEndian.Uint16(b[at:])), true
	}
	count, ok1 := word(0)
	size, ok2 := word(w)
	if !ok1 || !ok2 || size > len(b) {
		return nil, errJSON
	}
	b = b[:size]
	keyEntry := w + 2
	valEntry := 1 + w
	header := 2 * w
	if object {
		header += count * keyEntry
	}
	if count > size || header+count*valEntry > size {
		return nil, errJSON
	}
	open, close := byte('['), byte(']')
	if object {
		open, close = '{', '}'
	}
	out = append(out, open)
	for i := 0; i < count; i++ {
		if i > 0 {
			out = append(out, ", "...)
		}
		if object {
			at := 2*w + i*keyEntry
			off, ok := word(at)
			if !ok || at+w+2 > len(b) {
				return nil, errJSON
			}
			n := int(binary.LittleEndian.Uint16(b[at+w:]))
			if off+n > len(b) {
				return nil, errJSON
			}
			out = jsontext.AppendBytes(out, b[off:off+n])
			out = append(out, ": "...)
		}
		at := header + i*valEntry
		vt := b[at]
		var err error
		if inlined(vt, large) {
			out, err = jsonValue(out, vt, b[at+1:at+1+w], depth+1)
		} else {
			off, ok := word(at + 1)
			if !ok || off >= len(b) {
				return nil, errJSON
			}
			out, err = jsonValue(out, vt, b[off:], depth+1)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(out, close), nil
}

// inlined reports whether a value of type t sits in its entry rather than at an offset.
func inlined(t byte, large bool) bool {
	switch t {
	case jsonLiteral, jsonInt16, jsonUint16:
		return true
	case jsonInt32, jsonUint32:
		return large
	}
	return false
}

// jsonLength reads a variable-length length: seven bits a byte, low bits first.
func jsonLength(b []byte) (n, used int, err error) {
	for i := 0; i < 5 && i < len(b); i++ {
		n |= int(b[i]&0x7F) << (7 * i)
		if b[i]&0x80 == 0 {
			return n, i + 1, nil
		}
	}
	return 0, 0, errJSON
}

// jsonOpaqueValue appends a value of another MySQL type kept in a JSON document: DECIMAL,
// DATE, TIME, DATETIME and TIMESTAMP as MySQL prints them, anything else as
// "base64:typeN:..." as MySQL's JSON_UNQUOTE shows them.
func jsonOpaqueValue(out []byte, b []byte) ([]byte, error) {
	if len(b) < 1 {
		return nil, errJSON
	}
	ft := b[0]
	n, used, err := jsonLength(b[1:])
	if err != nil || n > len(b)-1-used {
		return nil, errJSON
	}
	data := b[1+used : 1+used+n]
	switch ft {
	case TypeNewDecimal:
		if len(data) < 2 {
			return nil, errJSON
		}
		var text []byte
		if _, err := appendDecimal(&text, data[2:], int(data[0]), int(data[1])); err != nil {
			return nil, err
		}
		return append(out, text...), nil
	case TypeDate, TypeTime, TypeDatetime, TypeTimestamp, TypeDatetime2, TypeTime2, TypeTimestamp2:
		if len(data) < 8 {
			return nil, errJSON
		}
		packed := int64(binary.LittleEndian.Uint64(data))
		out = append(out, '"')
		out = appendPackedTemporal(out, ft, packed)
		return append(out, '"'), nil
	}
	out = append(out, `"base64:type`...)
	out = strconv.AppendInt(out, int64(ft), 10)
	out = append(out, ':')
	out = base64.StdEncoding.AppendEncode(out, data)
	return append(out, '"'), nil
}

// appendPackedTemporal formats MySQL's in-memory packed temporal value: (seconds part << 24)
// + microseconds, with year*13+month, day, hour, minute and second in the seconds part.
func appendPackedTemporal(out []byte, ft byte, packed int64) []byte {
	if packed < 0 {
		out = append(out, '-')
		packed = -packed
	}
	micros := packed % (1 << 24)
	ip := packed >> 24
	if ft == TypeTime || ft == TypeTime2 {
		h, m, s := ip>>12%(1<<10), ip>>6%64, ip%64
		out = appendPadded(out, h, 2)
		out = append(out, ':')
		out = appendPadded(out, m, 2)
		out = append(out, ':')
		out = appendPadded(out, s, 2)
	} else {
		ymd, hms := ip>>17, ip%(1<<17)
		ym := ymd >> 5
		out = appendPadded(out, ym/13, 4)
		out = append(out, '-')
		out = appendPadded(out, ym%13, 2)
		out = append(out, '-')
		out = appendPadded(out, ymd%32, 2)
		if ft == TypeDate {
			return out
		}
		out = append(out, ' ')
		out = appendPadded(out, hms>>12, 2)
		out = append(out, ':')
		out = appendPadded(out, hms>>6%64, 2)
		out = append(out, ':')
		out = appendPadded(out, hms%64, 2)
	}
	if micros != 0 {
		out = append(out, '.')
		out = appendPadded(out, micros, 6)
	}
	return out
}
