package secret

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/config/hocon"
)

// span is a secret value's place in a text: bytes [from, to).
type span struct {
	from, to int
	leaf     leaf
}

// spansOf finds where in text each of the values is written. A value written as a
// substitution (${name}) has no span: the text names it and does not hold it. Spans are
// sorted and do not overlap.
func spansOf(text string, vals leaves) []span {
	lines := lineStarts(text)
	seen := map[int]bool{}
	var out []span
	for _, l := range vals {
		from, ok := offsetOf(text, lines, l.v.Pos)
		if !ok || seen[from] || strings.HasPrefix(text[from:], "${") {
			continue
		}
		seen[from] = true
		if to := valueEnd(text, from); to > from {
			out = append(out, span{from: from, to: to, leaf: l})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].from < out[j].from })
	kept := out[:0]
	for _, s := range out {
		if n := len(kept); n > 0 && s.from < kept[n-1].to {
			continue
		}
		kept = append(kept, s)
	}
	return kept
}

// replaceSpans writes text with each span replaced by what with gives it.
func replaceSpans(text string, spans []span, with func(span) (string, error)) (string, error) {
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, s := range spans {
		r, err := with(s)
		if err != nil {
			return "", err
		}
		b.WriteString(text[at:s.from])
		b.WriteString(r)
		at = s.to
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// lineStarts are the byte offsets where each line of text starts.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offsetOf is the byte offset of a position (1-based line, column in runes).
func offsetOf(text string, lines []int, p hocon.Pos) (int, bool) {
	if p.Line < 1 || p.Line > len(lines) || p.Col < 1 {
		return 0, false
	}
	i := lines[p.Line-1]
	for col := 1; col < p.Col; col++ {
		if i >= len(text) || text[i] == '\n' {
			return 0, false
		}
		_, n := utf8.DecodeRuneInString(text[i:])
		i += n
	}
	return i, i < len(text)
}

// valueEnd is the end of the value written at from: quoted, triple-quoted and unquoted
// strings, substitutions and the spaces between them, up to the end of the line, a comma,
// a closing bracket or a comment.
func valueEnd(text string, from int) int {
	i, end := from, from
	for i < len(text) {
		c := text[i]
		switch {
		case strings.HasPrefix(text[i:], `"""`):
			i = tripleEnd(text, i)
			end = i
		case c == '"':
			i = quotedEnd(text, i)
			end = i
		case c == '$' && i+1 < len(text) && text[i+1] == '{':
			if j := strings.IndexByte(text[i:], '}'); j >= 0 {
				i += j + 1
			} else {
				i = len(text)
			}
			end = i
		case c == ' ' || c == '\t':
			i++
		case c == '\n' || c == '\r' || c == ',' || c == '}' || c == ']' || c == '#' || strings.HasPrefix(text[i:], "//"):
			return end
		default:
			i++
			end = i
		}
	}
	return end
}

// quotedEnd is the end of the quoted string starting at i, its closing quote included.
func quotedEnd(text string, i int) int {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return j
		}
	}
	return len(text)
}

// tripleEnd is the end of the triple-quoted string starting at i (HOCON lets extra quotes
// before the closing three belong to the string).
func tripleEnd(text string, i int) int {
	j := strings.Index(text[i+3:], `"""`)
	if j < 0 {
		return len(text)
	}
	k := i + 3 + j + 3
	for k < len(text) && text[k] == '"' {
		k++
	}
	return k
}

// maskedLiteral is what a masked value is written as, in HOCON and JSON alike.
const maskedLiteral = `"` + Mask + `"`

// MaskText is a job config (HOCON or JSON) with every secret value written as "******" and
// everything else as written, with the vars that held a secret masked too; found counts the
// secrets. A config that does not parse is an error.
func MaskText(text, file string, vars map[string]string) (masked string, maskedVars map[string]string, found int, err error) {
	m, err := maskText(text, file, vars)
	return m.text, m.vars, m.found, err
}

// maskedConfig is a config masked, with the edits that undo the masking.
type maskedConfig struct {
	text  string
	vars  map[string]string
	found int
	edits []edit
}

func maskText(text, file string, vars map[string]string) (maskedConfig, error) {
	root, err := parse(text, file, vars)
	if err != nil {
		return maskedConfig{}, err
	}
	vals := configLeaves(root)
	m := maskedConfig{}
	m.text, m.edits = maskEdits(text, spansOf(text, vals))
	var hidden int
	m.vars, hidden = maskVars(vars, vals)
	m.found = len(vals) + hidden
	return m, nil
}

// edit is one change masking made: bytes [At, At+Len) of the masked text were Text.
type edit struct {
	At   int    `json:"at"`
	Len  int    `json:"len"`
	Text string `json:"text"`
}

// maskEdits is text with each span written as people may see it, and the edits that undo it.
func maskEdits(text string, spans []span) (string, []edit) {
	var b strings.Builder
	b.Grow(len(text))
	edits := make([]edit, 0, len(spans))
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.from])
		r := s.leaf.shown()
		edits = append(edits, edit{At: b.Len(), Len: len(r), Text: text[s.from:s.to]})
		b.WriteString(r)
		at = s.to
	}
	b.WriteString(text[at:])
	return b.String(), edits
}

// undoEdits is the text as it was before masking.
func undoEdits(masked string, edits []edit) (string, error) {
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.At < at || e.Len < 0 || e.At+e.Len > len(masked) {
			return "", fmt.Errorf("a sealed value at byte %d lies outside the masked config", e.At)
		}
		b.WriteString(masked[at:e.At])
		b.WriteString(e.Text)
		at = e.At + e.Len
	}
	b.WriteString(masked[at:])
	return b.String(), nil
}

// maskVars masks the vars that hold a secret: by value, where a secret option took one
// (a URL's password masked within it), and by name.
func maskVars(vars map[string]string, vals leaves) (map[string]string, int) {
	if len(vars) == 0 {
		return vars, 0
	}
	shown := map[string]string{}
	for _, l := range vals {
		if l.v.Str == "" {
			continue
		}
		if l.masked != "" {
			shown[l.v.Str] = l.masked
		} else {
			shown[l.v.Str] = Mask
		}
	}
	out := make(map[string]string, len(vars))
	n := 0
	for k, v := range vars {
		m, secret := shown[v]
		switch {
		case Sensitive(k):
			out[k], n = Mask, n+1
		case secret:
			out[k], n = m, n+1
		default:
			out[k] = v
		}
	}
	return out, n
}

// MaskConfig is MaskText for display: a config that does not parse is shown as a note, so
// nothing it holds is shown.
func MaskConfig(text, file string, vars map[string]string) (string, map[string]string) {
	masked, mv, _, err := MaskText(text, file, vars)
	if err != nil {
		return "# the job config does not parse, so it is not shown", nil
	}
	return masked, mv
}

// MaskOptions is a plugin's options as a plan carries them (JSON), its secrets masked,
// sealed ones too.
func MaskOptions(kind, plugin string, options []byte) (string, error) {
	masked, err := rewriteOptions(kind, plugin, options, func(s span) (string, error) { return s.leaf.shown(), nil })
	if err != nil {
		return "", err
	}
	b, err := rewriteSealed([]byte(masked), func(string) (string, error) { return Mask, nil })
	return string(b), err
}

// rewriteOptions writes a plugin's options with each secret replaced.
func rewriteOptions(kind, plugin string, options []byte, with func(span) (string, error)) (string, error) {
	text := string(options)
	root, err := hocon.Parse(options, hocon.Options{File: "options.json"})
	if err != nil {
		return "", fmt.Errorf("%s %s: options: %w", kind, plugin, err)
	}
	var vals leaves
	vals.plugin(kind, plugin, root)
	return replaceSpans(text, spansOf(text, vals), with)
}

// parse reads a job config as the planner does.
func parse(text, file string, vars map[string]string) (*hocon.Value, error) {
	root, err := hocon.Parse([]byte(text), hocon.Options{File: file, Vars: vars, ListSections: pluginSections})
	if err != nil {
		return nil, fmt.Errorf("job config %s: %w", file, err)
	}
	return root, nil
}

// minScrubbed is the shortest value Scrub masks in a message: shorter ones would mask the
// words around them.
const minScrubbed = 4

// Scrub is a message (an error) with every secret value of a job config in it masked.
func Scrub(msg, text, file string, vars map[string]string) string {
	root, err := parse(text, file, vars)
	if err != nil {
		return msg
	}
	for _, l := range configLeaves(root) {
		if len(l.v.Str) < minScrubbed || !strings.Contains(msg, l.v.Str) {
			continue
		}
		with := Mask
		if l.masked != "" {
			with = l.masked
		}
		msg = strings.ReplaceAll(msg, l.v.Str, with)
	}
	return msg
}
