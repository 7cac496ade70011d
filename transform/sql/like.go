package sql

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/internal/jregex"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// likePattern is a compiled LIKE pattern: % matches any run of characters, _ exactly one,
// and the escape character (a backslash unless ESCAPE names another) makes the next
// character literal.
type likePattern struct {
	exact    string // no wildcards: the whole text
	isExact  bool
	parts    []string // only % wildcards: the literal runs between them
	anchorL  bool     // the pattern does not start with %
	anchorR  bool     // the pattern does not end with %
	onlyPct  bool
	elems    []likeElem // general form
	minRunes int
}

type likeElem struct {
	lit  string
	kind byte // 'l' literal, '_' one character, '%' any run
}

func compileLike(p string, escape rune) (*likePattern, error) {
	var elems []likeElem
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			elems = append(elems, likeElem{kind: 'l', lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRuneInString(p[i:])
		i += n
		switch {
		case escape != 0 && r == escape:
			if i >= len(p) {
				return nil, errors.New("LIKE pattern ends with the escape character")
			}
			r2, n2 := utf8.DecodeRuneInString(p[i:])
			i += n2
			lit.WriteRune(r2)
		case r == '%':
			flush()
			if len(elems) == 0 || elems[len(elems)-1].kind != '%' {
				elems = append(elems, likeElem{kind: '%'})
			}
		case r == '_':
			flush()
			elems = append(elems, likeElem{kind: '_'})
		default:
			lit.WriteRune(r)
		}
	}
	flush()
	lp := &likePattern{elems: elems}
	hasOne, hasPct := false, false
	for _, e := range elems {
		switch e.kind {
		case '_':
			hasOne = true
			lp.minRunes++
		case '%':
			hasPct = true
		}
	}
	switch {
	case !hasOne && !hasPct:
		lp.isExact = true
		if len(elems) == 1 {
			lp.exact = elems[0].lit
		}
	case !hasOne:
		lp.onlyPct = true
		lp.anchorL = elems[0].kind != '%'
		lp.anchorR = elems[len(elems)-1].kind != '%'
		for _, e := range elems {
			if e.kind == 'l' {
				lp.parts = append(lp.parts, e.lit)
			}
		}
	}
	return lp, nil
}

func (lp *likePattern) match(s string) bool {
	switch {
	case lp.isExact:
		return s == lp.exact
	case lp.onlyPct:
		parts := lp.parts
		if lp.anchorL {
			if !strings.HasPrefix(s, parts[0]) {
				return false
			}
			s = s[len(parts[0]):]
			parts = parts[1:]
		}
		var last string
		if lp.anchorR && len(parts) > 0 {
			last = parts[len(parts)-1]
			parts = parts[:len(parts)-1]
		}
		for _, p := range parts {
			i := strings.Index(s, p)
			if i < 0 {
				return false
			}
			s = s[i+len(p):]
		}
		if lp.anchorR {
			return strings.HasSuffix(s, last)
		}
		return true
	}
	return matchElems(lp.elems, s)
}

// matchElems matches the general form, backtracking to the last % on a mismatch (linear in
// practice, quadratic at worst).
func matchElems(elems []likeElem, s string) bool {
	ei, si := 0, 0
	starE, starS := -1, 0
	for {
		if ei < len(elems) {
			e := elems[ei]
			switch e.kind {
			case '%':
				starE, starS = ei, si
				ei++
				continue
			case '_':
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					ei++
					continue
				}
			default:
				if strings.HasPrefix(s[si:], e.lit) {
					si += len(e.lit)
					ei++
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		// mismatch: let the last % take one more character
		if starE < 0 || starS >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		ei, si = starE+1, starS
	}
}

func (c *compiler) like(n *Like) (*expr, *Error) {
	x, pat, err := c.compile2(n.X, n.Pattern)
	if err != nil {
		return nil, err
	}
	if isComposite(x.kind()) {
		return nil, c.errf(n.X, "LIKE needs a string, %s is %s", n.X.String(), x.t)
	}
	if pat.kind() != types.String && pat.kind() != types.Null {
		return nil, c.errf(n.Pattern, "a LIKE pattern must be a string, %s is %s", n.Pattern.String(), pat.t)
	}
	escape := '\\'
	args := []*expr{x, pat}
	if n.Escape != nil {
		esc, err := c.compile(n.Escape)
		if err != nil {
			return nil, err
		}
		if !esc.isConst || esc.kind() != types.String || utf8.RuneCountInString(esc.cv.S) > 1 {
			return nil, c.errf(n.Escape, "ESCAPE needs a string literal of one character")
		}
		escape, _ = utf8.DecodeRuneInString(esc.cv.S)
		if esc.cv.S == "" {
			escape = 0
		}
	}
	not := n.Not
	xs := textGetter(x)
	var p predFn
	if pat.isConst {
		if pat.cv.T == types.Null {
			return constExpr(types.Of(types.Boolean), row.BoolValue(false), n), nil
		}
		lp, perr := compileLike(pat.cv.S, escape)
		if perr != nil {
			return nil, c.errf(n.Pattern, "%v", perr)
		}
		p = func(fr *frame) bool {
			s, ok := xs(fr)
			if !ok {
				return false
			}
			return lp.match(s) != not
		}
	} else {
		ps := pat.sg
		var lastSrc string
		var last *likePattern
		p = func(fr *frame) bool {
			s, ok := xs(fr)
			if !ok {
				return false
			}
			src, ok := ps(fr)
			if !ok {
				return false
			}
			if last == nil || src != lastSrc {
				lp, err := compileLike(src, escape)
				if err != nil {
					fr.fail(err)
					return false
				}
				last, lastSrc = lp, src
			}
			return last.match(s) != not
		}
	}
	return c.fold(predExpr(p, n, args...), args...)
}

// textGetter reads any scalar as text: strings as they are, other values as Java prints them.
func textGetter(x *expr) strFn {
	if isStrRep(x.kind()) {
		return x.sg
	}
	ev := x.eval
	return func(fr *frame) (string, bool) {
		v := ev(fr)
		if v.T == types.Null {
			return "", false
		}
		return text(v), true
	}
}

// ---- regular expressions ----

// compiledRE is a compiled pattern: for matching, and (for REGEXP_REPLACE) with Java's
// replacement and empty-match rules.
type compiledRE struct {
	re   *regexp.Regexp
	java *jregex.Regexp
}

// compileRegexp compiles a Java-style regular expression with SeaTunnel's mode letters: i
// (ignore case), c (case-sensitive), n (dot matches newlines), m (multi-line). The engine is
// Go's RE2: look-around and back-references are not available.
func compileRegexp(pattern, mode string, forReplace bool) (*compiledRE, error) {
	flags := ""
	ci, dotall, multi := false, false, false
	for _, m := range mode {
		switch m {
		case 'i':
			ci = true
		case 'c':
			ci = false
		case 'n':
			dotall = true
		case 'm':
			multi = true
		default:
			return nil, fmt.Errorf("unsupported regular expression mode %q: use i, c, n or m", string(m))
		}
	}
	if ci {
		flags += "i"
	}
	if dotall {
		flags += "s"
	}
	if multi {
		flags += "m"
	}
	src := translateJavaRegexp(pattern)
	if flags != "" {
		src = "(?" + flags + ")" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %v", pattern, unwrapRegexpErr(err))
	}
	c := &compiledRE{re: re}
	if forReplace {
		if c.java, err = jregex.Compile(src); err != nil {
			return nil, fmt.Errorf("invalid regular expression %q: %v", pattern, err)
		}
	}
	return c, nil
}

func unwrapRegexpErr(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error parsing regexp: ")
	if strings.Contains(msg, "invalid or unsupported Perl syntax") {
		msg += " (look-around and back-references are not supported)"
	}
	return msg
}

// javaClasses maps Java's POSIX character classes to RE2 ones.
var javaClasses = map[string]string{
	"Lower": "a-z", "Upper": "A-Z", "ASCII": `\x00-\x7F`, "Alpha": "a-zA-Z", "Digit": "0-9",
	"Alnum": "a-zA-Z0-9", "Punct": `!-/:-@\[-` + "`" + `{-~`, "Graph": `!-~`, "Print": `\x20-\x7E`,
	"Blank": ` \t`, "Cntrl": `\x00-\x1F\x7F`, "XDigit": "0-9a-fA-F", "Space": ` \t\n\x0B\f\r`,
	"javaLowerCase": `\p{Ll}`, "javaUpperCase": `\p{Lu}`, "javaWhitespace": `\s`,
	"IsAlphabetic": `\pL`, "IsLetter": `\pL`, "IsDigit": `\p{Nd}`,
}

// translateJavaRegexp rewrites the Java constructs RE2 spells differently: \p{Alpha} and the
// other POSIX classes, \h, \Z.
func translateJavaRegexp(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case ch == '\\' && i+1 < len(p):
			nx := p[i+1]
			if (nx == 'p' || nx == 'P') && i+2 < len(p) && p[i+2] == '{' {
				if end := strings.IndexByte(p[i+3:], '}'); end >= 0 {
					name := p[i+3 : i+3+end]
					name = strings.TrimPrefix(name, "Is")
					if cls, ok := javaClasses[name]; ok || javaClasses["Is"+name] != "" {
						if !ok {
							cls = javaClasses["Is"+name]
						}
						neg := nx == 'P'
						switch {
						case strings.HasPrefix(cls, `\`) && !strings.HasPrefix(cls, `\x`):
							if neg {
								cls = strings.Replace(cls, `\p`, `\P`, 1)
								cls = strings.Replace(cls, `\s`, `\S`, 1)
							}
							b.WriteString(cls)
						case inClass && !neg:
							b.WriteString(cls)
						case neg:
							b.WriteString("[^" + cls + "]")
						default:
							b.WriteString("[" + cls + "]")
						}
						i += 3 + end
						continue
					}
				}
			}
			switch nx {
			case 'h':
				b.WriteString(`[ \t\xA0\x{1680}\x{180e}\x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}]`)
				i++
				continue
			case 'Z':
				b.WriteString(`\z`)
				i++
				continue
			}
			b.WriteByte(ch)
			b.WriteByte(nx)
			i++
		case ch == '[' && !inClass:
			inClass = true
			b.WriteByte(ch)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case ch == ']' && inClass:
			inClass = false
			b.WriteByte(ch)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
