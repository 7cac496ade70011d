// Package engineconfig reads strait.yaml, the engine's own settings (as SeaTunnel's
// seatunnel.yaml holds its engine's): where checkpoints are stored, how many are kept, and the
// checkpoint interval and timeout jobs get when their env does not say.
//
//	checkpoint:
//	  interval: 30000        # ms; STREAMING jobs without env.checkpoint.interval
//	  timeout: 600000        # ms
//	  max-retained: 3
//	  storage:
//	    type: localfile
//	    root: /var/lib/strait/checkpoints
package engineconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// Config is strait.yaml.
type Config struct {
	Checkpoint Checkpoint `yaml:"checkpoint"`
}

// Checkpoint holds the checkpoint settings.
type Checkpoint struct {
	Interval    int64   `yaml:"interval"`
	Timeout     int64   `yaml:"timeout"`
	MaxRetained int     `yaml:"max-retained"`
	Storage     Storage `yaml:"storage"`
}

// Storage says where checkpoints live.
type Storage struct {
	Type string `yaml:"type"`
	Root string `yaml:"root"`
}

// Default is the configuration without a file.
func Default() *Config {
	return &Config{Checkpoint: Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 3, Storage: Storage{Type: "localfile"}}}
}

// Load reads a strait.yaml over the defaults. An empty path gives the defaults. Unknown keys
// and bad values are errors naming the file, line and key.
func Load(path string) (*Config, error) {
	cfg := Default()
	if path == "" {
		return cfg, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("engine config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("engine config %s: %w", path, err)
	}
	c := cfg.Checkpoint
	switch {
	case c.Interval <= 0:
		return nil, fmt.Errorf("engine config %s: checkpoint.interval must be positive (ms), got %d", path, c.Interval)
	case c.Timeout <= 0:
		return nil, fmt.Errorf("engine config %s: checkpoint.timeout must be positive (ms), got %d", path, c.Timeout)
	case c.MaxRetained < 1:
		return nil, fmt.Errorf("engine config %s: checkpoint.max-retained must be at least 1, got %d", path, c.MaxRetained)
	case c.Storage.Type != "localfile":
		return nil, fmt.Errorf("engine config %s: checkpoint.storage.type %q is not supported (localfile)", path, c.Storage.Type)
	}
	return cfg, nil
}
