package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/jobclient"
)

const scheduleUsage = `Usage: strait schedule <command> [flags]

Commands:
  create <name> (--cron "0 2 * * *" | --every 15m) [-i key=value]... <job.conf>
  list [-o json]
  trigger <name>
  delete <name>

Every command takes Temporal's connection flags; "strait schedule <command> --help" lists them.
`

func scheduleCmd(args []string) int {
	return runGroup("schedule", scheduleUsage, args, map[string]func([]string) int{
		"create": scheduleCreate,
		"list":   scheduleList,
		"delete": func(args []string) int {
			return scheduleByName("delete", args, jobclient.DeleteSchedule)
		},
		"trigger": func(args []string) int {
			return scheduleByName("trigger", args, jobclient.TriggerSchedule)
		},
	})
}

func scheduleCreate(args []string) int {
	fs := flag.NewFlagSet("schedule create", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	vars, jobName := jobConfigFlags(fs)
	var crons multi
	fs.Var(&crons, "cron", "cron expression, e.g. \"0 2 * * *\" (repeatable)")
	every := fs.Duration("every", 0, "run at this interval, e.g. 15m")
	overlap := fs.Bool("allow-overlap", false, "start a run while the previous one still runs (default: skip it)")
	pos, ok := positional(fs, args, 2, "a schedule name and one job config")
	if !ok {
		return 2
	}
	name, file := pos[0], pos[1]
	// the config is checked now, so a bad one fails here rather than at every run
	src, plan, code := loadJob(file, *vars, *jobName)
	if plan == nil {
		return code
	}
	spec := jobclient.ScheduleSpec{Cron: crons, Every: *every, AllowOverlap: *overlap}
	return cf.withClient(func(ctx context.Context, c client.Client) int {
		if err := jobclient.CreateSchedule(ctx, c, name, src, plan.Job.Name, spec); err != nil {
			return fail(err)
		}
		fmt.Printf("schedule %s created\n", name)
		return 0
	})
}

func scheduleList(args []string) int {
	cf, asJSON, code := parseListing("schedule list", args, nil)
	if code != 0 {
		return code
	}
	var list []jobclient.ScheduleSummary
	if code := cf.withClient(func(ctx context.Context, c client.Client) int {
		var err error
		if list, err = jobclient.ListSchedules(ctx, c); err != nil {
			return fail(err)
		}
		return 0
	}); code != 0 {
		return code
	}
	if asJSON {
		printJSON(list)
		return 0
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tJOB\tWHEN\tNEXT\tPAUSED")
	for _, s := range list {
		next := "-"
		if len(s.Next) > 0 {
			next = s.Next[0].Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\n", s.Name, s.JobName, s.Spec, next, s.Paused)
	}
	_ = tw.Flush()
	return 0
}

func scheduleByName(verb string, args []string, do func(context.Context, client.Client, string) error) int {
	fs := flag.NewFlagSet("schedule "+verb, flag.ContinueOnError)
	cf := addConnectFlags(fs)
	pos, ok := positional(fs, args, 1, "one schedule name")
	if !ok {
		return 2
	}
	return cf.withClient(func(ctx context.Context, c client.Client) int {
		if err := do(ctx, c, pos[0]); err != nil {
			return fail(err)
		}
		fmt.Printf("schedule %s: %s\n", pos[0], strings.TrimSuffix(verb, "e")+"ed")
		return 0
	})
}
