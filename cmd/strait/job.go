package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
)

// connectFlags are the Temporal connection flags every client command takes.
type connectFlags struct {
	address, namespace *string
}

func addConnectFlags(fs *flag.FlagSet) connectFlags {
	return connectFlags{
		address:   fs.String("address", envOr("TEMPORAL_ADDRESS", "127.0.0.1:7233"), "Temporal frontend host:port"),
		namespace: fs.String("namespace", envOr("TEMPORAL_NAMESPACE", "default"), "Temporal namespace"),
	}
}

func (f connectFlags) dial() (client.Client, error) {
	c, err := client.Dial(client.Options{HostPort: *f.address, Namespace: *f.namespace, Logger: sdklog.NewStructuredLogger(logger(false))})
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w", *f.address, err)
	}
	return c, nil
}

// withClient dials Temporal, runs do with a context of 30 s and closes the client; a failed
// dial is printed and exits 1.
func (f connectFlags) withClient(do func(ctx context.Context, c client.Client) int) int {
	c, err := f.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return do(ctx, c)
}

func jobCmd(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "submit":
		return jobSubmit(args[1:])
	case "status":
		return jobStatus(args[1:])
	case "list":
		return jobList(args[1:])
	case "wait":
		return jobWait(args[1:])
	case "cancel":
		return jobCancel(args[1:])
	case "savepoint":
		return jobSavepoint(args[1:])
	case "restore":
		return jobRestore(args[1:])
	}
	fmt.Fprintf(os.Stderr, "strait job: unknown command %q\n", args[0])
	return 2
}

func jobID(s string) (int64, bool) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		fmt.Fprintf(os.Stderr, "strait: %q is not a job id (a positive number)\n", s)
		return 0, false
	}
	return id, true
}

func jobSubmit(args []string) int {
	fs := flag.NewFlagSet("job submit", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	var vars multi
	fs.Var(&vars, "i", "variable key=value (repeatable)")
	name := fs.String("n", "", "job name (overrides env.job.name)")
	id := fs.Int64("job-id", 0, "job id (default: a new one)")
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(os.Stderr, "strait job submit: give one job config")
		return 2
	}
	src, plan, code := loadJob(pos[0], vars, *name)
	if plan == nil {
		return code
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	jobID, _, err := jobclient.Start(context.Background(), c, jobclient.StartRequest{JobID: *id, Source: src, Name: plan.Job.Name})
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return submitExit(err)
	}
	fmt.Println(jobID)
	return 0
}

func jobStatus(args []string) int {
	var asJSON *bool
	return withJob("status", args, func(fs *flag.FlagSet) { asJSON = fs.Bool("json", false, "print JSON") },
		func(c client.Client, id int64) int {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st, err := jobclient.Status(ctx, c, id)
			if err != nil {
				fmt.Fprintf(os.Stderr, "strait: %v\n", err)
				return 1
			}
			if *asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				_ = enc.Encode(st)
			} else {
				jobclient.PrintStatus(os.Stdout, st)
			}
			return 0
		})
}

// withJob parses a job command's flags and its one job id, connects to Temporal and runs do.
func withJob(name string, args []string, flags func(*flag.FlagSet), do func(c client.Client, id int64) int) int {
	fs := flag.NewFlagSet("job "+name, flag.ContinueOnError)
	cf := addConnectFlags(fs)
	if flags != nil {
		flags(fs)
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 1 {
		fmt.Fprintf(os.Stderr, "strait job %s: give one job id\n", name)
		return 2
	}
	id, ok := jobID(pos[0])
	if !ok {
		return 2
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	return do(c, id)
}

func jobList(args []string) int {
	fs := flag.NewFlagSet("job list", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	state := fs.String("state", "", "only jobs in this state (RUNNING, FINISHED, FAILED, CANCELED...)")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	jobs, err := jobclient.List(context.Background(), c, *cf.namespace, *state)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	if *asJSON {
		_ = json.NewEncoder(os.Stdout).Encode(jobs)
		return 0
	}
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB ID\tNAME\tSTATE\tSTARTED")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", j.JobID, j.Name, j.State, j.Started.Local().Format("2006-01-02 15:04:05"))
	}
	tw.Flush()
	return 0
}

func jobWait(args []string) int {
	return withJob("wait", args, nil, func(c client.Client, id int64) int {
		st, err := jobclient.Wait(context.Background(), c.GetWorkflow(context.Background(), contract.JobWorkflowID(id), ""))
		if err != nil {
			fmt.Fprintf(os.Stderr, "strait: job %d: %v\n", id, err)
			return 1
		}
		return finish(st)
	})
}

// finish prints the summary and the cause, and returns the exit code.
func finish(st *contract.JobStatus) int {
	jobclient.PrintSummary(os.Stdout, st)
	if st.State != contract.JobFinished {
		if st.Error != "" {
			fmt.Fprintf(os.Stderr, "strait: job %d %s: %s\n", st.JobID, st.State, st.Error)
		} else {
			fmt.Fprintf(os.Stderr, "strait: job %d %s\n", st.JobID, st.State)
		}
	}
	return jobclient.ExitCode(st)
}

func jobCancel(args []string) int {
	return withJob("cancel", args, nil, func(c client.Client, id int64) int {
		if err := jobclient.Cancel(context.Background(), c, id); err != nil {
			fmt.Fprintf(os.Stderr, "strait: %v\n", err)
			return 1
		}
		fmt.Printf("job %d: cancel requested\n", id)
		return 0
	})
}

func clusterCmd(args []string) int {
	if len(args) == 0 || args[0] != "status" {
		fmt.Fprintln(os.Stderr, "strait cluster: the command is `strait cluster status [--json]`")
		return 2
	}
	fs := flag.NewFlagSet("cluster status", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseInterleaved(fs, args[1:]); err != nil {
		return 2
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	cs, err := jobclient.Cluster(context.Background(), c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(cs)
		return 0
	}
	if err := jobclient.PrintCluster(os.Stdout, cs); err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	return 0
}

func jobSavepoint(args []string) int {
	return withJob("savepoint", args, nil, func(c client.Client, id int64) int {
		run, err := jobclient.Savepoint(context.Background(), c, id)
		if err != nil {
			fmt.Fprintf(os.Stderr, "strait: %v\n", err)
			return 1
		}
		st, err := jobclient.Wait(context.Background(), run)
		if err != nil {
			fmt.Fprintf(os.Stderr, "strait: job %d: %v\n", id, err)
			return 1
		}
		return finish(st)
	})
}

func jobRestore(args []string) int {
	fs := flag.NewFlagSet("job restore", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	var vars multi
	fs.Var(&vars, "i", "variable key=value (repeatable)")
	name := fs.String("n", "", "job name (overrides env.job.name)")
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 2 {
		fmt.Fprintln(os.Stderr, "strait job restore: give the job id and its job config")
		return 2
	}
	id, ok := jobID(pos[0])
	if !ok {
		return 2
	}
	src, plan, code := loadJob(pos[1], vars, *name)
	if plan == nil {
		return code
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	if _, _, err := jobclient.Start(context.Background(), c, jobclient.StartRequest{JobID: id, Source: src, Name: plan.Job.Name, Restore: true}); err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return submitExit(err)
	}
	fmt.Println(id)
	return 0
}

// submitExit is the exit code of a refused submission: 2 for a config Temporal cannot take
// (it is the config that is wrong), 1 otherwise.
func submitExit(err error) int {
	var large *jobclient.ConfigTooLargeError
	if errors.As(err, &large) {
		return 2
	}
	return 1
}
