package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/jobclient"
	"github.com/strait-dev/strait/temporalconn"
)

// connectFlags are the Temporal connection flags every client command takes: Temporal's
// own CLI's (address, namespace, TLS and mTLS, API key, profiles of its config file).
type connectFlags struct {
	conn *temporalconn.Flags
	// address and namespace are what the connection resolved to, once options or dial ran.
	address, namespace *string
	// secretKey is the cluster's key a client seals the secrets of the configs it submits
	// with (--secret-key-file).
	secretKey *string
}

func addConnectFlags(fs *flag.FlagSet) connectFlags {
	var address, namespace string
	return connectFlags{conn: temporalconn.Register(fs), address: &address, namespace: &namespace, secretKey: secretKeyFlag(fs)}
}

// defaultAddress is where a client or service looks for Temporal when nothing names one.
const defaultAddress = "127.0.0.1:7233"

// options resolves the connection; an empty address takes def ("" keeps it empty).
func (f connectFlags) options(def string) (client.Options, error) {
	opts, err := f.conn.Options()
	if err != nil {
		return client.Options{}, err
	}
	if !useSecretKey(*f.secretKey, slog.Default(), false) {
		return client.Options{}, errors.New("the secret key cannot be used (see above)")
	}
	if opts.HostPort == "" {
		opts.HostPort = def
	}
	*f.address, *f.namespace = opts.HostPort, opts.Namespace
	return opts, nil
}

func (f connectFlags) dial() (client.Client, error) {
	opts, err := f.options(defaultAddress)
	if err != nil {
		return nil, err
	}
	opts.Logger = sdklog.NewStructuredLogger(logger(false))
	c, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w", opts.HostPort, err)
	}
	return c, nil
}

// withClient dials Temporal, runs do with a context of 30 s and closes the client; a failed
// dial is printed and exits 1.
func (f connectFlags) withClient(do func(ctx context.Context, c client.Client) int) int {
	return f.connected(func(c client.Client) int {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return do(ctx, c)
	})
}

// connected dials Temporal, runs do and closes the client; a failed dial is printed and
// exits 1.
func (f connectFlags) connected(do func(c client.Client) int) int {
	c, err := f.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	return do(c)
}

// fail prints err as the command's error and returns exit code 1.
func fail(err error) int {
	fmt.Fprintf(os.Stderr, "strait: %v\n", err)
	return 1
}

// printJSON writes v to stdout as indented JSON.
func printJSON(v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

const jobUsage = `Usage: strait job <command> [flags]

Commands:
  submit [-i key=value]... [--job-id ID] <job.conf>   submit a job and print its id
  status <id> [-o json]                              a job's state, pipelines, tasks and counts
  list [--state S] [-o json]                         jobs, newest first
  wait <id>                                          wait for a job's end; the exit code is its outcome
  cancel <id>                                        cancel a job
  savepoint <id>                                     take a savepoint and stop the job
  restore <id> <job.conf>                            restore a job from its latest savepoint or checkpoint

Every command takes Temporal's connection flags (--address, --namespace, --tls..., --api-key,
--profile); "strait job <command> --help" lists them.
`

func jobCmd(args []string) int {
	return runGroup("job", jobUsage, args, map[string]func([]string) int{
		"submit":    jobSubmit,
		"status":    jobStatus,
		"list":      jobList,
		"wait":      jobWait,
		"cancel":    jobCancel,
		"savepoint": jobSavepoint,
		"restore":   jobRestore,
	})
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
	vars, name := jobConfigFlags(fs)
	id := fs.Int64("job-id", 0, "job id (default: a new one)")
	pos, ok := positional(fs, args, 1, "one job config")
	if !ok {
		return 2
	}
	return startJob(cf, pos[0], *vars, *name, jobclient.StartRequest{JobID: *id})
}

// positional parses the command's flags in args and returns its n positional arguments; a
// bad flag, or another count of arguments (reported as "give <what>"), returns ok false.
func positional(fs *flag.FlagSet, args []string, n int, what string) (pos []string, ok bool) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, false
	}
	if len(pos) != n {
		fmt.Fprintf(os.Stderr, "strait %s: give %s\n", fs.Name(), what)
		return nil, false
	}
	return pos, true
}

// jobConfigFlags registers the flags that shape a job config as it is read: its variables
// (-i) and its name (-n).
func jobConfigFlags(fs *flag.FlagSet) (*multi, *string) {
	var vars multi
	fs.Var(&vars, "i", "variable key=value (repeatable)")
	return &vars, fs.String("n", "", "job name (overrides env.job.name)")
}

// startJob loads and plans the job config in file, starts the job req describes with it
// and prints the job's id; it returns the exit code.
func startJob(cf connectFlags, file string, vars multi, name string, req jobclient.StartRequest) int {
	src, plan, code := loadJob(file, vars, name)
	if plan == nil {
		return code
	}
	req.Source, req.Name = src, plan.Job.Name
	return cf.connected(func(c client.Client) int {
		jobID, _, err := jobclient.Start(context.Background(), c, req)
		if err != nil {
			fmt.Fprintf(os.Stderr, "strait: %v\n", err)
			return submitExit(err)
		}
		fmt.Println(jobID)
		return 0
	})
}

func jobStatus(args []string) int {
	var out output
	return withJob("status", args, func(fs *flag.FlagSet) { out = outputFlags(fs) },
		func(c client.Client, id int64) int {
			asJSON, ok := out.asJSON("job status")
			if !ok {
				return 2
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st, err := jobclient.Status(ctx, c, id)
			if err != nil {
				fmt.Fprintf(os.Stderr, "strait: %v\n", err)
				return 1
			}
			if asJSON {
				printJSON(st)
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
	pos, ok := positional(fs, args, 1, "one job id")
	if !ok {
		return 2
	}
	id, ok := jobID(pos[0])
	if !ok {
		return 2
	}
	return cf.connected(func(c client.Client) int { return do(c, id) })
}

func jobList(args []string) int {
	var state *string
	cf, asJSON, code := parseListing("job list", args, func(fs *flag.FlagSet) {
		state = fs.String("state", "", "only jobs in this state (RUNNING, FINISHED, FAILED, CANCELED...)")
	})
	if code != 0 {
		return code
	}
	return cf.connected(func(c client.Client) int {
		jobs, err := jobclient.List(context.Background(), c, *cf.namespace, *state)
		if err != nil {
			return fail(err)
		}
		if asJSON {
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
	})
}

func jobWait(args []string) int {
	return withJob("wait", args, nil, func(c client.Client, id int64) int {
		wid, err := jobclient.WorkflowID(context.Background(), c, id)
		if err != nil {
			return fail(err)
		}
		return awaitEnd(id, c.GetWorkflow(context.Background(), wid, ""))
	})
}

// parseListing parses the flags of a command that takes no arguments and prints text or
// JSON: the connection flags, -o/--json and those flags adds; a non-zero code is the exit
// code of a bad command line.
func parseListing(name string, args []string, flags func(*flag.FlagSet)) (cf connectFlags, asJSON bool, code int) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	cf = addConnectFlags(fs)
	out := outputFlags(fs)
	if flags != nil {
		flags(fs)
	}
	if _, err := parseInterleaved(fs, args); err != nil {
		return cf, false, 2
	}
	asJSON, ok := out.asJSON(name)
	if !ok {
		return cf, false, 2
	}
	return cf, asJSON, 0
}

// awaitEnd waits for the end of job id's run and returns finish's exit code.
func awaitEnd(id int64, run client.WorkflowRun) int {
	st, err := jobclient.Wait(context.Background(), run)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: job %d: %v\n", id, err)
		return 1
	}
	return finish(st)
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
			return fail(err)
		}
		fmt.Printf("job %d: cancel requested\n", id)
		return 0
	})
}

func clusterCmd(args []string) int {
	if groupHelp(args, "Usage: strait cluster status [-o json] [Temporal connection flags]\n\nThe runners, their slots, tags and tasks, and the resource manager's view.\n") {
		return 0
	}
	if len(args) == 0 || args[0] != "status" {
		fmt.Fprintln(os.Stderr, "strait cluster: the command is `strait cluster status [--json]`")
		return 2
	}
	cf, asJSON, code := parseListing("cluster status", args[1:], nil)
	if code != 0 {
		return code
	}
	return cf.connected(func(c client.Client) int {
		cs, err := jobclient.Cluster(context.Background(), c)
		if err != nil {
			return fail(err)
		}
		if asJSON {
			printJSON(cs)
			return 0
		}
		if err := jobclient.PrintCluster(os.Stdout, cs); err != nil {
			return fail(err)
		}
		return 0
	})
}

func jobSavepoint(args []string) int {
	return withJob("savepoint", args, nil, func(c client.Client, id int64) int {
		run, err := jobclient.Savepoint(context.Background(), c, id)
		if err != nil {
			return fail(err)
		}
		return awaitEnd(id, run)
	})
}

func jobRestore(args []string) int {
	fs := flag.NewFlagSet("job restore", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	vars, name := jobConfigFlags(fs)
	pos, ok := positional(fs, args, 2, "the job id and its job config")
	if !ok {
		return 2
	}
	id, ok := jobID(pos[0])
	if !ok {
		return 2
	}
	return startJob(cf, pos[1], *vars, *name, jobclient.StartRequest{JobID: id, Restore: true})
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
