package checkpointstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFSLayout: the file system store keeps a key as the file of that path under its root,
// and writes no temporary file a listing would show.
func TestFSLayout(t *testing.T) {
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mustPut(t, s, StateKey(7, 1, 3, "g1-0"), "state")
	if err := WriteManifest(ctx, s, manifest(7, 1, 3)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"7/1/3/g1-0.state", "7/1/3/manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "7", "1", "3"))
	if err != nil || len(entries) != 2 {
		t.Fatalf("the checkpoint folder holds %v (%v), want the state and the manifest", entries, err)
	}
}

// TestFSCheckRefusesARootItCannotWrite: a root that is a file (as one without write
// permission, which root would write through) fails the check.
func TestFSCheckRefusesARootItCannotWrite(t *testing.T) {
	s := &FS{root: filepath.Join(t.TempDir(), "file")}
	if err := os.WriteFile(s.root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := s.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), s.root) {
		t.Fatalf("%v, want an error naming %s", err, s.root)
	}
}
