package kafka

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// A Kafka → Kafka job in the json format on both sides reads every record into fields and
// writes the same bytes again when the record is already in the form the sink writes: the
// schema's fields in its order, nothing between the tokens, each value as the sink writes
// it. canonicalJSON recognises such records in one pass without making values, so the
// source can hand them on as they are (connector.EncodedReader) and the sink writes them
// unchanged (connector.EncodedWriter); any other record takes the ordinary path.

// jsonEncoding names the json encoding of rows of rt, or "" when rt has a column whose
// canonical form canonicalJSON does not check (only the scalars it knows) or two columns of
// one name.
func jsonEncoding(rt *types.RowType) string {
	var b strings.Builder
	b.WriteString("json")
	seen := make(map[string]bool, rt.Len())
	for i, n := range rt.Names {
		if seen[n] || !canonicalKind(rt.Types[i].Kind) {
			return ""
		}
		seen[n] = true
		b.WriteByte(' ')
		b.Write(row.AppendJSONString(nil, n))
		b.WriteByte(':')
		b.WriteString(rt.Types[i].String())
	}
	return b.String()
}

func canonicalKind(k types.Kind) bool {
	switch k {
	case types.String, types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Double:
		return true
	}
	return false
}

// canonicalJSON matches the records that are exactly what jsonEncoder writes for the row
// the json decoder reads from them: decoding such a record and encoding the row gives the
// record back (FuzzCanonicalJSON holds it to that).
type canonicalJSON struct {
	prefix [][]byte // `{"name":` for the first field, `,"name":` for the others
	kinds  []types.Kind
}

func newCanonicalJSON(rt *types.RowType) *canonicalJSON {
	if jsonEncoding(rt) == "" || rt.Len() == 0 {
		return nil
	}
	c := &canonicalJSON{kinds: make([]types.Kind, rt.Len())}
	for i, n := range rt.Names {
		p := []byte{','}
		if i == 0 {
			p[0] = '{'
		}
		p = append(row.AppendJSONString(p, n), ':')
		c.prefix = append(c.prefix, p)
		c.kinds[i] = rt.Types[i].Kind
	}
	return c
}

// match reports whether b is a canonical record.
func (c *canonicalJSON) match(b []byte) bool {
	p := 0
	for i, pre := range c.prefix {
		if !bytes.HasPrefix(b[p:], pre) {
			return false
		}
		p += len(pre)
		if hasWord(b, p, "null") {
			p += 4
			continue
		}
		var ok bool
		switch c.kinds[i] {
		case types.String:
			p, ok = canonicalString(b, p)
		case types.Boolean:
			switch {
			case hasWord(b, p, "true"):
				p, ok = p+4, true
			case hasWord(b, p, "false"):
				p, ok = p+5, true
			}
		case types.TinyInt:
			p, ok = canonicalInt(b, p, 2)
		case types.SmallInt:
			p, ok = canonicalInt(b, p, 4)
		case types.Int:
			p, ok = canonicalInt(b, p, 9)
		case types.BigInt:
			p, ok = canonicalInt(b, p, 18)
		case types.Double:
			p, ok = canonicalDouble(b, p)
		}
		if !ok {
			return false
		}
	}
	return p == len(b)-1 && b[p] == '}'
}

// canonicalString reads a string the sink writes as it is: no escapes, no control
// characters, valid UTF-8.
func canonicalString(b []byte, p int) (int, bool) {
	if p >= len(b) || b[p] != '"' {
		return p, false
	}
	ascii := true
	for i := p + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, ascii || utf8.Valid(b[p+1:i])
		case c == '\\' || c < 0x20:
			return p, false
		case c >= 0x80:
			ascii = false
		}
	}
	return p, false
}

// canonicalInt reads an integer as strconv writes it, of at most max digits (so it is in
// the column's range): no leading zeros, no plus sign, no "-0".
func canonicalInt(b []byte, p, max int) (int, bool) {
	if p < len(b) && b[p] == '-' {
		p++
		if p < len(b) && b[p] == '0' {
			return p, false
		}
	}
	if p < len(b) && b[p] == '0' {
		p++
		return p, p >= len(b) || b[p] < '0' || b[p] > '9'
	}
	end := digits(b, p)
	return end, end > p && end-p <= max
}

// canonicalDouble reads a double as the sink writes it (row.AppendJavaFloat, Java's
// Double.toString) in its plain range, 1e-3 <= |d| < 1e7, and zero: an integer part without
// leading zeros, a point, a fraction without trailing zeros (one zero when it is zero). It
// accepts at most 15 significant digits: a decimal that short is the only one of its length
// or shorter that reads as its double, so it is the double's shortest form, which the sink
// writes.
func canonicalDouble(b []byte, p int) (int, bool) {
	if p < len(b) && b[p] == '-' {
		p++
	}
	intStart := p
	intEnd := digits(b, p)
	n := intEnd - intStart
	if n == 0 || n > 7 || (n > 1 && b[intStart] == '0') || intEnd >= len(b) || b[intEnd] != '.' {
		return p, false
	}
	fracStart := intEnd + 1
	fracEnd := digits(b, fracStart)
	f := fracEnd - fracStart
	if f == 0 || (f > 1 && b[fracEnd-1] == '0') {
		return p, false
	}
	if fracEnd < len(b) && (b[fracEnd] == 'e' || b[fracEnd] == 'E') {
		return p, false
	}
	if b[intStart] != '0' {
		return fracEnd, n+f <= 15
	}
	// 0.xxx: zero itself, or at least 1e-3 (at most two zeros after the point)
	if f == 1 && b[fracStart] == '0' {
		return fracEnd, true
	}
	z := 0
	for z < f && b[fracStart+z] == '0' {
		z++
	}
	return fracEnd, z <= 2 && f-z <= 15
}
