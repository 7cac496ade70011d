// Package engineconfig reads the engine's own settings: where checkpoints are stored, how
// many are kept, and the checkpoint interval and timeout jobs get when their env does not
// say. It reads Strait's strait.yaml and SeaTunnel's seatunnel.yaml (its
// seatunnel.engine.checkpoint block), so an operator's SeaTunnel file works unchanged.
//
//	checkpoint:
//	  interval: 30000        # ms; STREAMING jobs without env.checkpoint.interval
//	  timeout: 600000        # ms
//	  max-retained: 3
//	  storage:
//	    type: localfile      # or s3
//	    root: /var/lib/strait/checkpoints
//
// Unknown keys and bad values are errors naming the file, the line and the key.
package engineconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/contract"
)

// Storage types.
const (
	StorageLocalFile = "localfile"
	StorageS3        = "s3"
)

// Config is the engine config.
type Config struct {
	Checkpoint Checkpoint
	// Ignored lists the keys of a seatunnel.yaml that SeaTunnel's engine reads and Strait
	// has no use for, each with its place, for the process to warn about.
	Ignored []string
}

// Checkpoint holds the checkpoint settings.
type Checkpoint struct {
	Interval    int64 // ms
	Timeout     int64 // ms
	MaxRetained int
	Storage     Storage
}

// Storage says where checkpoints live.
type Storage struct {
	Type string // StorageLocalFile or StorageS3
	// Root is the local folder (localfile); empty means the process's default.
	Root string
	// S3 is the bucket, prefix, endpoint and credentials (s3).
	S3 checkpointstore.S3Config
}

// Default is the configuration without a file.
func Default() *Config {
	return &Config{Checkpoint: Checkpoint{
		Interval:    contract.DefaultStreamingCheckpointInterval.Milliseconds(),
		Timeout:     contract.DefaultCheckpointTimeout.Milliseconds(),
		MaxRetained: contract.DefaultRetainedCheckpoints,
		Storage:     Storage{Type: StorageLocalFile},
	}}
}

// Load reads a strait.yaml, or a seatunnel.yaml (a file whose top key is `seatunnel`), over
// the defaults. An empty path gives the defaults.
func Load(path string) (*Config, error) {
	if path == "" {
		return Default(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("engine config: %w", err)
	}
	return Parse(path, b)
}

// Parse reads the text of an engine config; name is the file it came from, for messages.
func Parse(name string, text []byte) (*Config, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Default(), nil // an empty file
		}
		return nil, fmt.Errorf("engine config %s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return Default(), nil
	}
	root := doc.Content[0]
	w := &walker{file: name}
	cfg := Default()
	var err error
	if isSeaTunnel(root) {
		err = w.seatunnel(root, cfg)
	} else {
		err = w.strait(root, cfg)
	}
	if err != nil {
		return nil, err
	}
	cfg.Ignored = w.ignored
	return cfg, nil
}

// isSeaTunnel says whether a document is a seatunnel.yaml: its one top key is `seatunnel`.
func isSeaTunnel(root *yaml.Node) bool {
	root = deref(root)
	return root.Kind == yaml.MappingNode && len(root.Content) >= 2 && root.Content[0].Value == "seatunnel"
}

// strait reads Strait's own shape.
func (w *walker) strait(root *yaml.Node, cfg *Config) error {
	c := &cfg.Checkpoint
	return w.mapping("", root, map[string]field{
		"checkpoint": func(key string, n *yaml.Node) error {
			return w.mapping(key, n, map[string]field{
				"interval":     w.positive(&c.Interval, 1, " (ms)"),
				"timeout":      w.positive(&c.Timeout, 1, " (ms)"),
				"max-retained": w.count(&c.MaxRetained, 1),
				"storage":      w.straitStorage(&c.Storage),
			}, nil)
		},
	}, nil)
}

func (w *walker) straitStorage(st *Storage) field {
	return func(key string, n *yaml.Node) error {
		s3 := &st.S3
		var s3Keys []string // the S3 keys given, for a localfile storage to refuse
		s3Field := func(name string, f field) (string, field) {
			return name, func(k string, v *yaml.Node) error {
				s3Keys = append(s3Keys, name)
				return f(k, v)
			}
		}
		pathStyle, pathStyleSet := false, false
		fields := map[string]field{"type": w.str(&st.Type), "root": w.str(&st.Root)}
		for name, f := range map[string]field{
			"bucket":   w.str(&s3.Bucket),
			"prefix":   w.str(&s3.Prefix),
			"endpoint": w.str(&s3.Endpoint),
			"region":   w.str(&s3.Region),
			"path-style": func(k string, v *yaml.Node) error {
				pathStyleSet = true
				return w.boolean(&pathStyle)(k, v)
			},
			"credentials": w.credentials(&s3.Credentials),
		} {
			name, f = s3Field(name, f)
			fields[name] = f
		}
		if err := w.mapping(key, n, fields, nil); err != nil {
			return err
		}
		switch st.Type {
		case StorageLocalFile:
			if len(s3Keys) > 0 {
				return w.errf(w.valueAt(n, s3Keys[0]), join(key, s3Keys[0]), "only with type %s (the type is %s)", StorageS3, StorageLocalFile)
			}
			return nil
		case StorageS3:
			if st.Root != "" {
				return w.errf(w.valueAt(n, "root"), join(key, "root"), "only with type %s (the type is %s)", StorageLocalFile, StorageS3)
			}
			s3.PathStyle = pathStyle || (!pathStyleSet && s3.Endpoint != "")
			return w.checkS3(key, n, s3)
		}
		return w.errf(w.valueAt(n, "type"), join(key, "type"), "%q is not supported (%s, %s)", st.Type, StorageLocalFile, StorageS3)
	}
}

func (w *walker) credentials(cr *checkpointstore.Credentials) field {
	return func(key string, n *yaml.Node) error {
		return w.mapping(key, n, map[string]field{
			"provider":      w.list(&cr.Providers),
			"access-key":    w.str(&cr.AccessKey),
			"secret-key":    w.str(&cr.SecretKey),
			"session-token": w.str(&cr.SessionToken),
		}, nil)
	}
}

// checkS3 checks an S3 storage once read; storage is the node of the storage section, key
// its path.
func (w *walker) checkS3(key string, storage *yaml.Node, s3 *checkpointstore.S3Config) error {
	if s3.Bucket == "" {
		return w.errf(storage, join(key, "bucket"), "required with type %s", StorageS3)
	}
	if err := checkpointstore.CheckBucket(s3.Bucket); err != nil {
		return w.errf(w.valueAt(storage, "bucket"), join(key, "bucket"), "%v", err)
	}
	ep, err := checkpointstore.NormalizeEndpoint(s3.Endpoint)
	if err != nil {
		return w.errf(w.valueAt(storage, "endpoint"), join(key, "endpoint"), "%v", err)
	}
	s3.Endpoint = ep
	return w.checkCredentials(join(key, "credentials"), w.valueAt(storage, "credentials"), s3.Credentials)
}

func (w *walker) checkCredentials(key string, n *yaml.Node, cr checkpointstore.Credentials) error {
	for _, p := range cr.Providers {
		if !slices.Contains(checkpointstore.Providers, p) {
			return w.errf(w.valueAt(n, "provider"), join(key, "provider"), "unknown provider %q (known: %v)", p, checkpointstore.Providers)
		}
	}
	if (cr.AccessKey == "") != (cr.SecretKey == "") {
		return w.errf(n, key, "an access key and a secret key go together")
	}
	if slices.Contains(cr.Providers, checkpointstore.ProviderStatic) && cr.AccessKey == "" {
		return w.errf(w.valueAt(n, "provider"), join(key, "provider"), "the %s provider needs an access key and a secret key", checkpointstore.ProviderStatic)
	}
	return nil
}

// valueAt is the value node of key in mapping n, or n when it is not there.
func (w *walker) valueAt(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}
