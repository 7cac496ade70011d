package file

import (
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/transform"

	"github.com/strait-dev/strait/config"
)

// charset is the encoding option: the character set files are read and written in, by any
// name or alias Java's Charset.forName knows for it (UTF-8, GBK, GB18030, GB2312,
// ISO-8859-1, windows-1252, Big5, Shift_JIS, EUC-KR, UTF-16LE...). Rows are UTF-8 inside
// Strait; a nil enc is UTF-8 and costs nothing.
type charset struct {
	name string
	enc  encoding.Encoding
}

// utf8Names are the spellings of UTF-8, which needs no transcoding.
var utf8Names = map[string]bool{"utf-8": true, "utf8": true, "unicode-1-1-utf-8": true}

// javaAliases are Java's names that the IANA registry spells otherwise.
var javaAliases = map[string]string{
	"latin1":  "iso-8859-1",
	"cp1252":  "windows-1252",
	"cp936":   "gbk",
	"ms936":   "gbk",
	"cp950":   "big5",
	"ms932":   "windows-31j",
	"sjis":    "shift_jis",
	"eucjp":   "euc-jp",
	"euckr":   "euc-kr",
	"utf16":   "utf-16",
	"utf16le": "utf-16le",
	"utf16be": "utf-16be",
	"ascii":   "us-ascii",
}

// charsetOf reads the encoding option, s; blank is UTF-8.
func charsetOf(o *config.Options, s string) (charset, error) {
	name := strings.TrimSpace(s)
	if name == "" {
		return charset{name: "UTF-8"}, nil
	}
	cs, ok := lookupCharset(name)
	if !ok {
		return charset{}, o.Errorf("encoding", "unknown or unsupported character set %q (expected a name Java's Charset.forName knows, such as UTF-8, GBK, GB18030 or ISO-8859-1)", s)
	}
	return cs, nil
}

// lookupCharset finds a character set by its name or alias, in any case.
func lookupCharset(name string) (charset, bool) {
	key := strings.ToLower(name)
	if utf8Names[key] {
		return charset{name: "UTF-8"}, true
	}
	if a, ok := javaAliases[strings.ReplaceAll(key, "_", "")]; ok {
		key = a
	}
	for _, idx := range []*ianaindex.Index{ianaindex.IANA, ianaindex.MIME} {
		if e, err := idx.Encoding(key); err == nil && e != nil {
			return charset{name: canonicalName(e, name), enc: e}, true
		}
	}
	if e, err := htmlindex.Get(key); err == nil && e != nil {
		canonical, _ := htmlindex.Name(e)
		return charset{name: canonical, enc: e}, true
	}
	return charset{}, false
}

// canonicalName is the name the set is written with (an xml declaration): its MIME name
// (ISO-8859-1, as Java names it), else its IANA name.
func canonicalName(e encoding.Encoding, given string) string {
	for _, idx := range []*ianaindex.Index{ianaindex.MIME, ianaindex.IANA} {
		if n, err := idx.Name(e); err == nil && n != "" {
			return n
		}
	}
	return given
}

// utf8 reports whether the character set is UTF-8.
func (c charset) utf8() bool { return c.enc == nil }

// decode wraps r so that reading yields UTF-8. Bytes that are not valid in the character
// set read as U+FFFD, as Java's InputStreamReader reads them.
func (c charset) decode(r io.Reader) io.Reader {
	if c.enc == nil {
		return r
	}
	return transform.NewReader(r, c.enc.NewDecoder())
}

// encode wraps w so that the UTF-8 written reaches w in the character set. A character
// the set cannot hold is written as '?', as Java's String.getBytes(charset) writes it.
// The result must be closed to flush the last bytes (closing does not close w).
func (c charset) encode(w io.Writer) io.WriteCloser {
	if c.enc == nil {
		return nopWriteCloser{w}
	}
	return transform.NewWriter(w, questionMarks{c.enc.NewEncoder()})
}

// encodeString returns s in the character set, with '?' for what it cannot hold.
func (c charset) encodeString(s string) []byte {
	if c.enc == nil {
		return []byte(s)
	}
	b, _, err := transform.Bytes(questionMarks{c.enc.NewEncoder()}, []byte(s))
	if err != nil {
		return []byte(s)
	}
	return b
}

// questionMarks is an encoder that writes '?' for every rune its encoder cannot encode.
type questionMarks struct{ e *encoding.Encoder }

func (q questionMarks) Reset() { q.e.Reset() }

func (q questionMarks) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for {
		dn, sn, err := q.e.Transform(dst[nDst:], src[nSrc:], atEOF)
		nDst += dn
		nSrc += sn
		if err == nil || !unencodable(err) {
			return nDst, nSrc, err
		}
		if nDst >= len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		dst[nDst] = '?'
		nDst++
		_, size := utf8.DecodeRune(src[nSrc:])
		nSrc += size
		if nSrc >= len(src) {
			return nDst, nSrc, nil
		}
	}
}

// unencodable reports whether err is an encoder's "rune not in the repertoire" error.
func unencodable(err error) bool {
	_, ok := err.(interface{ Replacement() byte })
	return ok
}
