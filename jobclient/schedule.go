package jobclient

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/strait-dev/strait/contract"
)

// ScheduleSpec says when a schedule runs its job: cron expressions (Temporal's, with an
// optional seconds field), a fixed interval, or both.
type ScheduleSpec struct {
	Cron  []string
	Every time.Duration
	// AllowOverlap starts a run even while the previous one is still running; by default a
	// run due then is skipped.
	AllowOverlap bool
}

// ScheduleSummary is one line of a schedule listing.
type ScheduleSummary struct {
	Name    string      `json:"name"`
	Spec    string      `json:"spec"`
	Paused  bool        `json:"paused,omitempty"`
	Next    []time.Time `json:"next,omitempty"`
	Recent  []time.Time `json:"recent,omitempty"`
	JobName string      `json:"jobName,omitempty"`
}

// CreateSchedule makes a Temporal schedule that runs the job on spec; each run is a new job
// with an id of its own (ScheduledJobWorkflow).
func CreateSchedule(ctx context.Context, c client.Client, name string, src contract.ConfigSource, jobName string, spec ScheduleSpec) error {
	if err := checkScheduleName(name); err != nil {
		return err
	}
	if len(spec.Cron) == 0 && spec.Every <= 0 {
		return fmt.Errorf("schedule %s: give a cron expression or an interval", name)
	}
	var s client.ScheduleSpec
	s.CronExpressions = spec.Cron
	if spec.Every > 0 {
		if spec.Every < time.Second {
			return fmt.Errorf("schedule %s: the interval must be a second or more, got %v", name, spec.Every)
		}
		s.Intervals = []client.ScheduleIntervalSpec{{Every: spec.Every}}
	}
	overlap := enumspb.SCHEDULE_OVERLAP_POLICY_SKIP
	if spec.AllowOverlap {
		overlap = enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL
	}
	in := contract.JobInput{Config: src.Text, File: src.File, Vars: src.Vars, Name: jobName}
	if err := sealInput(&in); err != nil {
		return fmt.Errorf("schedule %s: %w", name, err)
	}
	// the spec as written: Temporal answers with cron expressions turned into calendars
	var when []string
	for _, c := range spec.Cron {
		when = append(when, "cron "+c)
	}
	if spec.Every > 0 {
		when = append(when, "every "+spec.Every.String())
	}
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:      contract.ScheduleID(name),
		Spec:    s,
		Overlap: overlap,
		Memo:    map[string]any{"jobName": jobName, "spec": strings.Join(when, "; ")},
		Action: &client.ScheduleWorkflowAction{
			ID:        contract.ScheduledWorkflowID(name),
			Workflow:  contract.ScheduledJobWorkflowName,
			Args:      []any{in},
			TaskQueue: contract.JobsQueue,
		},
	})
	if err != nil {
		if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
			return fmt.Errorf("schedule %s exists already; delete it first", name)
		}
		return fmt.Errorf("create schedule %s: %w", name, err)
	}
	return nil
}

// DeleteSchedule deletes a schedule; jobs it started go on.
func DeleteSchedule(ctx context.Context, c client.Client, name string) error {
	if err := c.ScheduleClient().GetHandle(ctx, contract.ScheduleID(name)).Delete(ctx); err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("no schedule %s", name)
		}
		return fmt.Errorf("delete schedule %s: %w", name, err)
	}
	return nil
}

// TriggerSchedule runs a schedule's job now, whatever its spec says.
func TriggerSchedule(ctx context.Context, c client.Client, name string) error {
	err := c.ScheduleClient().GetHandle(ctx, contract.ScheduleID(name)).Trigger(ctx, client.ScheduleTriggerOptions{
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL,
	})
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return fmt.Errorf("no schedule %s", name)
		}
		return fmt.Errorf("trigger schedule %s: %w", name, err)
	}
	return nil
}

// ListSchedules lists Strait's schedules by name.
func ListSchedules(ctx context.Context, c client.Client) ([]ScheduleSummary, error) {
	it, err := c.ScheduleClient().List(ctx, client.ScheduleListOptions{PageSize: 100})
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	var out []ScheduleSummary
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("list schedules: %w", err)
		}
		name, ok := strings.CutPrefix(e.ID, contract.ScheduleID(""))
		if !ok {
			continue
		}
		s := ScheduleSummary{Name: name, Paused: e.Paused, Next: e.NextActionTimes}
		for _, r := range e.RecentActions {
			s.Recent = append(s.Recent, r.ActualTime)
		}
		if e.Spec != nil {
			s.Spec = describeSpec(e.Spec)
		}
		if e.Memo != nil {
			if p, ok := e.Memo.Fields["jobName"]; ok {
				s.JobName = strings.Trim(string(p.GetData()), `"`)
			}
			if p, ok := e.Memo.Fields["spec"]; ok {
				s.Spec = strings.Trim(string(p.GetData()), `"`)
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func describeSpec(s *client.ScheduleSpec) string {
	var parts []string
	parts = append(parts, s.CronExpressions...)
	for _, iv := range s.Intervals {
		parts = append(parts, "every "+iv.Every.String())
	}
	for _, cal := range s.Calendars {
		parts = append(parts, fmt.Sprintf("calendar %v", cal))
	}
	return strings.Join(parts, "; ")
}

// checkScheduleName keeps names usable in workflow ids and on a command line.
func checkScheduleName(name string) error {
	if name == "" {
		return errors.New("a schedule needs a name")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("schedule name %q: use letters, digits, '-', '_' and '.'", name)
		}
	}
	return nil
}
