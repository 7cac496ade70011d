package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// defaultHealthURL is the metrics endpoint the images' processes serve (--metrics :9090).
const defaultHealthURL = "http://127.0.0.1:9090/metrics"

// healthCmd probes a Strait process's HTTP endpoint (its /metrics, or a gateway) and/or a
// Temporal frontend, and exits 0 when every probe answers, 1 otherwise: the containers'
// health check.
func healthCmd(args []string) int {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	url := fs.String("url", envOr("STRAIT_HEALTH_URL", ""), "HTTP endpoint that must answer 2xx (default "+defaultHealthURL+" unless --temporal is given)")
	temporal := fs.String("temporal", envOr("STRAIT_HEALTH_TEMPORAL", ""), "Temporal frontend host:port whose health check must pass")
	timeout := fs.Duration("timeout", 5*time.Second, "time allowed for the probes")
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	if *url == "" && *temporal == "" {
		*url = defaultHealthURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if *url != "" {
		if err := probeHTTP(ctx, *url); err != nil {
			fmt.Fprintf(os.Stderr, "strait health: %v\n", err)
			return 1
		}
	}
	if *temporal != "" {
		if err := probeTemporal(ctx, *temporal); err != nil {
			fmt.Fprintf(os.Stderr, "strait health: %v\n", err)
			return 1
		}
	}
	return 0
}

func probeHTTP(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("--url %q: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: HTTP %s", url, resp.Status)
	}
	return nil
}

// probeTemporal dials the frontend, which runs its gRPC health check.
func probeTemporal(ctx context.Context, address string) error {
	c, err := client.DialContext(ctx, client.Options{HostPort: address, Logger: sdklog.NewStructuredLogger(logger(false))})
	if err != nil {
		return fmt.Errorf("Temporal at %s: %w", address, err)
	}
	defer c.Close()
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		return fmt.Errorf("Temporal at %s: %w", address, err)
	}
	return nil
}
