package file

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// FileSystem is everything the file connectors' source, sink, save modes and committer ask
// of the store that holds the files. LocalFile is the process's own file system; another
// store (S3File's bucket) implements the same operations on clean, absolute, slash-separated
// paths. Errors for a missing path wrap fs.ErrNotExist.
type FileSystem interface {
	// Abs turns a path option into the clean absolute path the other methods take.
	Abs(p string) string
	// Stat describes the file or directory at p.
	Stat(p string) (Entry, error)
	// Walk visits the regular files at or below root in lexical order of their paths, until
	// visit returns false. Empty files are visited too: the source decides what it reads.
	Walk(root string, visit func(p string, size int64) bool) error
	// ReadDir lists the entries directly in dir, in name order.
	ReadDir(dir string) ([]Entry, error)
	// Open opens a file for reading at any offset.
	Open(p string) (ReadFile, error)
	// Create starts a new file at p (its directory exists or is made), replacing one there.
	Create(p string) (WriteFile, error)
	// Rename moves the file from to to, replacing to. It need not be atomic across the
	// two names, but to is whole whenever it exists.
	Rename(from, to string) error
	// Remove deletes the file or empty directory at p.
	Remove(p string) error
	// RemoveAll deletes p and everything below it; a missing p is no error.
	RemoveAll(p string) error
	// MkdirAll makes the directory p and its parents.
	MkdirAll(p string) error
}

// Entry is what Stat and ReadDir say of a path.
type Entry struct {
	Name  string
	Dir   bool
	Size  int64
	MTime int64 // modification time, Unix nanoseconds
}

// ReadFile is a file open for reading: at any offset, and its size known.
type ReadFile interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// WriteFile is a file being written. Close makes what was written durable and complete
// (an error means the file cannot be relied on); Abort gives it up and releases what it
// holds, leaving at most a partial file to be removed with its directory.
type WriteFile interface {
	io.Writer
	Close() error
	Abort()
}

// dirSyncer is a file system whose directory entries become durable only when synced.
type dirSyncer interface {
	SyncDir(dir string)
}

// Local is the process's own file system.
type Local struct{}

var _ FileSystem = Local{}

// Abs cleans p and makes it absolute (relative paths resolve against the working
// directory of the process that reads the option). A file:// URI names a local path.
func (Local) Abs(p string) string { return absPath(p) }

func (Local) Stat(p string) (Entry, error) {
	info, err := os.Stat(p)
	if err != nil {
		return Entry{}, err
	}
	return entryOf(info), nil
}

func entryOf(info fs.FileInfo) Entry {
	return Entry{Name: info.Name(), Dir: info.IsDir(), Size: info.Size(), MTime: info.ModTime().UnixNano()}
}

// Walk descends into every directory and follows links to files (a dangling link is
// passed over).
func (Local) Walk(root string, visit func(p string, size int64) bool) error {
	stop := errors.New("stop")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if info, err = os.Stat(p); err != nil {
				return nil // a dangling link
			}
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		if !visit(p, info.Size()) {
			return stop
		}
		return nil
	})
	if errors.Is(err, stop) {
		return nil
	}
	return err
}

func (Local) ReadDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(des))
	for _, d := range des {
		out = append(out, Entry{Name: d.Name(), Dir: d.IsDir()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (Local) Open(p string) (ReadFile, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &localReadFile{File: f, size: st.Size()}, nil
}

type localReadFile struct {
	*os.File
	size int64
}

func (f *localReadFile) Size() int64 { return f.size }

func (Local) Create(p string) (WriteFile, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	return localWriteFile{f}, nil
}

// localWriteFile syncs the file before it closes it.
type localWriteFile struct{ f *os.File }

func (w localWriteFile) Write(b []byte) (int, error) { return w.f.Write(b) }

func (w localWriteFile) Close() error {
	err := w.f.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (w localWriteFile) Abort() { w.f.Close() }

// Rename renames within a file system; across file systems it copies into a hidden file
// beside the target, syncs it, renames it into place and removes the source.
func (Local) Rename(from, to string) error {
	err := rename(from, to)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	return copyAcross(from, to)
}

// rename is os.Rename; tests replace it to simulate moves across file systems.
var rename = os.Rename

func (Local) Remove(p string) error    { return os.Remove(p) }
func (Local) RemoveAll(p string) error { return os.RemoveAll(p) }
func (Local) MkdirAll(p string) error  { return os.MkdirAll(p, 0o777) }

// SyncDir makes the entries of a directory durable. File systems that cannot sync a
// directory are left alone: it is a durability refinement, not a correctness step.
func (Local) SyncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

func copyAcross(from, to string) (err error) {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".strait-copy")
	dst, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			dst.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = io.Copy(dst, src); err != nil {
		return fmt.Errorf("copy to %s: %w", tmp, err)
	}
	if err = dst.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = dst.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, to); err != nil {
		return err
	}
	if err = os.Remove(from); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove staged file %s: %w", from, err)
	}
	return nil
}
