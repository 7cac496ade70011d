package jobclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/contract"
)

// Cluster asks the resource manager for its runners and slots. A resource manager that is
// not running yet (no runner ever registered) has none: that is an empty status, not an
// error.
func Cluster(ctx context.Context, c client.Client) (*contract.ClusterStatus, error) {
	v, err := c.QueryWorkflow(ctx, contract.ResourceManagerID, "", contract.ClusterQuery)
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return &contract.ClusterStatus{}, nil
		}
		return nil, fmt.Errorf("cluster status: %w", err)
	}
	var cs contract.ClusterStatus
	if err := v.Get(&cs); err != nil {
		return nil, fmt.Errorf("cluster status: %w", err)
	}
	return &cs, nil
}

// RunnerAlive asks the resource manager whether it holds the runner alive.
func RunnerAlive(ctx context.Context, c client.Client, id string) (bool, error) {
	cs, err := Cluster(ctx, c)
	if err != nil {
		return false, fmt.Errorf("runner %s: %w", id, err)
	}
	for _, r := range cs.Runners {
		if r.ID == id {
			return r.State == contract.RunnerStateAlive, nil
		}
	}
	return false, nil
}

// Capacity sums the slots of the alive runners whose tags carry every key of filter with
// its value (an empty filter matches every runner).
func Capacity(cs *contract.ClusterStatus, filter map[string]string) (runners, slots, free int) {
	for _, r := range cs.Runners {
		if r.State != contract.RunnerStateAlive || !hasTags(r.Tags, filter) {
			continue
		}
		runners++
		slots += r.Slots
		free += r.Free
	}
	return runners, slots, free
}

func hasTags(tags, filter map[string]string) bool {
	for k, v := range filter {
		if tags[k] != v {
			return false
		}
	}
	return true
}

// Owners lists, in slot order and once each, the allocations holding a runner's slots.
func Owners(r contract.RunnerView) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range r.Owner {
		if o != "" && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}

// PrintCluster prints a cluster status for people: one line per runner.
func PrintCluster(w io.Writer, cs *contract.ClusterStatus) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUNNER\tSTATE\tSLOTS\tFREE\tTAGS\tLOAD\tOWNERS")
	for _, r := range cs.Runners {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%v\t%s\t%v\n", r.ID, r.State, r.Slots, r.Free, r.Tags, loadText(r.Load), Owners(r))
	}
	return tw.Flush()
}

// loadText renders a runner's last load report.
func loadText(l *contract.Load) string {
	if l == nil {
		return "-"
	}
	return fmt.Sprintf("cpu %.0f%% mem %.0f%%", l.CPU*100, l.Memory*100)
}
