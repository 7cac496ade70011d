// Package jsontext writes text as JSON strings, as Jackson writes them: one writer for the
// row values, formats and sinks that write JSON, the Debezium envelope, the MySQL binary log's
// JSON documents and the config's JSON.
package jsontext

import (
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789ABCDEF"

// Append appends the text s as a JSON string the way Jackson (SeaTunnel's JSON library)
// writes it: quotes and backslashes escaped, \b \t \n \f \r in short form, other control
// characters as \u00XX, everything else (UTF-8 included) as is. A byte that is not UTF-8
// becomes U+FFFD, as a Java string decoded from it holds, so the output is always JSON.
// ASCII text is read once; other text is checked for UTF-8 once more. Nothing allocates but
// the growth of buf.
func Append(buf []byte, s string) []byte {
	mark := len(buf)
	buf = append(buf, '"')
	start := 0
	var high byte // every byte or'ed: at or above utf8.RuneSelf when s is not ASCII
	for i := 0; i < len(s); i++ {
		c := s[i]
		high |= c
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = appendEscape(append(buf, s[start:i]...), c)
		start = i + 1
	}
	if high >= utf8.RuneSelf && !utf8.ValidString(s) {
		return appendReplacing(buf[:mark], s)
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// AppendBytes appends the text b as Append does, without copying it into a string: the
// string viewing b is read during the call only, so b must not lie in buf's spare capacity.
func AppendBytes(buf []byte, b []byte) []byte {
	return Append(buf, unsafe.String(unsafe.SliceData(b), len(b)))
}

// appendReplacing is Append for text that is not UTF-8, rune by rune.
func appendReplacing(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, s[i:i+n]...)
			}
			i += n
			continue
		case c >= 0x20 && c != '"' && c != '\\':
			buf = append(buf, c)
		default:
			buf = appendEscape(buf, c)
		}
		i++
	}
	return append(buf, '"')
}

// appendEscape appends the escape of a quote, a backslash or a control character.
func appendEscape(buf []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(buf, '\\', c)
	case '\b':
		return append(buf, '\\', 'b')
	case '\t':
		return append(buf, '\\', 't')
	case '\n':
		return append(buf, '\\', 'n')
	case '\f':
		return append(buf, '\\', 'f')
	case '\r':
		return append(buf, '\\', 'r')
	}
	return append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}
