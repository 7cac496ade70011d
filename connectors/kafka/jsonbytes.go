package kafka

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// errSlowPath is what the tree reader (jsontree.go) says of a record it leaves to
// hocon.ParseJSON.
var errSlowPath = errors.New("the record needs the general JSON path")

func skipSpace(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\n' || b[p] == '\r') {
		p++
	}
	return p
}

func hasWord(b []byte, p int, w string) bool {
	return len(b)-p >= len(w) && string(b[p:p+len(w)]) == w
}

// plainString reads the string at p when it has no escapes and is valid UTF-8 without
// control characters: its content and the position after it.
func plainString(b []byte, p int) ([]byte, int, bool) {
	if p >= len(b) || b[p] != '"' {
		return nil, p, false
	}
	start := p + 1
	ascii := true
	for i := start; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			s := b[start:i]
			if !ascii && !utf8.Valid(s) {
				return nil, p, false
			}
			return s, i + 1, true
		case c == '\\' || c < 0x20:
			return nil, p, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, p, false
}

// numberEnd is the end of the JSON number at p, or -1 when there is none.
func numberEnd(b []byte, p int) int {
	i := p
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skipString steps over a string, escapes and all; one encoding/json would refuse is left
// to the general path.
func skipString(b []byte, p int) (int, error) {
	if _, next, ok := plainString(b, p); ok {
		return next, nil
	}
	for i := p + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			if !json.Valid(b[p : i+1]) {
				return p, errSlowPath
			}
			return i + 1, nil
		}
	}
	return p, errSlowPath
}
