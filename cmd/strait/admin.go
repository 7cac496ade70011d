package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	sdklog "go.temporal.io/sdk/log"

	"github.com/strait-dev/strait/admin"
)

func adminCmd(args []string) int {
	if len(args) == 0 || args[0] != "setup" {
		fmt.Fprintln(os.Stderr, "strait admin: give a command: setup")
		return 2
	}
	return adminSetup(args[1:])
}

// adminSetup prepares a Temporal cluster for Strait: the namespace with its retention and
// Strait's search attributes, idempotently.
func adminSetup(args []string) int {
	fs := flag.NewFlagSet("admin setup", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	ret := fs.String("retention", envOr("STRAIT_NAMESPACE_RETENTION", "7d"), "how long closed jobs' histories are kept (72h, 7d; at least one day)")
	desc := fs.String("description", "Strait jobs", "description of a namespace that is created")
	attrsOnly := fs.Bool("attributes-only", false, "only register the search attributes in a namespace that exists (Temporal Cloud)")
	wait := fs.Duration("wait", time.Minute, "how long to wait for Temporal to answer")
	verbose := fs.Bool("v", false, "log each step")
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	retention, err := parseRetention(*ret)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait admin setup: --retention: %v\n", err)
		return 2
	}
	opts, err := cf.options(defaultAddress)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait admin setup: %v\n", err)
		return 2
	}
	log := logger(*verbose)
	opts.Logger = sdklog.NewStructuredLogger(logger(false))
	ctx, cancel := context.WithTimeout(context.Background(), *wait+time.Minute)
	defer cancel()
	dctx, dcancel := context.WithTimeout(ctx, *wait)
	c, err := admin.Dial(dctx, opts)
	dcancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait admin setup: %v\n", err)
		return 1
	}
	defer c.Close()
	res, err := admin.Setup(ctx, c, admin.Options{Namespace: *cf.namespace, Retention: retention, Description: *desc, AttributesOnly: *attrsOnly, Logger: log})
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait %v\n", err)
		return 1
	}
	printSetup(*cf.namespace, retention, *attrsOnly, res)
	return 0
}

func printSetup(ns string, retention time.Duration, attrsOnly bool, res admin.Result) {
	switch {
	case attrsOnly:
		fmt.Printf("namespace %s: left as it is\n", ns)
	case res.NamespaceCreated:
		fmt.Printf("namespace %s: created, retention %s\n", ns, retention)
	case res.RetentionUpdated != nil:
		fmt.Printf("namespace %s: retention %s (was %s)\n", ns, retention, *res.RetentionUpdated)
	default:
		fmt.Printf("namespace %s: in place, retention %s\n", ns, retention)
	}
	if len(res.AttributesAdded) > 0 {
		fmt.Printf("search attributes added: %s\n", strings.Join(res.AttributesAdded, ", "))
	} else {
		fmt.Println("search attributes: in place")
	}
}

// parseRetention reads a Go duration or a number of days ("7d").
func parseRetention(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a duration (72h) nor days (7d)", s)
	}
	return d, nil
}
