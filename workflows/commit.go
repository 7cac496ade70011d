package workflows

import (
	"sort"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/strait-dev/strait/contract"
)

// workerHeartbeat is the heartbeat timeout of the activities the jobs workers run (the
// workers heartbeat for them a third of it apart while they run): when a worker dies with
// one, it is retried on another after this long, not after its start-to-close timeout.
const workerHeartbeat = 10 * time.Second

// restorePoint loads the checkpoint to start from and commits its sinks' infos again
// (committers are idempotent: what was committed stays, what was not confirmed is made
// visible), so the restarted tasks continue exactly after it. A failover starts from the
// newest checkpoint this run of the job completed (or restored), never from one it only
// finds in the store, which may be an earlier run's under the same id; an explicit restore
// starts from the newest in the store, and the status names it. Without a checkpoint the
// tasks start over (nil).
func (pr *pipelineRun) restorePoint(ctx workflow.Context, failover bool) (*contract.Restore, error) {
	in := contract.LoadInput{Job: pr.in.JobID, Pipeline: pr.in.Pipeline.ID}
	if failover && workflow.GetVersion(ctx, "restore-own-checkpoint", workflow.DefaultVersion, 1) == 1 {
		if pr.cp.completed == 0 {
			pr.status.RestoredFrom, pr.status.Restored = 0, contract.Counters{}
			return nil, nil
		}
		in.Checkpoint = pr.cp.completed
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		HeartbeatTimeout:    workerHeartbeat,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
	})
	var m *contract.Manifest
	if err := workflow.ExecuteActivity(actx, contract.LoadCheckpointActivity, in).Get(ctx, &m); err != nil {
		return nil, err
	}
	if m == nil || m.Checkpoint == 0 {
		pr.status.RestoredFrom, pr.status.Restored = 0, contract.Counters{}
		return nil, nil
	}
	if err := pr.commitInfos(ctx, m.Checkpoint, false, manifestCommits(m)); err != nil {
		return nil, err
	}
	pr.cp.restoredFrom(m.Checkpoint)
	pr.status.RestoredFrom, pr.status.Restored = m.Checkpoint, m.Counters
	r := &contract.Restore{Checkpoint: m.Checkpoint, States: map[string]string{}}
	for _, t := range m.Tasks {
		r.States[t.Task] = t.Key
	}
	return r, nil
}

// manifestCommits lists a checkpoint's commit infos by sink vertex and writer.
func manifestCommits(m *contract.Manifest) []contract.CommitInfo {
	vertices := make([]int, 0, len(m.Commits))
	for v := range m.Commits {
		vertices = append(vertices, v)
	}
	sort.Ints(vertices)
	var infos []contract.CommitInfo
	for _, v := range vertices {
		for i, info := range m.Commits[v] {
			infos = append(infos, contract.CommitInfo{Vertex: v, Subtask: i, Info: info})
		}
	}
	return infos
}

// commit runs each sink's committer with the final commit infos of its writers and those
// carried from checkpoints that did not complete.
func (pr *pipelineRun) commit(ctx workflow.Context, checkpointID int64) error {
	all := append([]contract.CommitInfo(nil), pr.cp.carried...)
	for _, t := range pr.sortedTasks() {
		all = append(all, t.Commits...)
	}
	return pr.commitInfos(ctx, checkpointID, true, all)
}

// commitInfos runs each sink's committer with its writers' commit infos of a checkpoint.
func (pr *pipelineRun) commitInfos(ctx workflow.Context, checkpointID int64, final bool, all []contract.CommitInfo) error {
	return pr.endInfos(ctx, checkpointID, final, false, all)
}

// abortUncompleted discards the prepared writes of checkpoints that never completed when the
// pipeline stops for good (cancelled, or failed past its retries); without it a Jdbc sink's
// prepared transactions keep their locks, and a Kafka sink's transactions hold the
// partitions' last stable offset until the broker's transaction timeout. Only the
// coordinator can decide this: a writer stopped between a checkpoint's prepare and its commit
// cannot know whether that checkpoint completed. Writes whose acknowledgement never arrived
// stay prepared; a restore of the job ends them, as its writers abort what the restored
// checkpoint does not hold. A failed abort is logged: the job ends as it would have.
func (pr *pipelineRun) abortUncompleted(ctx workflow.Context) {
	infos := pr.cp.abortable()
	if len(infos) == 0 || workflow.GetVersion(ctx, "abort-uncompleted-on-stop", workflow.DefaultVersion, 1) != 1 {
		return
	}
	if err := pr.endInfos(ctx, pr.cp.nextID, false, true, infos); err != nil {
		workflow.GetLogger(ctx).Warn("aborting the writes of checkpoints that did not complete", "error", causeOf(err))
	}
	pr.cp.carried = pr.cp.carried[:pr.cp.inManifest]
}

// endInfos commits (or aborts) sinks' commit infos: every sink in one CommitCheckpoint
// activity (histories from before ran one CommitSinks activity per sink in vertex order, each
// with its own events and workflow task).
func (pr *pipelineRun) endInfos(ctx workflow.Context, checkpointID int64, final, abort bool, all []contract.CommitInfo) error {
	infos := map[int][]contract.CommitInfo{}
	for _, c := range all {
		infos[c.Vertex] = append(infos[c.Vertex], c)
	}
	vertices := make([]int, 0, len(infos))
	for v := range infos {
		vertices = append(vertices, v)
	}
	sort.Ints(vertices)
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		HeartbeatTimeout:    workerHeartbeat,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 10,
			NonRetryableErrorTypes: []string{contract.CommitFailedType, contract.ConfigErrorType}},
	})
	in := contract.CommitCheckpointInput{Job: pr.in.Job, CheckpointID: checkpointID, Final: final, Abort: abort}
	for _, vid := range vertices {
		cs := infos[vid]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Subtask < cs[j].Subtask })
		raw := make([][]byte, len(cs))
		for i, c := range cs {
			raw[i] = c.Info
		}
		in.Sinks = append(in.Sinks, contract.SinkCommit{Vertex: pr.in.Vertex(vid), Infos: raw})
	}
	if len(in.Sinks) == 0 {
		return nil
	}
	if workflow.GetVersion(ctx, "one-commit-activity", workflow.DefaultVersion, 1) == 1 {
		return workflow.ExecuteActivity(actx, contract.CommitCheckpointActivity, in).Get(ctx, nil)
	}
	for _, one := range in.Each() {
		if err := workflow.ExecuteActivity(actx, contract.CommitActivity, one).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}
