package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/strait-dev/strait/engineconfig"
	"github.com/strait-dev/strait/secret"
)

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// helpShown is set once a command printed its help (-h, --help): the process then exits 0,
// whatever the command returned.
var helpShown bool

// parseInterleaved parses flags that may come before or after the positional arguments,
// as users type `strait run job.conf -i k=v` as often as the other way round. Help prints
// to stdout.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	fs.Usage = func() {} // help goes to stdout below; a bad flag's error names the way to it
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			helpShown = true
			fs.SetOutput(os.Stdout)
			fmt.Fprintf(os.Stdout, "Usage of strait %s:\n", fs.Name())
			fs.PrintDefaults()
		case err != nil:
			fmt.Fprintf(os.Stderr, "see: strait %s --help\n", fs.Name())
		}
		if err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

const engineUsage = "engine config file (strait.yaml, or SeaTunnel's seatunnel.yaml): checkpoint storage (local folder or S3), retention, default interval and timeout (STRAIT_CONFIG)"

// engineFlag adds --engine-config (strait.yaml or SeaTunnel's seatunnel.yaml; STRAIT_CONFIG)
// to a command that also takes a job config (strait run, where -c/--config is the job's, as
// in SeaTunnel's client).
func engineFlag(fs *flag.FlagSet) *string {
	return fs.String("engine-config", envOr("STRAIT_CONFIG", ""), engineUsage)
}

// serviceEngineFlag is engineFlag for a service (worker, runner, dev), which takes no job
// config: --config names the engine config too, as SeaTunnel's server scripts read theirs.
func serviceEngineFlag(fs *flag.FlagSet) *string {
	p := engineFlag(fs)
	fs.StringVar(p, "config", *p, "same as --engine-config")
	return p
}

// output is the -o/--output flag of Temporal's CLI (text or json) with Strait's --json.
type output struct {
	format *string
	json   *bool
}

func outputFlags(fs *flag.FlagSet) output {
	o := output{format: fs.String("output", "text", "output format: text or json"), json: fs.Bool("json", false, "print JSON (same as -o json)")}
	fs.StringVar(o.format, "o", "text", "output format: text or json")
	return o
}

// asJSON says whether JSON is asked for; an unknown format is reported and ok is false.
func (o output) asJSON(cmd string) (asJSON, ok bool) {
	switch *o.format {
	case "json", "jsonl":
		return true, true
	case "text", "":
		return *o.json, true
	}
	fmt.Fprintf(os.Stderr, "strait %s: -o %q: the formats are text and json\n", cmd, *o.format)
	return false, false
}

// groupHelp prints a command group's usage and reports whether args ask for it.
func groupHelp(args []string, text string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		helpShown = true
		fmt.Print(text)
		return true
	}
	return false
}

// runGroup runs the command args name in a command group, or prints the group's usage
// when args ask for it, name none or name one it does not have.
func runGroup(group, usage string, args []string, commands map[string]func([]string) int) int {
	if groupHelp(args, usage) {
		return 0
	}
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(args[1:])
	}
	fmt.Fprintf(os.Stderr, "strait %s: unknown command %q\n\n%s", group, args[0], usage)
	return 2
}

// loadEngine reads the engine config, reporting a bad one plainly.
func loadEngine(path string) (*engineconfig.Config, bool) {
	cfg, err := engineconfig.Load(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return nil, false
	}
	return cfg, true
}

// secretKeyFlag adds --secret-key-file: the cluster's key that seals the secrets of job
// configs.
func secretKeyFlag(fs *flag.FlagSet) *string {
	return fs.String("secret-key-file", "",
		"file holding the cluster's secret key (32 bytes in base64: head -c 32 /dev/urandom | base64), which seals the passwords, keys and tokens of job configs; "+
			"every worker, runner, gateway and client of a cluster has the same (default: "+secret.KeyEnv+", the key itself, else the file "+secret.KeyFileEnv+" names)")
}

// useSecretKey makes the key a file or the environment names the process's. Without one
// the process uses the built-in key, which keeps secrets out of sight (the Web UI, the
// logs) but not from someone who reads the history with a Strait binary: it says so.
func useSecretKey(file string, log *slog.Logger, warn bool) bool {
	k, err := secret.Load(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return false
	}
	if k == nil {
		if k, err = secret.Current(); err != nil {
			fmt.Fprintf(os.Stderr, "strait: %v\n", err)
			return false
		}
		if !warn {
			secret.Use(k)
			return true
		}
		log.Warn("no secret key given: the secrets of job configs are sealed under the built-in key, hidden from view but not protected; give every process of the cluster the same --secret-key-file or "+secret.KeyEnv,
			"key", k.ID())
	}
	secret.Use(k)
	return true
}

// useLocalKey gives a process that is a cluster of its own (strait run in local mode) a
// random key, unless the environment names one: nothing outside it opens its secrets.
func useLocalKey() error {
	k, err := secret.FromEnv()
	if err != nil {
		return err
	}
	if k == nil {
		if k, err = secret.NewKey(); err != nil {
			return err
		}
	}
	secret.Use(k)
	return nil
}
