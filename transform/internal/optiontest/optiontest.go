// Package optiontest checks a transform's declared options as the planner uses them: it
// plans a job of FakeSource, the transform and Console and compares the planner's error and
// warnings (unknown options, with the nearest known name) with what a case expects.
//
// The planner builds its plan from the plugins, so the plugins never import it: the test
// that calls Check hands the planning over as a Plan (test files may import the planner;
// planner/plantest.Warnings is the one `strait run` does).
package optiontest

import (
	"strings"
	"testing"

	_ "github.com/strait-dev/strait/connectors/console" // the Console sink
	_ "github.com/strait-dev/strait/connectors/fake"    // FakeSource
)

// A Case is one transform block and what planning it gives.
type Case struct {
	Block   string // the transform's block, e.g. `Copy { fieldz { a = id } }`
	Warning string // a text the one warning holds; empty: no warning
	Err     string // a text the planning error holds; empty: it plans
}

// A Plan plans the text of a job (named job.conf in its errors) as `strait run` does and
// returns the plan's warnings.
type Plan func(text string) (warnings []string, err error)

// Job is the text of a job of FakeSource (a table of the given schema fields,
// `id = int, name = string`), the transform block and Console.
func Job(fields, block string) string {
	return "env { job.mode = BATCH }\n" +
		"source { FakeSource { plugin_output = src, row.num = 1, schema = { fields { " + fields + " } } } }\n" +
		"transform {\n" + block + "\n}\n" +
		"sink { Console { log.print.data = false } }\n"
}

// Check plans every case on an input of the given schema fields.
func Check(t *testing.T, plan Plan, fields string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		warnings, err := plan(Job(fields, c.Block))
		switch {
		case c.Err != "":
			if err == nil || !strings.Contains(err.Error(), c.Err) {
				t.Errorf("%s: error %v, want %q", c.Block, err, c.Err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.Block, err)
		case c.Warning == "" && len(warnings) > 0:
			t.Errorf("%s: warnings %q, want none", c.Block, warnings)
		case c.Warning != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], c.Warning)):
			t.Errorf("%s: warnings %q, want one with %q", c.Block, warnings, c.Warning)
		}
	}
}
