package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/connectors/all"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planner"
	_ "github.com/strait-dev/strait/transform/all"
)

func planCmd(args []string) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var vars multi
	fs.Var(&vars, "i", "variable key=value (repeatable)")
	dot := fs.Bool("dot", false, "print Graphviz dot")
	pos, ok := positional(fs, args, 1, "one job config")
	if !ok {
		return 2
	}
	// the warnings go to stderr, as `strait run` prints them, the plan to stdout
	_, plan, code := loadJob(pos[0], vars, "")
	if plan == nil {
		return code
	}
	if *dot {
		planner.WriteDot(os.Stdout, plan)
	} else {
		planner.WriteText(os.Stdout, plan)
	}
	return 0
}

// loadPlan reads and plans a job config and returns the config as read (what a client
// submits) with its plan; a bad config is reported plainly, the plan is nil and the exit
// code 2.
func loadPlan(file string, vars []string, name string) (contract.ConfigSource, *contract.Plan, int) {
	vm, err := planner.ParseVars(vars)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return contract.ConfigSource{}, nil, 2
	}
	src, err := planner.ReadSource(file, vm, name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return contract.ConfigSource{}, nil, 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), planner.Timeout)
	defer cancel()
	plan, err := planner.PlanContext(ctx, src, connector.Job{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: config error: %v\n", err)
		return contract.ConfigSource{}, nil, 2
	}
	return src, plan, 0
}

// loadJob is loadPlan for a job about to be submitted: the plan's warnings go to stderr.
func loadJob(file string, vars []string, name string) (contract.ConfigSource, *contract.Plan, int) {
	src, plan, code := loadPlan(file, vars, name)
	if plan != nil {
		for _, w := range plan.Warnings {
			fmt.Fprintf(os.Stderr, "strait: warning: %s\n", w)
		}
	}
	return src, plan, code
}
