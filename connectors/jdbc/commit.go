package jdbc

import (
	"context"
	"encoding/json"
	"fmt"

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

func (c *Committer) each(ctx context.Context, infos [][]byte, do func(gid string) error) error {
	var gids []string
	for _, raw := range infos {
		if len(raw) == 0 {
			continue
		}
		g, err := c.decode(raw)
		if err != nil {
			return err
		}
		gids = append(gids, g...)
	}
	if len(gids) == 0 {
		return nil
	}
	for _, gid := range gids {
		if err := do(gid); err != nil {
			return fmt.Errorf("%s: %w", c.cfg.where, err)
		}
	}
	return nil
}

// Commit commits every writer's prepared transaction of the checkpoint.
func (c *Committer) Commit(ctx context.Context, req connector.CommitRequest) error {
	if len(req.Infos) == 0 {
		return nil
	}
	conn, err := c.cfg.db.openSink(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", c.cfg.where, err)
	}
	defer conn.close()
	return c.each(ctx, req.Infos, func(gid string) error { return conn.commitPrepared(ctx, gid) })
}

// Abort rolls back prepared transactions that will never be committed: each info's own,
// the last it lists. Those it carries belong to earlier checkpoints, which a manifest may
// hold (their commit failed after it) or which are aborted as infos of their own.
func (c *Committer) Abort(ctx context.Context, infos [][]byte) error {
	own := make([][]byte, 0, len(infos))
	for _, raw := range infos {
		if len(raw) == 0 {
			continue
		}
		gids, err := c.decode(raw)
		if err != nil {
			return err
		}
		b, err := json.Marshal(commitInfo{GIDs: gids[len(gids)-1:]})
		if err != nil {
			return err
		}
		own = append(own, b)
	}
	infos = own
	if len(infos) == 0 {
		return nil
	}
	conn, err := c.cfg.db.openSink(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", c.cfg.where, err)
	}
	defer conn.close()
	return c.each(ctx, infos, func(gid string) error { return conn.rollbackPrepared(ctx, gid) })
}
