// Package jobinfo is what every side of Strait knows of the job a plugin runs in: its number,
// its name and its mode. The plugin API (connector) and the contract the control plane speaks
// (contract) both name these types, so a job's identity crosses from the plan to the plugins
// without a conversion; the package imports nothing of Strait.
package jobinfo

// Mode is SeaTunnel's env.job.mode.
type Mode string

// The job modes.
const (
	Batch     Mode = "BATCH"
	Streaming Mode = "STREAMING"
)

// Job identifies a job to the plugins that run in it.
type Job struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Mode Mode   `json:"mode"`
}
