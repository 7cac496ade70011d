package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppend(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"a\"b\\c\n\x01é", `"a\"b\\c\n\u0001é"`},
		{"\b\f\r\t\x1f\x7f", "\"\\b\\f\\r\\t\\u001F\x7f\""},
		{"é中😀 € 𝄞", `"é中😀 € 𝄞"`},
		{"\xff", "\"\ufffd\""},
		{"ok \xff bad \xe2\x82 cut\n", "\"ok \ufffd bad \ufffd\ufffd cut\\n\""},
		{"\xc3", "\"\ufffd\""},
	} {
		if got := string(Append(nil, tc.in)); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.in, got, tc.want)
		}
		if got := string(AppendBytes([]byte("x"), []byte(tc.in))); got != "x"+tc.want {
			t.Errorf("%q as bytes after x: %s, want x%s", tc.in, got, tc.want)
		}
		var back string
		if err := json.Unmarshal([]byte(tc.want), &back); err != nil {
			t.Errorf("%s is not JSON: %v", tc.want, err)
		}
	}
	text, buf := []byte(strings.Repeat("naïve \xff text\n", 20)), make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { buf = AppendBytes(buf[:0], text) }); n != 0 {
		t.Errorf("AppendBytes allocates %v times", n)
	}
}

// FuzzAppend checks that whatever the text, the output is JSON that reads back as the text
// (with U+FFFD for bytes that are not UTF-8), as a string and as bytes alike.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\x00\x1f\x7f", "é\xff中", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Append(nil, s)
		if string(AppendBytes(nil, []byte(s))) != string(out) {
			t.Fatalf("%q: bytes and string differ", s)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, out, err)
		}
		if back != replaceEach(s) {
			t.Fatalf("%q: read back as %q", s, back)
		}
	})
}

// replaceEach is s with every byte that is not UTF-8 replaced by U+FFFD, one each.
func replaceEach(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// BenchmarkAppend writes the strings of a JSON document: ASCII names and values,
// text with accents and CJK, and text with quotes and newlines to escape.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"ascii", "order-2024-000123 shipped to 42 Harbour Street, Springfield"},
		{"utf8", "Zoë Saldaña, Ærøskøbing, 東京都千代田区, São Paulo"},
		{"escapes", "line one\n\"quoted\" \\ back\ttab\r\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 256)
			b.SetBytes(int64(len(bc.s)))
			for b.Loop() {
				buf = Append(buf[:0], bc.s)
			}
		})
	}
}
