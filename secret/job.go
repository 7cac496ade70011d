package secret

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/contract"
)

// sealedConfig is what JobInput.Sealed holds: what undoes the masking of the input's config
// (the secret values and where they go, bound to the masked text by its digest), or the
// whole config when it does not parse, and the vars as written.
type sealedConfig struct {
	Edits  []edit            `json:"edits,omitempty"`
	Digest string            `json:"digest,omitempty"` // SHA-256 of the masked config
	Config string            `json:"config,omitempty"`
	Vars   map[string]string `json:"vars,omitempty"`
}

// unparsable stands for a config that does not parse, sealed whole.
const unparsable = "# the job config is sealed: it does not parse, so what in it is secret is unknown"

// SealInput prepares a job's input for the workflow: when its config holds secrets, Config
// and Vars become their masked copies, what people see, and Sealed carries what restores
// the config as written, encrypted under k. A config without secrets is left as it is.
func SealInput(k *Key, in *contract.JobInput) error {
	if in.Sealed != "" {
		return nil
	}
	sc := sealedConfig{Vars: in.Vars}
	m, err := maskText(in.Config, in.File, in.Vars)
	switch {
	case err != nil:
		// a config that does not parse fails its plan; it is sealed whole meanwhile, as
		// nobody can tell what in it is secret
		m = maskedConfig{text: unparsable, found: 1}
		sc.Config = in.Config
	case m.found == 0:
		return nil
	default:
		sc.Edits, sc.Digest = m.edits, digest(m.text)
	}
	b, err := json.Marshal(sc)
	if err != nil {
		return fmt.Errorf("seal the config of job %d: %w", in.JobID, err)
	}
	sealed, err := k.Seal(b)
	if err != nil {
		return fmt.Errorf("seal the config of job %d: %w", in.JobID, err)
	}
	in.Config, in.Vars, in.Sealed = m.text, m.vars, sealed
	return nil
}

// OpenSource is a config to plan as its user wrote it: a sealed one is opened, a plain one
// (a job started before configs were sealed, or by hand) is taken as it is. Either way the
// process remembers its secret values, so that its messages and log lines never carry them.
func OpenSource(k *Key, src contract.ConfigSource) (contract.ConfigSource, error) {
	if src.Sealed == "" {
		rememberConfig(src.Text, src.File, src.Vars) // so this process's messages never carry them
		return src, nil
	}
	b, err := k.Open(src.Sealed)
	if err != nil {
		return src, fmt.Errorf("job config %s: %w", src.File, err)
	}
	var sc sealedConfig
	if err := json.Unmarshal(b, &sc); err != nil {
		return src, fmt.Errorf("job config %s: the sealed config: %w", src.File, err)
	}
	text := sc.Config
	if text == "" {
		if digest(src.Text) != sc.Digest {
			return src, fmt.Errorf("job config %s: the config is not the masked copy its secrets were sealed with", src.File)
		}
		if text, err = undoEdits(src.Text, sc.Edits); err != nil {
			return src, fmt.Errorf("job config %s: %w", src.File, err)
		}
	}
	src.Text, src.Vars, src.Sealed = text, sc.Vars, ""
	rememberConfig(src.Text, src.File, src.Vars) // so this process's messages never carry them
	return src, nil
}

// digest is the SHA-256 of a text, in hex.
func digest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// SealPlan seals the secret options of every vertex of a plan in place, so the plan the
// workflow history keeps, and every deployment made from it, holds none in the clear.
func SealPlan(k *Key, p *contract.Plan) error {
	for _, v := range p.Vertices {
		if v == nil || len(v.Options) == 0 {
			continue
		}
		sealed, err := rewriteOptions(string(v.Kind), v.Plugin, v.Options, func(s span) (string, error) {
			if IsSealed(s.leaf.v.Str) {
				return jsonString(s.leaf.v.Str), nil
			}
			t, err := k.SealString(s.leaf.v.Str)
			if err != nil {
				return "", err
			}
			return jsonString(t), nil
		})
		if err != nil {
			return fmt.Errorf("%s: seal its secret options: %w", v.Where, err)
		}
		v.Options = json.RawMessage(sealed)
	}
	return nil
}

// OpenVertices opens the sealed options of vertices in place, where their plugins are built.
func OpenVertices(k *Key, vs []*contract.Vertex) error {
	for _, v := range vs {
		if v == nil {
			continue
		}
		opened, err := rewriteSealed(v.Options, func(sealed string) (string, error) {
			plain, err := k.OpenString(sealed)
			if err == nil {
				rememberSecret(plain) // so this process's messages never carry it (Redact)
			}
			return plain, err
		})
		if err != nil {
			return fmt.Errorf("%s: options: %w", v.Where, err)
		}
		v.Options = opened
	}
	return nil
}

// OpenOptions opens every sealed string of a JSON document; a document without one is
// returned as it is.
func OpenOptions(k *Key, doc []byte) ([]byte, error) {
	return rewriteSealed(doc, k.OpenString)
}

// rewriteSealed writes a JSON document with every sealed string replaced by what with makes
// of it.
func rewriteSealed(doc []byte, with func(sealed string) (string, error)) ([]byte, error) {
	if !strings.Contains(string(doc), Prefix) {
		return doc, nil
	}
	out := make([]byte, 0, len(doc))
	for i := 0; i < len(doc); {
		if doc[i] != '"' {
			out = append(out, doc[i])
			i++
			continue
		}
		end := quotedEnd(string(doc), i)
		lit := doc[i:end]
		var s string
		if err := json.Unmarshal(lit, &s); err != nil || !IsSealed(s) {
			out = append(out, lit...)
			i = end
			continue
		}
		r, err := with(s)
		if err != nil {
			return nil, err
		}
		out = append(out, jsonString(r)...)
		i = end
	}
	return out, nil
}

// jsonString is s as a JSON string, which HOCON reads too (&, < and > as they are).
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return strconv.Quote(s) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}
