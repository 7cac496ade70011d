package file

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/strait-dev/strait/connector"
)

// commitInfo is what a writer's PrepareCommit returns: the transaction whose files are
// staged and the moves that publish them. It is plain JSON, so any process that can see
// both directories can commit it.
type commitInfo struct {
	TransactionID  string `json:"transaction_id"`
	TransactionDir string `json:"transaction_dir"`
	Moves          []move `json:"moves"`
}

// move publishes one staged file.
type move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Committer moves staged files into the sink's path. It is built from the sink's options
// alone and only acts on paths inside the staging root and the target path it was
// configured with.
type Committer struct {
	fs      FileSystem
	path    string
	tmpRoot string
	where   string
}

// Commit publishes every transaction of the request. It is idempotent: a move whose staged
// file is gone while its target exists was done by an earlier attempt, and a transaction
// whose staging directory is gone (it is removed last) was committed completely, provided
// its files are in place.
func (c *Committer) Commit(ctx context.Context, req connector.CommitRequest) error {
	infos, err := connector.DecodeInfos(req.Infos, c.decode)
	if err != nil {
		return err
	}
	for _, info := range infos {
		if err := c.commit(ctx, info); err != nil {
			return err
		}
	}
	return nil
}

// Abort deletes the staged files of transactions that will never be committed.
func (c *Committer) Abort(ctx context.Context, raw [][]byte) error {
	infos, err := connector.DecodeInfos(raw, c.decode)
	if err != nil {
		return err
	}
	var first error
	for _, info := range infos {
		if err := c.fs.RemoveAll(info.TransactionDir); err != nil && first == nil {
			first = fmt.Errorf("%s: abort transaction %s: %w", c.where, info.TransactionID, err)
		}
		removeEmptyParents(c.fs, info.TransactionDir, c.tmpRoot)
	}
	return first
}

func (c *Committer) decode(raw []byte) (*commitInfo, error) {
	var info commitInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return nil, connector.Permanent(fmt.Errorf("%s: bad commit info: %v", c.where, err))
	}
	if err := c.check(&info); err != nil {
		return nil, connector.Permanent(err)
	}
	return &info, nil
}

// check makes sure a commit info only touches this sink's directories.
func (c *Committer) check(info *commitInfo) error {
	td := filepath.Clean(info.TransactionDir)
	if info.TransactionID == "" || !filepath.IsAbs(td) || td == c.tmpRoot || !within(td, c.tmpRoot) || !stagedUnder(filepath.Base(td), info.TransactionID) {
		return fmt.Errorf("%s: commit info of transaction %q names staging directory %q outside %s", c.where, info.TransactionID, info.TransactionDir, c.tmpRoot)
	}
	info.TransactionDir = td
	for i := range info.Moves {
		m := &info.Moves[i]
		from, to := filepath.Clean(m.From), filepath.Clean(m.To)
		if !within(from, td) || from == td {
			return fmt.Errorf("%s: commit info of transaction %s moves %q, which is not staged in %s", c.where, info.TransactionID, m.From, td)
		}
		if !within(to, c.path) || to == c.path {
			return fmt.Errorf("%s: commit info of transaction %s moves a file to %q, outside path %s", c.where, info.TransactionID, m.To, c.path)
		}
		m.From, m.To = from, to
	}
	return nil
}

func (c *Committer) commit(ctx context.Context, info *commitInfo) error {
	if _, err := c.fs.Stat(info.TransactionDir); errors.Is(err, fs.ErrNotExist) {
		// The staging directory is removed after the last move: the transaction was
		// committed before, unless it was aborted.
		for _, m := range info.Moves {
			if _, err := c.fs.Stat(m.To); err != nil {
				return connector.Permanent(fmt.Errorf("%s: commit transaction %s: its staging directory is gone and %s is missing: the transaction was aborted or its files removed", c.where, info.TransactionID, m.To))
			}
		}
		return nil
	}
	made := map[string]bool{}
	for _, m := range info.Moves {
		if err := ctx.Err(); err != nil {
			return err
		}
		dir := filepath.Dir(m.To)
		if !made[dir] {
			if err := mkdirAll(c.fs, dir); err != nil {
				return fmt.Errorf("%s: commit transaction %s: create %s: %w", c.where, info.TransactionID, dir, err)
			}
			made[dir] = true
		}
		if err := moveFile(c.fs, m.From, m.To); err != nil {
			return fmt.Errorf("%s: commit transaction %s: %w", c.where, info.TransactionID, err)
		}
	}
	for dir := range made {
		syncDir(c.fs, dir)
	}
	if err := c.fs.RemoveAll(info.TransactionDir); err != nil {
		return fmt.Errorf("%s: commit transaction %s: remove staging directory: %w", c.where, info.TransactionID, err)
	}
	removeEmptyParents(c.fs, info.TransactionDir, c.tmpRoot)
	return nil
}

// moveFile moves a staged file to its target, replacing what is there. A move whose source
// is gone and whose target exists counts as done.
func moveFile(fsys FileSystem, from, to string) error {
	err := fsys.Rename(from, to)
	if err == nil {
		return nil
	}
	if _, serr := fsys.Stat(from); errors.Is(serr, fs.ErrNotExist) {
		if _, terr := fsys.Stat(to); terr == nil {
			return nil
		}
		return connector.Permanent(fmt.Errorf("staged file %s is missing and %s was never written", from, to))
	}
	return fmt.Errorf("move %s to %s: %w", from, to, err)
}

// mkdirAll creates dir and its parents. A concurrent cleanup may remove an empty parent
// between the steps (committers remove emptied staging directories), so it tries again.
func mkdirAll(fsys FileSystem, dir string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = fsys.MkdirAll(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

// syncDir makes the entries of a directory durable where the file system needs it.
func syncDir(fsys FileSystem, dir string) {
	if s, ok := fsys.(dirSyncer); ok {
		s.SyncDir(dir)
	}
}

// removeEmptyParents removes the emptied directories above a transaction directory (the
// writer's and the job's staging directories), stopping at root or at the first directory
// that still holds something.
func removeEmptyParents(fsys FileSystem, dir, root string) {
	for p := filepath.Dir(dir); p != root && within(p, root) && strings.HasPrefix(p, root); p = filepath.Dir(p) {
		if fsys.Remove(p) != nil {
			return
		}
	}
}

// stagedUnder reports whether a staging directory's name is the transaction's: its id, or
// its id and the attempt that staged it (<id>_e<epoch>).
func stagedUnder(dir, txn string) bool {
	if dir == txn {
		return true
	}
	epoch, ok := strings.CutPrefix(dir, txn+"_e")
	if !ok || epoch == "" {
		return false
	}
	for i := 0; i < len(epoch); i++ {
		if epoch[i] < '0' || epoch[i] > '9' {
			return false
		}
	}
	return true
}
