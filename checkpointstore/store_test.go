package checkpointstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestManifestsAndRetention(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Latest(ctx, s, 7, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty store: %v", err)
	}
	for id := int64(1); id <= 5; id++ {
		if err := s.Put(ctx, StateKey(7, 1, id, "g1-0"), []byte{byte(id)}); err != nil {
			t.Fatal(err)
		}
		if id == 5 {
			break // checkpoint 5 never completes
		}
		m := &Manifest{Job: 7, Pipeline: 1, Checkpoint: id, Tasks: []TaskState{{Task: "g1-0", Key: StateKey(7, 1, id, "g1-0")}},
			Commits: map[int][][]byte{2: {[]byte("info")}}}
		if err := WriteManifest(ctx, s, m); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Latest(ctx, s, 7, 1)
	if err != nil || m.Checkpoint != 4 || string(m.Commits[2][0]) != "info" {
		t.Fatalf("latest %+v %v", m, err)
	}
	b, err := s.Get(ctx, m.Tasks[0].Key)
	if err != nil || b[0] != 4 {
		t.Fatalf("state %v %v", b, err)
	}
	if err := Retain(ctx, s, 7, 1, 2); err != nil {
		t.Fatal(err)
	}
	ids, _ := Completed(ctx, s, 7, 1)
	if len(ids) != 2 || ids[0] != 3 || ids[1] != 4 {
		t.Fatalf("kept %v", ids)
	}
	if _, err := os.Stat(filepath.Join(dir, "7", "1", "1")); !os.IsNotExist(err) {
		t.Fatal("checkpoint 1 not deleted")
	}
	if _, err := os.Stat(filepath.Join(dir, "7", "1", "5")); err != nil {
		t.Fatal("the checkpoint in progress, newer than the kept ones, must stay")
	}
}

func TestKeysStayInsideTheStore(t *testing.T) {
	s, _ := New(t.TempDir())
	for _, k := range []string{"../x", "/etc/passwd", "a/../../b"} {
		if err := s.Put(context.Background(), k, nil); err == nil {
			t.Errorf("key %q accepted", k)
		}
	}
	if err := s.Delete(context.Background(), "."); err == nil {
		t.Error("deleting the whole store must be refused")
	}
}
