package jsonpath

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/internal/jsonscan"
	"github.com/strait-dev/strait/row"
)

// SeaTunnel's JsonPath reads its input with json-smart in permissive mode, so jobs written
// for it may feed text that is not JSON: unquoted names and values ({data: {name: a b}}),
// single-quoted strings, leading zeros, NaN, commas with nothing between them, and text after
// the value. Permissive rewrites such text as the JSON it stands for, following json-smart's
// rules, so that the rest of the transform works on JSON alone. It is only called for text
// that Check rejects.
//
// The rules: an unquoted value runs to the next delimiter of its context (',' or '}' in an
// object, ',' or ']' in an array, the end at the top) and is trimmed; true, false and null
// are themselves, NaN is a number, anything else is a string. An unquoted name runs to the
// next ':'. A value that starts like a number but goes on with something else is a string.
// Quoted strings take " or ' and the escapes \t \n \r \f \b \\ \/ \' \" \uXXXX \xXX (another
// escaped character is dropped). Commas may repeat; text after the top-level value is ignored.
func Permissive(s string) (string, error) {
	p := &permissive{s: s, out: make([]byte, 0, len(s)+len(s)/4)}
	p.space()
	if p.i >= len(s) {
		return "", fmt.Errorf("invalid JSON: no value")
	}
	if err := p.value(stopTop, 0); err != nil {
		return "", err
	}
	return string(p.out), nil
}

type permissive struct {
	s   string
	i   int
	out []byte
}

// the delimiters that end an unquoted value in each context
type stopSet uint8

const (
	stopTop    stopSet = iota // only the end of the text
	stopObject                // , }
	stopArray                 // , ]
	stopName                  // :
)

func (st stopSet) stops(c byte) bool {
	switch st {
	case stopObject:
		return c == ',' || c == '}'
	case stopArray:
		return c == ',' || c == ']'
	case stopName:
		return c == ':'
	}
	return false
}

func (p *permissive) space() {
	for p.i < len(p.s) && jsonscan.IsSpace(p.s[p.i]) {
		p.i++
	}
}

func (p *permissive) fail(what string) error {
	if p.i >= len(p.s) {
		return fmt.Errorf("invalid JSON: unexpected end of text, expected %s", what)
	}
	return fmt.Errorf("invalid JSON: unexpected %s at offset %d, expected %s", jsonscan.Describe(p.s, p.i), p.i, what)
}

func (p *permissive) value(st stopSet, depth int) error {
	p.space()
	if p.i >= len(p.s) {
		return p.fail("a value")
	}
	switch c := p.s[p.i]; {
	case c == ':' || c == '}' || c == ']':
		return p.fail("a value")
	case c == '{':
		if depth >= maxDepth {
			return fmt.Errorf("invalid JSON: nested deeper than %d levels", maxDepth)
		}
		return p.object(depth + 1)
	case c == '[':
		if depth >= maxDepth {
			return fmt.Errorf("invalid JSON: nested deeper than %d levels", maxDepth)
		}
		return p.array(depth + 1)
	case c == '"' || c == '\'':
		text, err := p.quoted()
		if err != nil {
			return err
		}
		p.out = row.AppendJSONString(p.out, text)
	case c == '-' || '0' <= c && c <= '9':
		p.number(st)
	default:
		// NaN, which JSON cannot write, stays the string "NaN" (a double column reads it)
		switch text := p.unquoted(st); text {
		case "true", "false", "null":
			p.out = append(p.out, text...)
		default:
			p.out = row.AppendJSONString(p.out, text)
		}
	}
	return nil
}

func (p *permissive) object(depth int) error {
	return p.items('}', "a member or '}'", func() error {
		switch p.s[p.i] {
		case ':', '[', ']', '{':
			return p.fail("a member name")
		}
		var name string
		if c := p.s[p.i]; c == '"' || c == '\'' {
			var err error
			if name, err = p.quoted(); err != nil {
				return err
			}
		} else {
			name = p.unquoted(stopName)
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return p.fail("':'")
		}
		p.i++
		p.out = row.AppendJSONString(p.out, name)
		p.out = append(p.out, ':')
		if err := p.value(stopObject, depth); err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ',' && p.s[p.i] != '}' {
			return p.fail("',' or '}'")
		}
		return nil
	})
}

func (p *permissive) array(depth int) error {
	return p.items(']', "a value or ']'", func() error {
		switch p.s[p.i] {
		case ':', '}':
			return p.fail("a value")
		}
		return p.value(stopArray, depth)
	})
}

// items reads an object or an array from its opening bracket to close: each item with item,
// and written with a comma before all but the first; commas may repeat. Reaching the end of
// the text before close fails wanting want.
func (p *permissive) items(close byte, want string, item func() error) error {
	p.out = append(p.out, p.s[p.i])
	p.i++
	for first := true; ; first = false {
		p.space()
		for p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			p.space()
		}
		switch {
		case p.i >= len(p.s):
			return p.fail(want)
		case p.s[p.i] == close:
			p.i++
			p.out = append(p.out, close)
			return nil
		}
		if !first {
			p.out = append(p.out, ',')
		}
		if err := item(); err != nil {
			return err
		}
	}
}

// unquoted reads text up to the next delimiter of st, trimmed as Java's String.trim does.
func (p *permissive) unquoted(st stopSet) string {
	start := p.i
	for p.i < len(p.s) && !st.stops(p.s[p.i]) {
		p.i++
	}
	return strings.TrimFunc(p.s[start:p.i], func(r rune) bool { return r <= ' ' })
}

// number reads a number, or the string a number-like start turns into.
func (p *permissive) number(st stopSet) {
	start := p.i
	i := p.i + 1
	digits := func() {
		for i < len(p.s) && '0' <= p.s[i] && p.s[i] <= '9' {
			i++
		}
	}
	digits()
	if i < len(p.s) && p.s[i] == '.' {
		i++
		digits()
	}
	if i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		i++
		if i < len(p.s) && (p.s[i] == '+' || p.s[i] == '-' || '0' <= p.s[i] && p.s[i] <= '9') {
			i++
			digits()
		} else {
			p.i = start
			p.out = row.AppendJSONString(p.out, p.unquoted(st))
			return
		}
	}
	end := i
	for i < len(p.s) && jsonscan.IsSpace(p.s[i]) {
		i++
	}
	if i < len(p.s) && !st.stops(p.s[i]) {
		p.i = start
		p.out = row.AppendJSONString(p.out, p.unquoted(st))
		return
	}
	p.i = end
	lit := p.s[start:end]
	if num, ok := jsonNumber(lit); ok {
		p.out = append(p.out, num...)
	} else {
		p.out = row.AppendJSONString(p.out, lit)
	}
}

// jsonNumber writes a number json-smart accepts (leading zeros, "1.", "-.5", "-") as JSON.
func jsonNumber(lit string) (string, bool) {
	if end, err := jsonscan.Number(lit, 0); err == nil && end == len(lit) {
		return lit, true
	}
	sign, body := "", lit
	if strings.HasPrefix(body, "-") {
		sign, body = "-", body[1:]
	}
	mant, exp, hasExp := body, "", false
	if k := strings.IndexAny(body, "eE"); k >= 0 {
		mant, exp, hasExp = body[:k], body[k+1:], true
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if intPart = strings.TrimLeft(intPart, "0"); intPart == "" {
		intPart = "0"
	}
	out := sign + intPart
	if hasDot {
		if frac == "" {
			frac = "0"
		}
		out += "." + frac
	}
	if hasExp {
		out += "e" + exp
	}
	if end, err := jsonscan.Number(out, 0); err != nil || end != len(out) {
		return "", false
	}
	return out, true
}

// quoted reads a string in " or ' with json-smart's escapes.
func (p *permissive) quoted() (string, error) {
	q := p.s[p.i]
	start := p.i
	p.i++
	var b []byte
	for {
		if p.i >= len(p.s) {
			p.i = start
			return "", p.fail("a closed string")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return string(b), nil
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				p.i = start
				return "", p.fail("a closed string")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 't', 'n', 'r', 'f', 'b', '\\', '/', '\'', '"':
				b = append(b, jsonscan.Escaped(e))
			case 'u', 'x':
				n := 4
				if e == 'x' {
					n = 2
				}
				if p.i+n > len(p.s) {
					return "", p.fail("hex digits")
				}
				v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil {
					return "", p.fail("hex digits")
				}
				p.i += n
				b = utf8.AppendRune(b, rune(v))
			}
		default:
			b = append(b, c)
			p.i++
		}
	}
}
