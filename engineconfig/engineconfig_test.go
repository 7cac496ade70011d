package engineconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "strait.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	cfg, err := Load(write(t, "checkpoint:\n  interval: 5000\n  storage:\n    root: /data/ckpt\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Checkpoint.Interval != 5000 || cfg.Checkpoint.Timeout != 600000 || cfg.Checkpoint.MaxRetained != 3 ||
		cfg.Checkpoint.Storage.Root != "/data/ckpt" || cfg.Checkpoint.Storage.Type != "localfile" {
		t.Fatalf("%+v", cfg)
	}
	if d, err := Load(""); err != nil || d.Checkpoint.Interval != 30000 {
		t.Fatalf("defaults: %+v %v", d, err)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"checkpoint:\n  intervall: 5\n", "line 2: field intervall not found"},
		{"checkpoint:\n  interval: -1\n", "checkpoint.interval must be positive"},
		{"checkpoint:\n  storage:\n    type: hdfs\n", `checkpoint.storage.type "hdfs" is not supported`},
		{"checkpoint: [\n", "strait.yaml"},
	} {
		_, err := Load(write(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}
