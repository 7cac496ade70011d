// Package plantest plans job configs for the tests of the plugins: a plugin's tests may
// plan jobs, while the plugin itself never imports the planner (internal/layers), so its
// test files hand plantest's functions to the helpers that check it (optiontest).
package plantest

import (
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
)

// Warnings plans the job config text (HOCON) as `strait run` does and returns the plan's
// warnings, or the planner's error.
func Warnings(text string) ([]string, error) {
	pp, err := planner.Plan(contract.ConfigSource{File: "job.conf", Text: text}, connector.Job{ID: 1})
	if err != nil {
		return nil, err
	}
	return pp.Warnings, nil
}
