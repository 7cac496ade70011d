package contract

import "time"

// The defaults of the workflows' tunables: what a zero field of Tunables means.
const (
	// DefaultJobEventsBeforeContinue is how many signals and timers one run of a job
	// workflow that follows its pipelines takes before it continues as new (sooner when
	// Temporal suggests it): each costs a few history events, and a streaming job's progress
	// signals would otherwise reach Temporal's history limit.
	DefaultJobEventsBeforeContinue = 2000
	// DefaultPipelineSilence is how long a job goes without a signal from a running pipeline
	// before it looks the pipeline workflow up (a pipeline sends one at least every
	// progress heartbeat).
	DefaultPipelineSilence = 5 * time.Minute
	// DefaultPipelineEventsBeforeContinue is how many reports, checkpoint timers and other
	// events one pipeline run takes before it continues as new.
	DefaultPipelineEventsBeforeContinue = 1000
	// DefaultFailoverRunnerWait is how long a failover waits for slots before the pipeline
	// fails.
	DefaultFailoverRunnerWait = 30 * time.Second
	// DefaultProgressInterval is the least time between two progress signals of a pipeline
	// whose state or counts changed; DefaultProgressHeartbeat the most time between two when
	// nothing changed, so its job knows it is alive and the pipeline learns soon when its
	// job is gone.
	DefaultProgressInterval  = 10 * time.Second
	DefaultProgressHeartbeat = time.Minute
	// DefaultResourceEventsBeforeContinue bounds one resource manager run's history: after
	// this many signals, updates and lease ends it continues as new, well before Temporal's
	// limits (10,000 signals, 51,200 events).
	DefaultResourceEventsBeforeContinue = 1000
)

// Tunables are the workflows' timings and history bounds. They travel in the workflows'
// inputs (JobInput, PipelineInput, ResourceState) rather than living in package state, so a
// run reads the same values on every worker and in its replays, and a test shortens them
// for its own runs only. A job hands its tunables to its pipelines, and every run hands its
// own to the run it continues as. A zero field means the default; the fields a workflow
// does not read are ignored by it.
type Tunables struct {
	// JobEventsBeforeContinue (the job workflow): DefaultJobEventsBeforeContinue.
	JobEventsBeforeContinue int `json:"jobEventsBeforeContinue,omitempty"`
	// PipelineSilence (the job workflow): DefaultPipelineSilence.
	PipelineSilence time.Duration `json:"pipelineSilence,omitempty"`
	// PipelineEventsBeforeContinue (the pipeline workflow): DefaultPipelineEventsBeforeContinue.
	PipelineEventsBeforeContinue int `json:"pipelineEventsBeforeContinue,omitempty"`
	// FailoverRunnerWait (the pipeline workflow): DefaultFailoverRunnerWait.
	FailoverRunnerWait time.Duration `json:"failoverRunnerWait,omitempty"`
	// ProgressInterval and ProgressHeartbeat (the pipeline workflow): DefaultProgressInterval
	// and DefaultProgressHeartbeat.
	ProgressInterval  time.Duration `json:"progressInterval,omitempty"`
	ProgressHeartbeat time.Duration `json:"progressHeartbeat,omitempty"`
	// ResourceEventsBeforeContinue (the resource manager): DefaultResourceEventsBeforeContinue.
	ResourceEventsBeforeContinue int `json:"resourceEventsBeforeContinue,omitempty"`
}

// Effective returns the tunables a workflow runs with: each field that is zero (or
// negative) replaced by its default. The workflows read it where they use a tunable and
// hand on the input's tunables as given.
func (t Tunables) Effective() Tunables {
	orInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	orDuration := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	orInt(&t.JobEventsBeforeContinue, DefaultJobEventsBeforeContinue)
	orDuration(&t.PipelineSilence, DefaultPipelineSilence)
	orInt(&t.PipelineEventsBeforeContinue, DefaultPipelineEventsBeforeContinue)
	orDuration(&t.FailoverRunnerWait, DefaultFailoverRunnerWait)
	orDuration(&t.ProgressInterval, DefaultProgressInterval)
	orDuration(&t.ProgressHeartbeat, DefaultProgressHeartbeat)
	orInt(&t.ResourceEventsBeforeContinue, DefaultResourceEventsBeforeContinue)
	return t
}
