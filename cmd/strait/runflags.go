package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
)

// runFlags are `strait run`'s flags: SeaTunnel's client flags (seatunnel.sh), Strait's own
// and Temporal's connection flags.
type runFlags struct {
	fs   *flag.FlagSet
	conn connectFlags

	config, name, master, engine, ckptDir string
	vars                                  multi
	check, async, closeJob, verbose       bool
	slots                                 int
	jobID, setJobID, restore, savepoint   int64
	cancel, metrics                       int64
	list                                  bool
	cluster                               string
}

// alias registers the same variable under several names, as SeaTunnel's flags have a short
// and a long form.
func strFlag(fs *flag.FlagSet, p *string, def, usage string, names ...string) {
	for _, n := range names {
		fs.StringVar(p, n, def, usage)
	}
}

func int64Flag(fs *flag.FlagSet, p *int64, usage string, names ...string) {
	for _, n := range names {
		fs.Int64Var(p, n, 0, usage)
	}
}

func boolFlag(fs *flag.FlagSet, p *bool, def bool, usage string, names ...string) {
	for _, n := range names {
		fs.BoolVar(p, n, def, usage)
	}
}

func newRunFlags() *runFlags {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f := &runFlags{fs: fs, conn: addConnectFlags(fs)}
	strFlag(fs, &f.config, "", "the job config (HOCON .conf or .json); also the one positional argument", "c", "config")
	fs.Var(&f.vars, "i", "variable key=value (repeatable; SeaTunnel's -i/--variable)")
	fs.Var(&f.vars, "variable", "variable key=value (repeatable)")
	strFlag(fs, &f.name, "", "job name (overrides env.job.name)", "n", "name")
	strFlag(fs, &f.master, "", "local: run on an embedded Temporal in this process; cluster: submit to the Temporal at --address (default: cluster when an address is given, else local)", "m", "master", "e", "deploy-mode")
	boolFlag(fs, &f.check, false, "check the config (parse and plan it) and exit", "check")
	boolFlag(fs, &f.async, false, "submit the job to the cluster, print its id and exit without waiting", "async")
	boolFlag(fs, &f.closeJob, true, "cancel the job when this client is interrupted (Ctrl-C); false leaves it running", "cj", "close-job")
	int64Flag(fs, &f.jobID, "with a config: the job's id (default: a new one); alone: print that job's status (SeaTunnel's -j)", "j", "job-id")
	int64Flag(fs, &f.setJobID, "the job's id (default: a new one)", "set-job-id")
	int64Flag(fs, &f.restore, "restore this job id from its latest savepoint or checkpoint", "r", "restore")
	int64Flag(fs, &f.savepoint, "take a savepoint of this job id and stop it", "s", "savepoint")
	int64Flag(fs, &f.cancel, "cancel this job id", "can", "cancel-job")
	int64Flag(fs, &f.metrics, "print this job's counts as JSON", "metrics")
	boolFlag(fs, &f.list, false, "list the jobs", "l", "list")
	strFlag(fs, &f.cluster, "", "cluster name (accepted for SeaTunnel's scripts; a Strait cluster is named by its Temporal address and namespace)", "cn", "cluster")
	fs.StringVar(&f.engine, "engine-config", envOr("STRAIT_CONFIG", ""), engineUsage)
	fs.StringVar(&f.ckptDir, "checkpoint-dir", "", "checkpoint store root (default <tmp>/strait/checkpoints)")
	fs.IntVar(&f.slots, "slots", 4, "slots of the local runner (local mode)")
	fs.BoolVar(&f.verbose, "v", false, "log what the engine does")
	return f
}

// parse reads args; the config is -c/--config or the one positional argument.
func (f *runFlags) parse(args []string) error {
	pos, err := parseInterleaved(f.fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 1:
		return fmt.Errorf("give one job config, not %d", len(pos))
	case len(pos) == 1 && f.config != "" && f.config != pos[0]:
		return fmt.Errorf("give the job config once: -c %s or %s", f.config, pos[0])
	case len(pos) == 1:
		f.config = pos[0]
	}
	switch f.master {
	case "", "local", "cluster":
	case "client":
		f.master = "cluster" // SeaTunnel's -e client: the client submits to the cluster
	default:
		return fmt.Errorf("-m %q: the modes are local and cluster", f.master)
	}
	if f.setJobID != 0 {
		f.jobID = f.setJobID
	}
	return nil
}

// action is what the flags ask for besides running a config.
func (f *runFlags) action() string {
	switch {
	case f.list:
		return "list"
	case f.cancel != 0:
		return "cancel"
	case f.savepoint != 0:
		return "savepoint"
	case f.metrics != 0:
		return "metrics"
	case f.config == "" && f.jobID != 0:
		return "status"
	}
	return "run"
}

// jobCommand runs the job command that stands for a flag of SeaTunnel's client, with the
// connection flags passed on.
func (f *runFlags) jobCommand(action string) int {
	conn := f.connArgs()
	id := func(v int64) string { return strconv.FormatInt(v, 10) }
	switch action {
	case "list":
		return jobList(conn)
	case "cancel":
		return jobCancel(append(conn, id(f.cancel)))
	case "savepoint":
		return jobSavepoint(append(conn, id(f.savepoint)))
	case "metrics":
		return jobStatus(append(conn, "-o", "json", id(f.metrics)))
	case "status":
		return jobStatus(append(conn, id(f.jobID)))
	}
	fmt.Fprintf(os.Stderr, "strait run: nothing to do\n")
	return 2
}

// connArgs are the connection flags given on the command line, to pass on.
func (f *runFlags) connArgs() []string {
	out := f.conn.conn.Args()
	if *f.conn.secretKey != "" {
		out = append(out, "--secret-key-file="+*f.conn.secretKey)
	}
	return out
}
