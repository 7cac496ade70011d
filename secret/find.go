package secret

import (
	"regexp"
	"strings"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
)

// The sections of a job config that hold plugins.
var pluginSections = []string{"source", "transform", "sink"}

// sensitiveWords mark an option of a free-form map (kafka.config, hadoop_s3_properties, a
// JDBC driver's properties) or of env as a secret, wherever they appear in its name.
var sensitiveWords = []string{"password", "passwd", "secret", "token", "jaas", "apikey", "api_key", "api.key", "private_key", "private.key", "credential"}

// notSensitive are names that carry one of the words and hold no secret: a class or a file.
var notSensitive = []string{"provider", "location", "path", "file", "enabled", "type"}

// Sensitive says whether an option of a free-form map, by its (dotted) name, holds a secret.
func Sensitive(name string) bool {
	n := strings.ToLower(name)
	hit := false
	for _, w := range sensitiveWords {
		if strings.Contains(n, w) {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	last := n
	if i := strings.LastIndexAny(n, "._-"); i >= 0 {
		last = n[i+1:]
	}
	for _, w := range notSensitive {
		if last == w {
			return false
		}
	}
	return true
}

// leaf is a secret value of a parsed config: wholly secret, or a URL with a password in it,
// shown as masked.
type leaf struct {
	v      *hocon.Value
	masked string // a URL's rendering without its secrets; empty when all of v is secret
}

// shown is how the value is written where people see it, as a HOCON (and JSON) string.
func (l leaf) shown() string {
	if l.masked != "" {
		return jsonString(l.masked)
	}
	return maskedLiteral
}

// leaves collects the secret scalar values of a parsed job config.
type leaves []leaf

// configLeaves are the secrets of a whole job config: every plugin's, and env's by name.
func configLeaves(root *hocon.Value) leaves {
	var out leaves
	if env := root.Get("env"); env != nil {
		out.named(env, "")
	}
	for _, sec := range pluginSections {
		s := root.Get(sec)
		if s == nil {
			continue
		}
		switch s.Kind {
		case hocon.Object: // source { Jdbc { ... } }
			for _, f := range s.Fields {
				out.plugin(sec, pluginName(f.Key, f.Value), f.Value)
			}
		case hocon.Array: // "source": [{"plugin_name": "Jdbc", ...}]
			for _, e := range s.Elems {
				out.plugin(sec, pluginName("", e), e)
			}
		}
	}
	return out
}

// pluginName is a plugin block's name: its plugin_name, else its key.
func pluginName(key string, body *hocon.Value) string {
	if pn := body.Get("plugin_name"); pn != nil && pn.Kind == hocon.String {
		return pn.Str
	}
	return key
}

// plugin collects a plugin block's secrets: the options its spec marks secret and, in its
// free-form options, those named like secrets. A plugin this binary lacks is read by names
// alone.
func (l *leaves) plugin(kind, name string, body *hocon.Value) {
	if body == nil || body.Kind != hocon.Object {
		return
	}
	p, ok := connector.LookupPlugin(kind, name)
	if !ok || p.Spec == nil {
		l.named(body, "")
		return
	}
	l.spec(p.Spec.Fields, body)
}

// spec collects the secrets of an object read by a spec: the options marked secret, and in
// free-form maps those named like secrets.
func (l *leaves) spec(fields []config.Field, obj *hocon.Value) {
	for _, f := range fields {
		names := append([]string{f.Name}, f.Fallbacks...)
		for _, name := range names {
			v := obj.Lookup(name)
			if v == nil {
				continue
			}
			switch {
			case f.Secret:
				l.all(v)
			case len(f.Fields) > 0:
				l.nested(f.Fields, v)
			case f.Type == "map":
				l.named(v, "")
			default:
				l.url(name, v)
			}
		}
	}
}

// nested collects the secrets of an object option with a spec of its own, or of a list of
// such objects.
func (l *leaves) nested(fields []config.Field, v *hocon.Value) {
	switch v.Kind {
	case hocon.Object:
		l.spec(fields, v)
	case hocon.Array:
		for _, e := range v.Elems {
			if e != nil && e.Kind == hocon.Object {
				l.spec(fields, e)
			}
		}
	}
}

// named collects the values whose dotted name reads as a secret's.
func (l *leaves) named(v *hocon.Value, prefix string) {
	switch v.Kind {
	case hocon.Object:
		for _, f := range v.Fields {
			if f.Value == nil {
				continue
			}
			name := f.Key
			if prefix == "" && name == "schema" {
				continue // column names, not options
			}
			if prefix != "" {
				name = prefix + "." + name
			}
			if Sensitive(name) {
				l.all(f.Value)
				continue
			}
			l.url(name, f.Value)
			l.named(f.Value, name)
		}
	case hocon.Array:
		for _, e := range v.Elems {
			if e != nil {
				l.named(e, prefix)
			}
		}
	}
}

// all collects every string and number under v.
func (l *leaves) all(v *hocon.Value) {
	switch v.Kind {
	case hocon.String, hocon.Number:
		*l = append(*l, leaf{v: v})
	case hocon.Object:
		for _, f := range v.Fields {
			if f.Value != nil {
				l.all(f.Value)
			}
		}
	case hocon.Array:
		for _, e := range v.Elems {
			if e != nil {
				l.all(e)
			}
		}
	}
}

// url collects an option named like a URL (url, base-url, uri) whose value holds a password.
func (l *leaves) url(name string, v *hocon.Value) {
	n := strings.ToLower(name)
	if v.Kind != hocon.String || !(strings.HasSuffix(n, "url") || strings.HasSuffix(n, "uri")) {
		return
	}
	if masked, ok := MaskURL(v.Str); ok {
		*l = append(*l, leaf{v: v, masked: masked})
	}
}

var (
	urlUserinfo = regexp.MustCompile(`//([^/@:?#]*):([^/@?#]*)@`)
	urlParam    = regexp.MustCompile(`([?&;])([^=&;#?]+)=([^&;#]*)`)
)

// MaskURL is a URL (a JDBC url among them) with its password masked: the one of its user
// info, and the values of its parameters named like secrets (password=, ;password=). ok is
// false when it holds none.
func MaskURL(u string) (string, bool) {
	masked := urlUserinfo.ReplaceAllString(u, "//${1}:"+Mask+"@")
	masked = urlParam.ReplaceAllStringFunc(masked, func(m string) string {
		sub := urlParam.FindStringSubmatch(m)
		if !Sensitive(sub[2]) || sub[3] == "" {
			return m
		}
		return sub[1] + sub[2] + "=" + Mask
	})
	return masked, masked != u
}
