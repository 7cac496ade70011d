package planner

import (
	"encoding/base64"
	"strings"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
)

// Config shades, as SeaTunnel has them: with env.shade.identifier set, the sensitive options
// of every source and sink (password, username, auth, token) are written encoded in the
// config and decoded when the job is planned. SeaTunnel's built-in shade is base64; "default"
// leaves the options as written.
const (
	shadeBase64  = "base64"
	shadeDefault = "default"
)

// sensitiveOptions are the top-level plugin options a shade applies to.
var sensitiveOptions = []string{"password", "username", "auth", "token"}

// readShade reads env.shade.identifier: "" when no shade applies.
func readShade(o *config.Options) (string, error) {
	id, err := o.String("shade.identifier", "")
	if err != nil {
		return "", err
	}
	switch strings.ToLower(strings.TrimSpace(id)) {
	case "", shadeDefault:
		return "", nil
	case shadeBase64:
		return shadeBase64, nil
	}
	return "", o.Errorf("shade.identifier", "unknown config shade %q (Strait has %s and %s)", id, shadeBase64, shadeDefault)
}

// unshade decodes a plugin's sensitive options in place.
func unshade(shade string, p *Plugin) error {
	if shade == "" || p.Options == nil || p.Options.Kind != hocon.Object {
		return nil
	}
	for i := range p.Options.Fields {
		f := &p.Options.Fields[i]
		if !isSensitive(f.Key) || f.Value == nil {
			continue
		}
		switch f.Value.Kind {
		case hocon.String, hocon.Number:
		default:
			return cfgErr("%s: option %s: a %s cannot be decoded by shade.identifier = %s (at %s)", p.Where(), f.Key, f.Value.Kind, shade, f.Value.Pos)
		}
		plain, err := base64.StdEncoding.DecodeString(strings.TrimSpace(f.Value.Str))
		if err != nil {
			return cfgErr("%s: option %s is not base64 as env.shade.identifier = %s wants (at %s)", p.Where(), f.Key, shade, f.Value.Pos)
		}
		v := *f.Value
		v.Kind, v.Str = hocon.String, string(plain)
		f.Value = &v
	}
	return nil
}

func isSensitive(key string) bool {
	for _, s := range sensitiveOptions {
		if key == s {
			return true
		}
	}
	return false
}
