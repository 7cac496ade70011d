package iceberg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	ice "github.com/apache/iceberg-go"
	icecat "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/codec"
	"github.com/apache/iceberg-go/table"

	"github.com/strait-dev/strait/connector"
)

// commitAttempts is how often a commit that lost a race with another writer of the table
// is tried again on the table's new metadata.
const commitAttempts = 5

// committer adds the writers' data files to the table: one snapshot per checkpoint, on the
// sink's branch, whose summary names the job, the checkpoint and the writers'
// transactions. Commits are idempotent: a transaction the branch's history already holds
// is not added again, and a checkpoint whose transactions are all there adds nothing.
type committer struct {
	s *Sink
}

func (c *committer) decode(raw []byte) (*commitInfo, error) {
	var info commitInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return nil, connector.Permanent(fmt.Errorf("%s: bad commit info: %v", c.s.where, err))
	}
	if info.Transaction == "" || len(info.Files) != len(info.Paths) || len(info.Deletes) != len(info.DeletePaths) {
		return nil, connector.Permanent(fmt.Errorf("%s: bad commit info of transaction %q", c.s.where, info.Transaction))
	}
	return &info, nil
}

// committedTransactions reads the summaries of the snapshots from head back to the
// first, and returns the writers' transactions this job committed. Transactions, not
// checkpoint ids, decide what is committed: a checkpoint's infos may come again with a later
// checkpoint, and a job run afresh under a known id numbers its checkpoints from the start
// again (its writers' transactions are new).
func (c *committer) committedTransactions(meta table.Metadata, head *table.Snapshot) map[string]bool {
	done := map[string]bool{}
	job := strconv.FormatInt(c.s.job.ID, 10)
	seen := map[int64]bool{}
	for snap := head; snap != nil && !seen[snap.SnapshotID]; {
		seen[snap.SnapshotID] = true
		if snap.Summary != nil && snap.Summary.Properties[propJobID] == job {
			for _, t := range strings.Split(snap.Summary.Properties[propTransactions], ",") {
				if t != "" {
					done[t] = true
				}
			}
		}
		if snap.ParentSnapshotID == nil {
			break
		}
		snap = meta.SnapshotByID(*snap.ParentSnapshotID)
	}
	return done
}

// Commit adds every transaction of the request not committed yet in one snapshot.
func (c *committer) Commit(ctx context.Context, req connector.CommitRequest) error {
	infos, err := connector.DecodeInfos(req.Infos, c.decode)
	if err != nil || len(infos) == 0 {
		return err
	}
	for attempt := 1; attempt <= commitAttempts; attempt++ {
		var retry bool
		retry, err = c.commit(ctx, req.CheckpointID, infos)
		if err == nil || !retry || ctx.Err() != nil {
			break
		}
		slog.Warn("Iceberg sink: commit lost a race with another writer; trying again on the table's new metadata",
			"plugin", c.s.where, "table", c.s.cfg.tableName(), "checkpoint", req.CheckpointID, "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
		}
	}
	return err
}

func (c *committer) commit(ctx context.Context, checkpointID int64, infos []*commitInfo) (retry bool, err error) {
	s := c.s
	cat, tbl, err := s.loadTable(ctx)
	if err != nil {
		return false, err
	}
	branch := s.branch()
	meta := tbl.Metadata()
	head := tbl.SnapshotByName(branch)
	done := c.committedTransactions(meta, head)
	var files, deletes []ice.DataFile
	var txns []string
	for _, info := range infos {
		if done[info.Transaction] {
			continue
		}
		spec := meta.PartitionSpecByID(info.SpecID)
		var sc *ice.Schema
		for _, x := range meta.Schemas() {
			if x.ID == info.SchemaID {
				sc = x
			}
		}
		if spec == nil || sc == nil {
			return false, connector.Permanent(s.errorf("transaction %s was written for schema %d and partition spec %d, which the table no longer has", info.Transaction, info.SchemaID, info.SpecID))
		}
		for i, b := range info.Files {
			df, err := codec.DecodeDataFile(b, *spec, sc, info.FormatVersion)
			if err != nil {
				return false, connector.Permanent(s.errorf("transaction %s: data file %s: %v", info.Transaction, info.Paths[i], err))
			}
			files = append(files, df)
		}
		for i, b := range info.Deletes {
			df, err := codec.DecodeDataFile(b, *spec, sc, info.FormatVersion)
			if err != nil {
				return false, connector.Permanent(s.errorf("transaction %s: delete file %s: %v", info.Transaction, info.DeletePaths[i], err))
			}
			deletes = append(deletes, df)
		}
		txns = append(txns, info.Transaction)
	}
	if len(txns) == 0 {
		slog.Info("Iceberg sink: checkpoint already committed", "plugin", s.where, "table", s.cfg.tableName(), "checkpoint", checkpointID, "branch", branch)
		return false, nil
	}
	if branch != table.MainBranch && head == nil {
		if tbl, err = c.createBranch(ctx, cat, tbl, branch); err != nil {
			return true, err
		}
	}
	props := ice.Properties{
		propJobID:        strconv.FormatInt(s.job.ID, 10),
		propCheckpointID: strconv.FormatInt(checkpointID, 10),
		propTransactions: strings.Join(txns, ","),
	}
	tx := tbl.NewTransactionOnBranch(branch)
	if len(deletes) > 0 {
		// upsert mode: the rows and the equality deletes of their keys in one snapshot,
		// where the deletes apply to the rows of earlier snapshots only
		if err := tx.NewRowDelta(props).AddRows(files...).AddDeletes(deletes...).Commit(ctx); err != nil {
			return isConflict(err), s.errorf("checkpoint %d: add %d data files and %d delete files: %v", checkpointID, len(files), len(deletes), err)
		}
	} else if err := tx.AddDataFiles(ctx, files, props, table.WithoutDuplicateCheck()); err != nil {
		// The data files are new (named by the writers' random ids) and the history above
		// holds none of their transactions: no scan of the table's files for duplicates.
		return false, s.errorf("checkpoint %d: add %d data files: %v", checkpointID, len(files), err)
	}
	if _, err := tx.Commit(ctx); err != nil {
		return isConflict(err), s.errorf("checkpoint %d: commit %d data files to branch %s: %v", checkpointID, len(files), branch, err)
	}
	slog.Info("Iceberg sink: committed", "plugin", s.where, "table", s.cfg.tableName(), "checkpoint", checkpointID,
		"branch", branch, "files", len(files), "delete files", len(deletes), "transactions", len(txns))
	return false, nil
}

// isConflict reports whether a commit failed because the table changed under it: trying
// again on the new metadata may succeed. Any other failure is tried again by the engine.
// The REST catalog says so with ErrCommitFailed; the Hadoop and SQL catalogs check the
// commit's requirements against the table's current metadata and return the one that
// failed as a plain error, which iceberg-go words "Requirement failed: ...".
func isConflict(err error) bool {
	return errors.Is(err, table.ErrCommitFailed) || errors.Is(err, table.ErrCommitDiverged) ||
		err != nil && strings.Contains(err.Error(), "Requirement failed:")
}

// createBranch creates the sink's branch at main's current snapshot, as SeaTunnel does
// before its first commit; on a table without snapshots the first commit creates it.
func (c *committer) createBranch(ctx context.Context, cat icecat.Catalog, tbl *table.Table, branch string) (*table.Table, error) {
	cur := tbl.CurrentSnapshot()
	if cur == nil {
		return tbl, nil
	}
	_, _, err := cat.CommitTable(ctx, tbl.Identifier(),
		[]table.Requirement{table.AssertRefSnapshotID(branch, nil)},
		[]table.Update{table.NewSetSnapshotRefUpdate(branch, cur.SnapshotID, table.BranchRef, 0, 0, 0)})
	if err != nil {
		return nil, c.s.errorf("create branch %s at snapshot %d: %v", branch, cur.SnapshotID, err)
	}
	slog.Info("Iceberg sink: branch created", "plugin", c.s.where, "table", c.s.cfg.tableName(), "branch", branch, "snapshot", cur.SnapshotID)
	return cat.LoadTable(ctx, tbl.Identifier())
}

// Abort deletes the data files of transactions that will never be committed. A
// transaction the table's history holds (the engine never aborts one, but a table is
// shared) keeps its files.
func (c *committer) Abort(ctx context.Context, infos [][]byte) error {
	s := c.s
	list, err := connector.DecodeInfos(infos, c.decode)
	if err != nil || len(list) == 0 {
		return err
	}
	_, tbl, err := s.loadTable(ctx)
	if err != nil {
		if connector.IsPermanent(err) {
			return nil // no table: nothing of it to keep, and its files went with it
		}
		return err
	}
	// every snapshot of the table, on any branch
	done := map[string]bool{}
	job := strconv.FormatInt(s.job.ID, 10)
	for _, snap := range tbl.Metadata().Snapshots() {
		if snap.Summary == nil || snap.Summary.Properties[propJobID] != job {
			continue
		}
		for _, t := range strings.Split(snap.Summary.Properties[propTransactions], ",") {
			done[t] = true
		}
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return s.errorf("abort: %v", err)
	}
	var first error
	for _, info := range list {
		if done[info.Transaction] {
			slog.Warn("Iceberg sink: not aborting a committed transaction", "plugin", s.where, "table", s.cfg.tableName(), "transaction", info.Transaction)
			continue
		}
		for _, p := range append(append([]string(nil), info.Paths...), info.DeletePaths...) {
			if !strings.HasPrefix(p, strings.TrimRight(tbl.Location(), "/")+"/") {
				if first == nil {
					first = connector.Permanent(s.errorf("abort transaction %s: data file %s is outside the table's location %s", info.Transaction, p, tbl.Location()))
				}
				continue
			}
			if err := fsys.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrNotExist) && first == nil {
				first = s.errorf("abort transaction %s: remove %s: %v", info.Transaction, p, err)
			}
		}
		slog.Info("Iceberg sink: transaction aborted", "plugin", s.where, "table", s.cfg.tableName(), "transaction", info.Transaction, "files", len(info.Paths))
	}
	return first
}
