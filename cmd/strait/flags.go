package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/strait-dev/strait/engineconfig"
)

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// parseInterleaved parses flags that may come before or after the positional arguments,
// as users type `strait run job.conf -i k=v` as often as the other way round.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
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

// engineFlag adds --config (strait.yaml or SeaTunnel's seatunnel.yaml; STRAIT_CONFIG) to a
// command.
func engineFlag(fs *flag.FlagSet) *string {
	return fs.String("config", envOr("STRAIT_CONFIG", ""), "engine config file (strait.yaml, or SeaTunnel's seatunnel.yaml): checkpoint storage (local folder or S3), retention, default interval and timeout")
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
