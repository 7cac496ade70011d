package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/plugindoc"
	_ "github.com/strait-dev/strait/connectors/all"
	_ "github.com/strait-dev/strait/transform/all"
)

// pluginsCmd lists the plugins, or prints the options of one, as SeaTunnel's
// `seatunnel-connector.sh -l` and `-o <plugin>` do.
func pluginsCmd(args []string) int {
	fs := flag.NewFlagSet("plugins", flag.ContinueOnError)
	out := outputFlags(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	asJSON, ok := out.asJSON("plugins")
	if !ok {
		return 2
	}
	plugins := connector.Plugins()
	switch len(pos) {
	case 0:
		if asJSON {
			err = plugindoc.WriteListJSON(os.Stdout, plugins)
		} else {
			err = plugindoc.WriteList(os.Stdout, plugins)
		}
	case 1:
		found := plugindoc.Find(plugins, pos[0])
		if len(found) == 0 {
			fmt.Fprintf(os.Stderr, "strait plugins: no plugin %q%s\n", pos[0], nearest(plugindoc.Suggest(plugins, pos[0])))
			return 2
		}
		err = writeOptions(found, asJSON)
	default:
		fmt.Fprintln(os.Stderr, "strait plugins: give at most one plugin name")
		return 2
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait plugins: %v\n", err)
		return 1
	}
	return 0
}

func writeOptions(found []connector.Plugin, asJSON bool) error {
	if asJSON {
		return plugindoc.WriteOptionsJSON(os.Stdout, found)
	}
	for i, p := range found {
		if i > 0 {
			fmt.Println()
		}
		if err := plugindoc.WriteOptions(os.Stdout, p); err != nil {
			return err
		}
	}
	return nil
}

func nearest(names []string) string {
	if len(names) == 0 {
		return "; strait plugins lists them all"
	}
	return " (did you mean " + strings.Join(names, ", ") + "?)"
}
