package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/strait-dev/strait/connector"
)

// commitInfo lists a writer's prepared transactions at a checkpoint: the checkpoint's own
// and those of earlier checkpoints that were aborted (PostgreSQL's transaction names, or
// MySQL's XA ids).
type commitInfo struct {
	GIDs []string `json:"gids"`
}

// Committer commits the prepared transactions of completed checkpoints. It is idempotent: a
// transaction that is no longer prepared was committed by an earlier attempt.
type Committer struct{ cfg *sinkConfig }

func (c *Committer) decode(raw []byte) ([]string, error) {
	var info commitInfo
	if err := json.Unmarshal(raw, &info); err != nil || len(info.GIDs) == 0 {
		return nil, connector.Permanent(fmt.Errorf("%s: bad commit info %q", c.cfg.where, raw))
	}
	return info.GIDs, nil
}

// each does do to every transaction gids names, on one connection of the sink's.
func (c *Committer) each(ctx context.Context, gids []string, do func(conn sinkConn, gid string) error) error {
	if len(gids) == 0 {
		return nil
	}
	conn, err := c.cfg.db.openSink(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", c.cfg.where, err)
	}
	defer conn.close()
	for _, gid := range gids {
		if err := do(conn, gid); err != nil {
			return fmt.Errorf("%s: %w", c.cfg.where, err)
		}
	}
	return nil
}

// Commit commits every writer's prepared transaction of the checkpoint.
func (c *Committer) Commit(ctx context.Context, req connector.CommitRequest) error {
	lists, err := connector.DecodeInfos(req.Infos, c.decode)
	if err != nil {
		return err
	}
	return c.each(ctx, slices.Concat(lists...), func(conn sinkConn, gid string) error { return conn.commitPrepared(ctx, gid) })
}

// Abort rolls back prepared transactions that will never be committed: each info's own,
// the last it lists. Those it carries belong to earlier checkpoints, which a manifest may
// hold (their commit failed after it) or which are aborted as infos of their own.
func (c *Committer) Abort(ctx context.Context, infos [][]byte) error {
	lists, err := connector.DecodeInfos(infos, c.decode)
	if err != nil {
		return err
	}
	own := make([]string, 0, len(lists))
	for _, gids := range lists {
		own = append(own, gids[len(gids)-1])
	}
	return c.each(ctx, own, func(conn sinkConn, gid string) error { return conn.rollbackPrepared(ctx, gid) })
}
