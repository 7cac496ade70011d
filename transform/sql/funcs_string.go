package sql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/strait-dev/strait/internal/jregex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// String functions work on characters (Unicode code points); SeaTunnel counts UTF-16 units,
// which differs only for characters outside the Basic Multilingual Plane.

// maxStringLen bounds what REPEAT, SPACE and the pads may build.
const maxStringLen = 64 << 20

var errTooLong = errors.New("the result string would be longer than 64 MiB")

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// runeLen is the number of characters of s.
func runeLen(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// byteOffset returns the byte offset of character i of s (len(s) past the end).
func byteOffset(s string, i int) int {
	if i <= 0 {
		return 0
	}
	n := 0
	for off := range s {
		if n == i {
			return off
		}
		n++
	}
	return len(s)
}

// substr returns characters [from, to) of s.
func substr(s string, from, to int) string {
	if isASCII(s) {
		return s[from:to]
	}
	a := byteOffset(s, from)
	b := byteOffset(s, to)
	return s[a:b]
}

func registerStringFuncs() {
	register(&fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		ar := c.args(n, args)
		s := ar.str(0)
		return ar.done(intExpr(types.Int, func(fr *frame) (int64, bool) {
			v, ok := s(fr)
			if !ok || v == "" {
				return 0, false
			}
			r, _ := utf8.DecodeRuneInString(v)
			return int64(r), true
		}))
	}}, "ASCII")
	lengthFn := func(f func(string) int64) *fnDef {
		return &fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
			ar := c.args(n, args)
			s := ar.str(0)
			return ar.done(intExpr(types.BigInt, func(fr *frame) (int64, bool) {
				v, ok := s(fr)
				if !ok {
					return 0, false
				}
				return f(v), true
			}))
		}}
	}
	register(lengthFn(func(s string) int64 { return int64(len(s)) * 8 }), "BIT_LENGTH")
	register(lengthFn(func(s string) int64 { return int64(runeLen(s)) }), "CHAR_LENGTH", "LENGTH")
	register(lengthFn(func(s string) int64 { return int64(len(s)) }), "OCTET_LENGTH")
	register(&fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		ar := c.args(n, args)
		code := ar.int(0)
		return ar.done(strExpr(func(fr *frame) (string, bool) {
			v, ok := code(fr)
			if !ok {
				return "", false
			}
			return string(rune(uint16(v))), true
		}))
	}}, "CHAR", "CHR")
	register(&fnDef{min: 1, max: -1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		return c.concat(n, args)
	}}, "CONCAT")
	register(&fnDef{min: 1, max: -1, build: buildConcatWs}, "CONCAT_WS")
	register(strFunc1(func(_ *frame, s string) (string, error) { return hextoraw(s) }), "HEXTORAW")
	register(&fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		if args[0].kind() == types.Bytes {
			sg := args[0].sg
			return strExpr(func(fr *frame) (string, bool) {
				v, ok := sg(fr)
				if !ok {
					return "", false
				}
				const hexd = "0123456789abcdef"
				out := make([]byte, 2*len(v))
				for i := 0; i < len(v); i++ {
					out[2*i], out[2*i+1] = hexd[v[i]>>4], hexd[v[i]&15]
				}
				return string(out), true
			}), nil
		}
		ar := c.args(n, args)
		s := ar.str(0)
		return ar.done(strExpr(func(fr *frame) (string, bool) {
			v, ok := s(fr)
			if !ok {
				return "", false
			}
			var b strings.Builder
			for _, u := range utf16.Encode([]rune(v)) {
				h := strconv.FormatUint(uint64(u), 16)
				b.WriteString("0000"[len(h):])
				b.WriteString(h)
			}
			return b.String(), true
		}))
	}}, "RAWTOHEX")
	register(&fnDef{min: 4, max: 4, build: buildInsert}, "INSERT")
	register(caseFunc(&lowerASCII, strings.ToLower), "LOWER", "LCASE")
	register(caseFunc(&upperASCII, strings.ToUpper), "UPPER", "UCASE")
	registerWith(2, 2, leftRight, true, "LEFT")
	registerWith(2, 2, leftRight, false, "RIGHT")
	register(&fnDef{min: 2, max: 3, build: buildLocate}, "LOCATE", "POSITION", "INSTR")
	register(&fnDef{min: 2, max: 3, build: buildPad}, "LPAD", "RPAD")
	register(&fnDef{min: 1, max: 2, build: buildTrim}, "LTRIM", "RTRIM", "TRIM")
	register(&fnDef{min: 3, max: 4, build: buildRegexpReplace}, "REGEXP_REPLACE")
	register(&fnDef{min: 2, max: 3, build: buildRegexpLike}, "REGEXP_LIKE")
	register(&fnDef{min: 2, max: 6, build: buildRegexpSubstr}, "REGEXP_SUBSTR")
	register(&fnDef{min: 2, max: 2, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		ar := c.args(n, args)
		s, cnt := ar.str(0), ar.int(1)
		return ar.done(strExpr(strict2(s, cnt, func(fr *frame, v string, k int64) (string, bool) {
			if k <= 0 || v == "" {
				return "", true
			}
			if int64(len(v))*k > maxStringLen {
				fr.fail(errTooLong)
				return "", false
			}
			return strings.Repeat(v, int(k)), true
		})))
	}}, "REPEAT")
	register(&fnDef{min: 2, max: 3, build: buildReplace}, "REPLACE")
	register(strFunc1(func(_ *frame, s string) (string, error) { return soundex(s), nil }), "SOUNDEX")
	register(&fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		ar := c.args(n, args)
		cnt := ar.int(0)
		return ar.done(strExpr(func(fr *frame) (string, bool) {
			k, ok := cnt(fr)
			if !ok {
				return "", false
			}
			if k <= 0 {
				return "", true
			}
			if k > maxStringLen {
				fr.fail(errTooLong)
				return "", false
			}
			return strings.Repeat(" ", int(k)), true
		}))
	}}, "SPACE")
	register(&fnDef{min: 2, max: 3, build: buildSubstring}, "SUBSTRING", "SUBSTR")
	register(&fnDef{min: 1, max: 2, build: buildToChar}, "TO_CHAR")
	register(&fnDef{min: 3, max: 3, build: buildTranslate}, "TRANSLATE")
}

// strFunc1 is a function of one string that returns a string, null for null.
func strFunc1(f func(*frame, string) (string, error)) *fnDef {
	return &fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		ar := c.args(n, args)
		s := ar.str(0)
		if ar.err != nil {
			return nil, ar.err
		}
		e := &expr{t: types.Of(types.String)}
		e.sg = func(fr *frame) (string, bool) {
			v, ok := s(fr)
			if !ok {
				return "", false
			}
			r, err := f(fr, v)
			if err != nil {
				fr.fail(err)
				return "", false
			}
			return r, true
		}
		// the value directly, without going through sg
		if a := args[0]; a.ref > 0 && a.kind() == types.String {
			col := a.ref - 1
			e.eval = func(fr *frame) row.Value {
				v := &fr.fields[col]
				if v.T == types.Null {
					return row.Value{}
				}
				r, err := f(fr, v.S)
				if err != nil {
					fr.fail(err)
					return row.Value{}
				}
				return row.Value{T: types.String, S: r}
			}
			e.kern = func(fr *frame, rows []row.Row, sel []int32, j int) {
				for _, i := range sel {
					fs := rows[i].Fields
					v := &fs[col]
					if v.T == types.Null {
						fs[j].SetNull()
						continue
					}
					r, err := f(fr, v.S)
					if err != nil {
						fr.fail(err)
						return
					}
					fs[j].SetString(r)
				}
			}
			return e.complete(), nil
		}
		e.eval = func(fr *frame) row.Value {
			v, ok := s(fr)
			if !ok {
				return row.Value{}
			}
			r, err := f(fr, v)
			if err != nil {
				fr.fail(err)
				return row.Value{}
			}
			return row.Value{T: types.String, S: r}
		}
		return e.complete(), nil
	}}
}

// toUpper and toLower convert ASCII text into the frame's string memory, other text as Go's
// strings.ToUpper and ToLower do; text with nothing to change is returned as it is.
func toUpper(fr *frame, s string) string { return mapASCII(fr, s, &upperASCII, strings.ToUpper) }
func toLower(fr *frame, s string) string { return mapASCII(fr, s, &lowerASCII, strings.ToLower) }

// caseFunc is UPPER or LOWER: a one-string function whose batch kernel over a column calls
// the mapping directly.
func caseFunc(m *caseMap, slow func(string) string) *fnDef {
	def := strFunc1(func(fr *frame, s string) (string, error) { return mapASCII(fr, s, m, slow), nil })
	build := def.build
	def.build = func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		e, err := build(c, n, args)
		if err != nil || e.kern == nil {
			return e, err
		}
		col := args[0].ref - 1
		e.kern = func(fr *frame, rows []row.Row, sel []int32, j int) {
			for _, i := range sel {
				fs := rows[i].Fields
				if v := &fs[col]; v.T != types.Null {
					fs[j].SetString(mapASCII(fr, v.S, m, slow))
				} else {
					fs[j].SetNull()
				}
			}
		}
		return e, nil
	}
	return def
}

// caseMap describes an ASCII case mapping for mapASCII: the letters it changes are the bytes
// from lo to hi, and the table maps every byte below 0x80.
type caseMap struct {
	// the word constants: adding ge to a word of ASCII bytes sets a byte's top bit when the
	// byte is at least lo; adding gt sets it when the byte is above hi
	ge, gt uint64
	table  [128]byte
}

var upperASCII, lowerASCII = newCaseMap('a', 'z'), newCaseMap('A', 'Z')

func newCaseMap(lo, hi byte) caseMap {
	const ones = 0x0101010101010101
	m := caseMap{ge: ones * uint64(0x80-lo), gt: ones * uint64(0x80-hi-1)}
	for c := range m.table {
		b := byte(c)
		if lo <= b && b <= hi {
			b ^= 0x20
		}
		m.table[c] = b
	}
	return m
}

// mapASCII maps s a word at a time while it is ASCII; a non-ASCII byte hands s to the slow
// path (Unicode case rules). The result is written into arena memory that is only taken
// when something changed.
func mapASCII(fr *frame, s string, m *caseMap, slow func(string) string) string {
	n := len(s)
	if n == 0 {
		return s
	}
	const high = 0x8080808080808080
	b := fr.strs.peek(n)
	src := unsafe.Slice(unsafe.StringData(s), n)
	var all, changed uint64 // every byte seen (for the ASCII check) and every change made
	i := 0
	for ; i+8 <= n; i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		all |= w
		// for ASCII bytes the sums stay within their byte; a non-ASCII word is thrown away
		// by the check after the loop
		flip := ((w + m.ge) &^ (w + m.gt) & high) >> 2
		changed |= flip
		binary.LittleEndian.PutUint64(b[i:], w^flip)
	}
	for ; i < n; i++ {
		c := src[i]
		all |= uint64(c)
		u := m.table[c&0x7f]
		changed |= uint64(c ^ u)
		b[i] = u
	}
	switch {
	case all&high != 0:
		return slow(s)
	case changed == 0:
		return s // nothing to change
	}
	fr.strs.take(n)
	return bytesString(b)
}

func buildConcatWs(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	sep := ar.str(0)
	parts := make([]strFn, len(args)-1)
	for i := range parts {
		parts[i] = ar.str(i + 1)
	}
	return ar.done(strExpr(func(fr *frame) (string, bool) {
		sp, hasSep := sep(fr)
		var b strings.Builder
		first := true
		for _, p := range parts {
			v, ok := p(fr)
			if !ok {
				continue
			}
			if hasSep && !first {
				b.WriteString(sp)
			}
			first = false
			b.WriteString(v)
		}
		return b.String(), true
	}))
}

// hextoraw reads 4 hex digits per UTF-16 unit.
func hextoraw(s string) (string, error) {
	if len(s)%4 != 0 {
		return "", fmt.Errorf("HEXTORAW needs 4 hex digits per character, %q has %d", s, len(s))
	}
	units := make([]uint16, 0, len(s)/4)
	for i := 0; i < len(s); i += 4 {
		u, err := strconv.ParseUint(s[i:i+4], 16, 16)
		if err != nil {
			return "", fmt.Errorf("HEXTORAW: %q is not hexadecimal", s[i:i+4])
		}
		units = append(units, uint16(u))
	}
	return string(utf16.Decode(units)), nil
}

func buildInsert(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s1, start, length, s2 := ar.str(0), ar.int(1), ar.int(2), ar.str(3)
	return ar.done(strExpr(func(fr *frame) (string, bool) {
		a, oka := s1(fr)
		b, okb := s2(fr)
		switch {
		case !oka:
			return b, okb
		case !okb:
			return a, true
		}
		st, ok1 := start(fr)
		ln, ok2 := length(fr)
		if !ok1 || !ok2 {
			return "", false
		}
		l1 := int64(runeLen(a))
		st--
		if st < 0 || ln <= 0 || b == "" || st > l1 {
			return a, true
		}
		if st+ln > l1 {
			ln = l1 - st
		}
		return substr(a, 0, int(st)) + b + substr(a, int(st+ln), int(l1)), true
	}))
}

func leftRight(c *compiler, n *Call, args []*expr, left bool) (*expr, *Error) {
	ar := c.args(n, args)
	s, cnt := ar.str(0), ar.int(1)
	return ar.done(strExpr(func(fr *frame) (string, bool) {
		v, k, ok := both(fr, s, cnt)
		if !ok {
			return "", false
		}
		l := int64(runeLen(v))
		if k > l {
			k = l
		}
		if k < 0 {
			k = 0
		}
		if left {
			return substr(v, 0, int(k)), true
		}
		return substr(v, int(l-k), int(l)), true
	}))
}

// indexOf is Java's String.indexOf(search, from) on characters.
func indexOf(s, search string, from int) int {
	rs, rsearch := []rune(s), []rune(search)
	if from < 0 {
		from = 0
	}
	if from > len(rs) {
		if len(rsearch) == 0 {
			return len(rs)
		}
		return -1
	}
	for i := from; i+len(rsearch) <= len(rs); i++ {
		if runesEqual(rs[i:i+len(rsearch)], rsearch) {
			return i
		}
	}
	return -1
}

// lastIndexOf is Java's String.lastIndexOf(search, from) on characters.
func lastIndexOf(s, search string, from int) int {
	rs, rsearch := []rune(s), []rune(search)
	if m := len(rs) - len(rsearch); from > m {
		from = m
	}
	for i := from; i >= 0; i-- {
		if runesEqual(rs[i:i+len(rsearch)], rsearch) {
			return i
		}
	}
	return -1
}

func runesEqual(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// buildLocate: LOCATE(search, s[, start]), POSITION(search, s), INSTR(s, search[, start]). A
// null string gives 0; a negative start searches backwards from the end.
func buildLocate(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	name := fname(n)
	si, ti := 1, 0 // string and search argument positions
	if name == "INSTR" {
		si, ti = 0, 1
	}
	ar := c.args(n, args)
	s, search := ar.str(si), ar.str(ti)
	var start intFn
	if name != "POSITION" {
		start = ar.optInt(2)
	}
	return ar.done(intExpr(types.Int, func(fr *frame) (int64, bool) {
		v, ok := s(fr)
		if !ok {
			return 0, true
		}
		q, ok := search(fr)
		if !ok {
			return 0, false
		}
		st := int64(1)
		if start != nil {
			if st, ok = start(fr); !ok {
				return 0, false
			}
		}
		if isASCII(v) && isASCII(q) && st == 1 {
			return int64(strings.Index(v, q) + 1), true
		}
		if st < 0 {
			return int64(lastIndexOf(v, q, runeLen(v)+int(st)) + 1), true
		}
		from := int(st) - 1
		if st == 0 {
			from = 0
		}
		return int64(indexOf(v, q, from) + 1), true
	}))
}

func buildPad(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	right := fname(n) == "RPAD"
	ar := c.args(n, args)
	s, width, padding := ar.str(0), ar.int(1), ar.optStr(2)
	return ar.done(strExpr(strict2(s, width, func(fr *frame, v string, w int64) (string, bool) {
		if w < 0 {
			w = 0
		}
		l := int64(runeLen(v))
		if w <= l {
			return substr(v, 0, int(w)), true
		}
		if w > maxStringLen {
			fr.fail(errTooLong)
			return "", false
		}
		pc := ' '
		if padding != nil {
			if p, ok := padding(fr); ok && p != "" {
				pc, _ = utf8.DecodeRuneInString(p)
			}
		}
		pad := strings.Repeat(string(pc), int(w-l))
		if right {
			return v + pad, true
		}
		return pad + v, true
	})))
}

// buildTrim removes leading and/or trailing copies of one character (the first of the
// second argument, a space by default), as SeaTunnel does.
func buildTrim(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	name := fname(n)
	leading, trailing := name != "RTRIM", name != "LTRIM"
	ar := c.args(n, args)
	s, chars := ar.str(0), ar.optStr(1)
	return ar.done(strExpr(func(fr *frame) (string, bool) {
		v, ok := s(fr)
		if !ok {
			return "", false
		}
		cut := " "
		if chars != nil {
			if p, ok := chars(fr); ok && p != "" {
				_, size := utf8.DecodeRuneInString(p)
				cut = p[:size]
			}
		}
		if leading {
			for strings.HasPrefix(v, cut) {
				v = v[len(cut):]
			}
		}
		if trailing {
			for strings.HasSuffix(v, cut) {
				v = v[:len(v)-len(cut)]
			}
		}
		return v, true
	}))
}

// regexpArg compiles a pattern argument (with its mode argument) once when both are
// constants, or per distinct value otherwise.
type regexpArg struct {
	replace  bool
	fixed    *compiledRE
	pat      strFn
	mode     strFn
	lastPat  string
	lastMode string
	last     *compiledRE
}

// regexp reads the pattern argument pi with its optional mode argument mi.
func (ar *argReader) regexp(pi, mi int, replace bool) *regexpArg {
	if ar.err != nil {
		return nil
	}
	args := ar.args
	ra := &regexpArg{replace: replace}
	pconst, pnull, pok := constStr(args, pi)
	mconst, mnull, mok := "", false, true
	if mi < len(args) {
		mconst, mnull, mok = constStr(args, mi)
	}
	if pok && mok && !pnull {
		if mnull {
			mconst = ""
		}
		re, err := compileRegexp(pconst, mconst, replace)
		if err != nil {
			ar.err = ar.c.errf(ar.n.Args[pi], "%v", err)
			return nil
		}
		ra.fixed = re
		return ra
	}
	ra.pat, ra.mode = ar.str(pi), ar.optStr(mi)
	return ra
}

// get returns the expression for the row; ok=false when the pattern is null.
func (ra *regexpArg) get(fr *frame) (*compiledRE, bool) {
	if ra.fixed != nil {
		return ra.fixed, true
	}
	p, ok := ra.pat(fr)
	if !ok {
		return nil, false
	}
	m := ""
	if ra.mode != nil {
		m, _ = ra.mode(fr)
	}
	if ra.last == nil || p != ra.lastPat || m != ra.lastMode {
		re, err := compileRegexp(p, m, ra.replace)
		if err != nil {
			fr.fail(err)
			return nil, false
		}
		ra.last, ra.lastPat, ra.lastMode = re, p, m
	}
	return ra.last, true
}

func buildRegexpReplace(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s, ra, repl := ar.str(0), ar.regexp(1, 3, true), ar.str(2)
	if ar.err != nil {
		return nil, ar.err
	}
	var fixedRepl *jregex.Replacement
	if rc, rnull, ok := constStr(args, 2); ok && !rnull && ra.fixed != nil {
		jr, perr := ra.fixed.java.ParseReplacement(rc)
		if perr != nil {
			return nil, c.errf(n.Args[2], "%v", perr)
		}
		fixedRepl = jr
	}
	return strExpr(strict2(s, ra.get, func(fr *frame, v string, re *compiledRE) (string, bool) {
		jr := fixedRepl
		if jr == nil {
			r, ok := repl(fr)
			if !ok {
				return "", false
			}
			var perr error
			if jr, perr = re.java.ParseReplacement(r); perr != nil {
				fr.fail(perr)
				return "", false
			}
		}
		return re.java.ReplaceAll(v, jr), true
	})), nil
}

func buildRegexpLike(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s, ra := ar.str(0), ar.regexp(1, 2, false)
	return ar.done(boolExpr(strict2(s, ra.get, func(fr *frame, v string, re *compiledRE) (int64, bool) {
		if re.re.MatchString(v) {
			return 1, true
		}
		return 0, true
	})))
}

// buildRegexpSubstr: REGEXP_SUBSTR(s, pattern[, position[, occurrence[, mode[, group]]]]);
// a missing or null position is 1, occurrence 1, group 0 (the whole match).
func buildRegexpSubstr(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s, ra := ar.str(0), ar.regexp(1, 4, false)
	pos, occ, grp := ar.optInt(2), ar.optInt(3), ar.optInt(5)
	if ar.err != nil {
		return nil, ar.err
	}
	optional := func(f intFn, fr *frame, def int64) int64 {
		if f == nil {
			return def
		}
		if v, ok := f(fr); ok {
			return v
		}
		return def
	}
	return strExpr(strict2(s, ra.get, func(fr *frame, v string, re *compiledRE) (string, bool) {
		p := optional(pos, fr, 1) - 1
		o := optional(occ, fr, 1)
		g := optional(grp, fr, 0)
		if p < 0 || p > int64(runeLen(v)) {
			fr.fail(fmt.Errorf("REGEXP_SUBSTR: position %d is out of range", p+1))
			return "", false
		}
		if g < 0 || g > int64(re.re.NumSubexp()) {
			fr.fail(fmt.Errorf("REGEXP_SUBSTR: no group %d", g))
			return "", false
		}
		start := byteOffset(v, int(p))
		if o < 1 {
			o = 1
		}
		ms := re.re.FindAllStringSubmatchIndex(v[start:], int(min(o, 1<<20)))
		if int64(len(ms)) < o {
			return "", false
		}
		m := ms[o-1]
		if m[2*g] < 0 {
			return "", false
		}
		return v[start+m[2*g] : start+m[2*g+1]], true
	})), nil
}

func buildReplace(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s, search, repl := ar.str(0), ar.str(1), ar.optStr(2)
	return ar.done(strExpr(strict2(s, search, func(fr *frame, v string, q string) (string, bool) {
		r := ""
		if repl != nil {
			r, _ = repl(fr)
		}
		if q == "" {
			return v, true
		}
		return strings.ReplaceAll(v, q, r), true
	})))
}

// soundex is the American Soundex code of s, as SeaTunnel computes it (letters only, H and W
// keep the previous code, four characters padded with 0).
func soundex(s string) string {
	const index = "71237128722455712623718272" // A..Z; 7 marks vowels, H, W, Y
	out := []byte{'0', '0', '0', '0'}
	j := 0
	last := byte('0')
	for _, r := range s {
		if j >= 4 {
			break
		}
		var code byte
		switch {
		case r >= 'A' && r <= 'Z':
			code = index[r-'A']
		case r >= 'a' && r <= 'z':
			code = index[r-'a']
		default:
			continue
		}
		switch {
		case j == 0:
			out[0] = byte(r) &^ 0x20
			j = 1
			last = code
		case code <= '6':
			if code != last {
				out[j] = code
				j++
				last = code
			}
		case code == '7':
			last = code
		}
	}
	return string(out)
}

// buildSubstring is H2's SUBSTRING: start 0 counts as 1, a negative start counts from the
// end; a range that selects nothing is null.
func buildSubstring(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s, start, length := ar.str(0), ar.int(1), ar.optInt(2)
	return ar.done(strExpr(func(fr *frame) (string, bool) {
		v, st, ok := both(fr, s, start)
		if !ok {
			return "", false
		}
		sl := int64(runeLen(v))
		switch {
		case st == 0:
			st = 1
		case st < 0:
			st = sl + st + 1
		}
		var end int64
		if length == nil {
			end = max(sl+1, st)
		} else {
			l, ok := length(fr)
			if !ok {
				end = max(sl+1, st)
			} else {
				end = st + l
			}
		}
		st = max(st, 1)
		end = min(end, sl+1)
		if st > sl || end <= st {
			return "", false
		}
		return substr(v, int(st-1), int(end-1)), true
	}))
}

// buildToChar: TO_CHAR(value[, format]); dates and times with a format are formatted as
// FORMATDATETIME does, anything else is its text.
func buildToChar(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	x := args[0]
	if isTemporal(x.kind()) && len(args) == 2 {
		return buildFormat(c, n, args)
	}
	if isComposite(x.kind()) {
		return nil, c.errf(n.Args[0], "TO_CHAR cannot format a %s", x.t)
	}
	if x.kind() == types.String {
		return strExpr(x.sg), nil
	}
	ev := x.eval
	return strExpr(func(fr *frame) (string, bool) {
		v := ev(fr)
		if v.T == types.Null {
			return "", false
		}
		return text(v), true
	}), nil
}

func buildTranslate(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s, from, to := ar.str(0), ar.str(1), ar.str(2)
	return ar.done(strExpr(strict2(s, from, func(fr *frame, v string, f string) (string, bool) {
		t, _ := to(fr)
		fr2, tr := []rune(f), []rune(t)
		var b strings.Builder
		changed := false
		for _, r := range v {
			idx := -1
			for k, x := range fr2 {
				if x == r {
					idx = k
					break
				}
			}
			switch {
			case idx < 0:
				b.WriteRune(r)
			case idx < len(tr):
				b.WriteRune(tr[idx])
				changed = true
			default:
				changed = true // removed
			}
		}
		if !changed {
			return v, true
		}
		return b.String(), true
	})))
}

func isTemporal(k types.Kind) bool {
	return k == types.Date || k == types.Time || k == types.Timestamp
}
