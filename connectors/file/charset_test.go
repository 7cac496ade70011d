package file

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestCharsetNames(t *testing.T) {
	cases := []struct {
		name, canonical string
		ok              bool
	}{
		{"UTF-8", "UTF-8", true}, {"utf8", "UTF-8", true}, {"gbk", "GBK", true}, {"GB2312", "gbk", true},
		{"GB18030", "GB18030", true}, {"ISO-8859-1", "ISO-8859-1", true}, {"latin1", "ISO-8859-1", true},
		{"cp1252", "windows-1252", true}, {"Shift_JIS", "Shift_JIS", true}, {"UTF-16LE", "UTF-16LE", true},
		{"Big5", "Big5", true}, {"EUC-KR", "EUC-KR", true}, {"x-nothing", "", false}, {"", "", false},
	}
	for _, c := range cases {
		cs, ok := lookupCharset(c.name)
		if ok != c.ok || ok && cs.name != c.canonical {
			t.Errorf("%q: %q %v, want %q %v", c.name, cs.name, ok, c.canonical, c.ok)
		}
	}
}

// Java writes '?' for what a character set cannot hold, and reads bytes that are not valid
// in it as U+FFFD.
func TestCharsetReplacement(t *testing.T) {
	gbk, _ := lookupCharset("GBK")
	latin, _ := lookupCharset("ISO-8859-1")
	cases := []struct {
		cs         charset
		text, want string
	}{
		{gbk, "a😀b你", "a?b\xc4\xe3"},
		{latin, "é€x", "\xe9?x"},
		{gbk, strings.Repeat("€", 5000), strings.Repeat("\x80", 5000)}, // GBK has the euro sign
	}
	for _, c := range cases {
		var buf bytes.Buffer
		w := c.cs.encode(&buf)
		// written in small pieces, cut inside characters
		for i := 0; i < len(c.text); i += 3 {
			w.Write([]byte(c.text[i:min(i+3, len(c.text))]))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if buf.String() != c.want {
			t.Errorf("%s %q: wrote %q, want %q", c.cs.name, c.text, buf.String()[:min(40, buf.Len())], c.want[:min(40, len(c.want))])
		}
	}
	got, _ := io.ReadAll(gbk.decode(strings.NewReader("a\xff\xffb")))
	if !strings.HasPrefix(string(got), "a\ufffd") || !strings.HasSuffix(string(got), "b") {
		t.Errorf("read %q", got)
	}
}
