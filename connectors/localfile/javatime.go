package localfile

import (
	"fmt"
	"time"
)

// javaTimeFormat is a java.time DateTimeFormatter pattern (`yyyy.MM.dd`, `yyyyMMdd_HHmmss`,
// `yyyy-MM-dd'T'HH`) compiled into the steps that format a Go time.Time the same way. Go's
// own layouts cannot quote literal text (a literal "1" or "Jan" would be read as a field),
// so the pattern is translated step by step instead of into one layout string.
type javaTimeFormat struct {
	steps []timeStep
}

type timeStep struct {
	lit   string // literal text when field is 0
	field byte   // the pattern letter
	count int    // how many times it was repeated
}

// parseJavaTimeFormat compiles a pattern, or says which letter it does not support.
func parseJavaTimeFormat(p string) (*javaTimeFormat, error) {
	f := &javaTimeFormat{}
	lit := []byte{}
	flush := func() {
		if len(lit) > 0 {
			f.steps = append(f.steps, timeStep{lit: string(lit)})
			lit = lit[:0]
		}
	}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			// '' is a quote; 'text' is literal text in which '' is a quote
			if i+1 < len(p) && p[i+1] == '\'' {
				lit = append(lit, '\'')
				i += 2
				continue
			}
			j := i + 1
			for {
				if j >= len(p) {
					return nil, fmt.Errorf("pattern %q has an unterminated quote", p)
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						lit = append(lit, '\'')
						j += 2
						continue
					}
					break
				}
				lit = append(lit, p[j])
				j++
			}
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			n := 1
			for i+n < len(p) && p[i+n] == c {
				n++
			}
			if !supportedLetter(c) {
				return nil, fmt.Errorf("pattern %q: letter %q is not supported (use y, u, M, L, d, D, E, a, H, h, k, K, m, s, S, n, Q, z, Z, X, x, V and 'quoted text')", p, string(c))
			}
			if c == 'S' && n > 9 {
				return nil, fmt.Errorf("pattern %q: at most 9 fraction digits (S)", p)
			}
			flush()
			f.steps = append(f.steps, timeStep{field: c, count: n})
			i += n
		case c == '[' || c == ']' || c == '{' || c == '}' || c == '#':
			return nil, fmt.Errorf("pattern %q: %q is reserved in java.time patterns; quote it", p, string(c))
		default:
			lit = append(lit, c)
			i++
		}
	}
	flush()
	return f, nil
}

func supportedLetter(c byte) bool {
	switch c {
	case 'y', 'u', 'M', 'L', 'd', 'D', 'E', 'a', 'H', 'h', 'k', 'K', 'm', 's', 'S', 'n', 'Q', 'z', 'Z', 'X', 'x', 'V':
		return true
	}
	return false
}

var shortMonths = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// appendNum writes n padded to count digits (count 1 means no padding).
func appendNum(b []byte, n int64, count int) []byte { return appendPad(b, n, count) }

// Append formats t.
func (f *javaTimeFormat) Append(b []byte, t time.Time) []byte {
	for _, s := range f.steps {
		if s.field == 0 {
			b = append(b, s.lit...)
			continue
		}
		n := s.count
		switch s.field {
		case 'y', 'u':
			y := int64(t.Year())
			if n == 2 {
				b = appendPad(b, (y%100+100)%100, 2)
			} else {
				b = appendNum(b, y, n)
			}
		case 'M', 'L':
			switch {
			case n >= 4:
				b = append(b, t.Month().String()...)
			case n == 3:
				b = append(b, shortMonths[t.Month()-1]...)
			default:
				b = appendNum(b, int64(t.Month()), n)
			}
		case 'd':
			b = appendNum(b, int64(t.Day()), n)
		case 'D':
			b = appendNum(b, int64(t.YearDay()), n)
		case 'Q':
			b = appendNum(b, int64(t.Month()-1)/3+1, n)
		case 'E':
			if n >= 4 {
				b = append(b, t.Weekday().String()...)
			} else {
				b = append(b, t.Weekday().String()[:3]...)
			}
		case 'a':
			if t.Hour() < 12 {
				b = append(b, "AM"...)
			} else {
				b = append(b, "PM"...)
			}
		case 'H':
			b = appendNum(b, int64(t.Hour()), n)
		case 'k':
			h := t.Hour()
			if h == 0 {
				h = 24
			}
			b = appendNum(b, int64(h), n)
		case 'h':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			b = appendNum(b, int64(h), n)
		case 'K':
			b = appendNum(b, int64(t.Hour()%12), n)
		case 'm':
			b = appendNum(b, int64(t.Minute()), n)
		case 's':
			b = appendNum(b, int64(t.Second()), n)
		case 'S':
			b = appendFrac(b, int64(t.Nanosecond()), n)
		case 'n':
			b = appendNum(b, int64(t.Nanosecond()), n)
		case 'z':
			name, _ := t.Zone()
			b = append(b, name...)
		case 'V':
			b = append(b, t.Location().String()...)
		case 'Z':
			b = appendOffset(b, t, n >= 5, false, n == 4)
		case 'X', 'x':
			b = appendOffset(b, t, n >= 3, s.field == 'X', false)
		}
	}
	return b
}

// appendOffset writes the zone offset: +HHMM, or +HH:MM when colon is set; zulu writes Z
// for a zero offset; gmt prefixes GMT.
func appendOffset(b []byte, t time.Time, colon, zulu, gmt bool) []byte {
	_, off := t.Zone()
	if off == 0 && zulu {
		return append(b, 'Z')
	}
	if gmt {
		b = append(b, "GMT"...)
	}
	if off < 0 {
		b = append(b, '-')
		off = -off
	} else {
		b = append(b, '+')
	}
	b = append2(b, int64(off/3600))
	if colon {
		b = append(b, ':')
	}
	return append2(b, int64(off/60%60))
}
