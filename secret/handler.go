package secret

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
)

// A process's log lines leave it (a terminal, a file, a log shipper), so they must not carry
// a secret either: a connector that logs its options, a connection string or a driver's
// error would otherwise show a password. NewHandler masks, in every record's message and
// attributes, the secret values the process opened (Redact) and whatever reads as a secret
// wherever it appears: the password of a URL's user info, name=value and "name": "value"
// pairs whose name is a secret's (password, secret, token, api_key, credential...), and
// attributes named so.

// NewHandler wraps inner so that nothing it is handed shows a secret: messages and string
// values are masked as RedactText masks them, and attributes whose name (with the groups
// around it) reads as a secret's are written as "******" whole. A handler wrapped already
// is returned as it is.
func NewHandler(inner slog.Handler) slog.Handler {
	if h, ok := inner.(*redactingHandler); ok {
		return h
	}
	return &redactingHandler{inner: inner}
}

// redactingHandler is the handler NewHandler makes.
type redactingHandler struct {
	inner  slog.Handler
	prefix string // the groups opened, dotted
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, RedactText(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a, h.prefix))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = redactAttr(a, h.prefix)
	}
	return &redactingHandler{inner: h.inner.WithAttrs(masked), prefix: h.prefix}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &redactingHandler{inner: h.inner.WithGroup(name), prefix: h.prefix + name + "."}
}

// redactAttr is an attribute with its secrets masked; prefix is the dotted groups around it.
func redactAttr(a slog.Attr, prefix string) slog.Attr {
	v := a.Value.Resolve()
	name := prefix + a.Key
	if secretName(name) && maskable(v.Kind()) {
		return slog.String(a.Key, Mask)
	}
	switch v.Kind() {
	case slog.KindString:
		if s := v.String(); s != "" {
			if r := RedactText(s); r != s {
				return slog.String(a.Key, r)
			}
		}
	case slog.KindGroup:
		in := v.Group()
		out := make([]slog.Attr, len(in))
		for i, g := range in {
			out[i] = redactAttr(g, name+".")
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		return slog.Attr{Key: a.Key, Value: redactAny(v)}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// maskable says whether a value of kind k under a secret's name is masked: booleans, times
// and durations hold no secret.
func maskable(k slog.Kind) bool {
	return k != slog.KindBool && k != slog.KindDuration && k != slog.KindTime
}

// redactAny masks a value of any other type: an error or a Stringer by its text, maps of
// options by their keys and values, lists of strings by their values, anything else by how
// it prints. A value with nothing to mask is passed on as it is, so its handler renders it
// as ever.
func redactAny(v slog.Value) slog.Value {
	switch x := v.Any().(type) {
	case error:
		return redactedText(v, x.Error)
	case fmt.Stringer:
		return redactedText(v, x.String)
	case map[string]string:
		if m, changed := redactStringMap(x); changed {
			return slog.AnyValue(m)
		}
		return v
	case map[string]any:
		if m, changed := redactAnyMap(x); changed {
			return slog.AnyValue(m)
		}
		return v
	case []string:
		if l, changed := redactList(x); changed {
			return slog.AnyValue(l)
		}
		return v
	case []byte:
		return v
	default:
		return redactedText(v, func() string { return fmt.Sprint(x) })
	}
}

// redactedText is v, or the text it renders as (text) masked when that holds a secret. A
// value whose rendering panics (a nil pointer's String) is passed on for its handler to
// report as it does.
func redactedText(v slog.Value, text func() string) (out slog.Value) {
	defer func() {
		if recover() != nil {
			out = v
		}
	}()
	t := text()
	if r := RedactText(t); r != t {
		return slog.StringValue(r)
	}
	return v
}

func redactStringMap(m map[string]string) (map[string]string, bool) {
	changed := false
	out := make(map[string]string, len(m))
	for k, s := range m {
		r := Mask
		if !secretName(k) || s == "" {
			r = RedactText(s)
		}
		changed = changed || r != s
		out[k] = r
	}
	return out, changed
}

func redactAnyMap(m map[string]any) (map[string]any, bool) {
	changed := false
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
		switch {
		case secretName(k) && x != nil:
			out[k], changed = Mask, true
		case isString(x):
			if r := RedactText(x.(string)); r != x.(string) {
				out[k], changed = r, true
			}
		}
	}
	return out, changed
}

func isString(x any) bool {
	_, ok := x.(string)
	return ok
}

func redactList(l []string) ([]string, bool) {
	changed := false
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = RedactText(s)
		changed = changed || out[i] != s
	}
	return out, changed
}

// secretName says whether a (dotted) attribute or option name is a secret's: Sensitive's
// words, or pwd.
func secretName(name string) bool {
	if Sensitive(name) {
		return true
	}
	n := strings.ToLower(name)
	if i := strings.LastIndexAny(n, "._-"); i >= 0 {
		n = n[i+1:]
	}
	return n == "pwd"
}

var (
	// textUserinfo is the user info of a URL written in a text: scheme://user:password@
	textUserinfo = regexp.MustCompile(`//([^/@:?#\s]*):([^/@?#\s]+)@`)
	// textPair is name=value, the value quoted (spaces may stand before it) or running to a
	// space, &, ;, comma or another =
	textPair = regexp.MustCompile(`([\w.\-]+)(\s*=)(\s*"[^"]*"|\s*'[^']*'|[^\s&;,"'=]+)`)
	// textJSON is "name": "value"
	textJSON = regexp.MustCompile(`"([\w.\-]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)
)

// RedactText is a text (a log message, an error) with its secrets masked: the secret values
// this process opened (Redact), the password of a URL's user info, and the values of
// name=value and "name": "value" pairs named like secrets (password=, api_key=, "token":).
func RedactText(s string) string {
	s = Redact(s)
	if !strings.ContainsAny(s, "=:") {
		return s
	}
	if strings.Contains(s, "@") {
		s = textUserinfo.ReplaceAllString(s, "//${1}:"+Mask+"@")
	}
	if strings.Contains(s, "=") {
		s = textPair.ReplaceAllStringFunc(s, func(m string) string {
			sub := textPair.FindStringSubmatch(m)
			if !secretName(sub[1]) || unquote(sub[3]) == "" || sub[3] == Mask {
				return m
			}
			return sub[1] + sub[2] + quotedMask(sub[3])
		})
	}
	if strings.Contains(s, `"`) {
		s = textJSON.ReplaceAllStringFunc(s, func(m string) string {
			sub := textJSON.FindStringSubmatch(m)
			if !secretName(sub[1]) || sub[3] == "" {
				return m
			}
			return `"` + sub[1] + `"` + sub[2] + `"` + Mask + `"`
		})
	}
	return s
}

// unquote is a value without the spaces before it and the quotes around it.
func unquote(v string) string {
	v = strings.TrimLeft(v, " \t")
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// quotedMask is the mask in the quotes the value was written in, after its spaces.
func quotedMask(v string) string {
	q := strings.TrimLeft(v, " \t")
	space := v[:len(v)-len(q)]
	if len(q) >= 2 && (q[0] == '"' || q[0] == '\'') {
		return space + string(q[0]) + Mask + string(q[0])
	}
	return space + Mask
}
