// Package checkpointstore keeps checkpoint state outside Temporal: task state blobs and the
// manifest that makes a checkpoint complete. Workflows only ever carry references (keys).
//
// The layout is one a person can read: <root>/<job>/<pipeline>/<checkpoint>/ holds one blob
// per task and a manifest.json written last and atomically; a checkpoint without a manifest
// never completed. The root is a local folder (FS) or a bucket and prefix in S3 (S3), with
// the same keys.
package checkpointstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/contract"
)

// ErrNotFound is returned for a key or checkpoint that does not exist.
var ErrNotFound = errors.New("checkpoint store: not found")

// Store is where checkpoints live. Implementations: the local file system (New) and S3
// (NewS3).
type Store interface {
	// Put writes a blob under key (a relative path such as "12/1/5/g1-0.state").
	Put(ctx context.Context, key string, data []byte) error
	// Get reads a blob.
	Get(ctx context.Context, key string) ([]byte, error)
	// List lists the keys under a prefix, sorted.
	List(ctx context.Context, prefix string) ([]string, error)
	// Delete removes every key under a prefix.
	Delete(ctx context.Context, prefix string) error
	// Check proves the store usable (reachable, writable), so that a process fails at its
	// start, naming what is wrong, rather than at its first checkpoint.
	Check(ctx context.Context) error
}

// Dir is the key prefix of one checkpoint.
func Dir(job int64, pipeline int, checkpoint int64) string {
	return fmt.Sprintf("%d/%d/%d", job, pipeline, checkpoint)
}

// StateKey is the key of a task's state blob in a checkpoint.
func StateKey(job int64, pipeline int, checkpoint int64, task string) string {
	return Dir(job, pipeline, checkpoint) + "/" + task + ".state"
}

const manifestName = "manifest.json"

// WriteManifest writes a checkpoint's manifest, which completes the checkpoint.
func WriteManifest(ctx context.Context, s Store, m *contract.Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return s.Put(ctx, Dir(m.Job, m.Pipeline, m.Checkpoint)+"/"+manifestName, b)
}

// Latest returns the manifest of the newest completed checkpoint of a pipeline, or
// ErrNotFound.
func Latest(ctx context.Context, s Store, job int64, pipeline int) (*contract.Manifest, error) {
	ids, err := Completed(ctx, s, job, pipeline)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, ErrNotFound
	}
	return ReadManifest(ctx, s, job, pipeline, ids[len(ids)-1])
}

// ReadManifest reads one checkpoint's manifest.
func ReadManifest(ctx context.Context, s Store, job int64, pipeline int, checkpoint int64) (*contract.Manifest, error) {
	b, err := s.Get(ctx, Dir(job, pipeline, checkpoint)+"/"+manifestName)
	if err != nil {
		return nil, err
	}
	var m contract.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("checkpoint %d of job %d pipeline %d: bad manifest: %w", checkpoint, job, pipeline, err)
	}
	return &m, nil
}

// Completed lists the ids of a pipeline's completed checkpoints, oldest first.
func Completed(ctx context.Context, s Store, job int64, pipeline int) ([]int64, error) {
	keys, err := s.List(ctx, fmt.Sprintf("%d/%d/", job, pipeline))
	if err != nil {
		return nil, err
	}
	return completedIn(keys), nil
}

// completedIn picks, oldest first, the ids of the completed checkpoints out of a listing of a
// pipeline's keys.
func completedIn(keys []string) []int64 {
	var ids []int64
	for _, k := range keys {
		parts := strings.Split(k, "/")
		if len(parts) == 4 && parts[3] == manifestName {
			if id, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// keysDeleter is a store that deletes listed keys in one go (S3: a batch delete), so the
// retention needs no listing per checkpoint it deletes. The keys given end with the
// checkpoints' folders, which a store that keeps folders as entries (SeaweedFS) removes then;
// left, they would make every later listing of the pipeline slower.
type keysDeleter interface {
	deleteKeys(ctx context.Context, keys []string) error
}

// Retain deletes a pipeline's checkpoints older than the newest keep completed ones,
// including abandoned ones that never completed. It lists the pipeline once; in S3 it then
// deletes the old checkpoints' keys in one batch request, so a checkpoint's retention costs
// two requests.
func Retain(ctx context.Context, s Store, job int64, pipeline int, keep int) error {
	keys, err := s.List(ctx, fmt.Sprintf("%d/%d/", job, pipeline))
	if err != nil {
		return err
	}
	ids := completedIn(keys)
	if len(ids) == 0 {
		return nil
	}
	old, dirs := olderThan(keys, ids[max(len(ids)-max(keep, 1), 0)])
	if len(old) == 0 {
		return nil
	}
	if d, ok := s.(keysDeleter); ok {
		for _, id := range dirs {
			old = append(old, Dir(job, pipeline, id))
		}
		return d.deleteKeys(ctx, old)
	}
	for _, id := range dirs {
		if err := s.Delete(ctx, Dir(job, pipeline, id)); err != nil {
			return err
		}
	}
	return nil
}

// olderThan picks out of a sorted listing of a pipeline's keys those of the checkpoints
// before checkpoint oldest, and their ids, once each.
func olderThan(keys []string, oldest int64) (old []string, ids []int64) {
	for _, k := range keys {
		parts := strings.Split(k, "/")
		if len(parts) < 3 {
			continue
		}
		id, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil || id >= oldest {
			continue
		}
		old = append(old, k)
		if len(ids) == 0 || ids[len(ids)-1] != id {
			ids = append(ids, id) // a checkpoint's keys are together in the sorted listing
		}
	}
	return old, ids
}

// Forget deletes every checkpoint and savepoint of a job and says which completed ones there
// were, per pipeline ("" when there were none). A job started afresh under an id that ran
// before calls it, so it can never restore, or keep in place of its own, what the earlier
// run left.
func Forget(ctx context.Context, s Store, job int64) (string, error) {
	prefix := fmt.Sprintf("%d/", job)
	keys, err := s.List(ctx, prefix)
	if err != nil || len(keys) == 0 {
		return "", err
	}
	done := map[int][]int64{}
	for _, k := range keys {
		parts := strings.Split(k, "/")
		if len(parts) != 4 || parts[3] != manifestName {
			continue
		}
		p, err1 := strconv.Atoi(parts[1])
		id, err2 := strconv.ParseInt(parts[2], 10, 64)
		if err1 == nil && err2 == nil {
			done[p] = append(done[p], id)
		}
	}
	if err := s.Delete(ctx, strconv.FormatInt(job, 10)); err != nil {
		return "", err
	}
	pipelines := make([]int, 0, len(done))
	for p := range done {
		pipelines = append(pipelines, p)
	}
	sort.Ints(pipelines)
	parts := make([]string, len(pipelines))
	for i, p := range pipelines {
		ids := done[p]
		sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
		parts[i] = fmt.Sprintf("pipeline %d: %d..%d", p, ids[0], ids[len(ids)-1])
	}
	return strings.Join(parts, ", "), nil
}

// FS is the local file system store.
type FS struct{ root string }

// New returns a store rooted at dir.
func New(dir string) (*FS, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("checkpoint store %s: %w", dir, err)
	}
	return &FS{root: dir}, nil
}

func (f *FS) path(key string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(key))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("checkpoint store: key %q leaves the store", key)
	}
	return filepath.Join(f.root, clean), nil
}

// Put writes atomically: a temporary file, fsync, rename, fsync of the directory. A reader
// sees the old blob or the new one, never half of one.
func (f *FS) Put(_ context.Context, key string, data []byte) error {
	p, err := f.path(key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("checkpoint store: write %s: %w", key, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("checkpoint store: sync %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Get reads a blob.
func (f *FS) Get(_ context.Context, key string) ([]byte, error) {
	p, err := f.path(key)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return b, err
}

// List lists keys under a prefix (temporary files excluded).
func (f *FS) List(_ context.Context, prefix string) ([]string, error) {
	p, err := f.path(prefix)
	if err != nil {
		return nil, err
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		rel, err := filepath.Rel(f.root, path)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Check writes and removes a probe file in the root.
func (f *FS) Check(context.Context) error {
	tmp, err := os.CreateTemp(f.root, ".tmp-check-*")
	if err != nil {
		return fmt.Errorf("checkpoint store %s: not writable: %w", f.root, err)
	}
	name := tmp.Name()
	err = tmp.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("checkpoint store %s: %w", f.root, err)
	}
	return nil
}

// Delete removes everything under a prefix.
func (f *FS) Delete(_ context.Context, prefix string) error {
	p, err := f.path(prefix)
	if err != nil {
		return err
	}
	if p == f.root {
		return fmt.Errorf("checkpoint store: refusing to delete the whole store")
	}
	return os.RemoveAll(p)
}
