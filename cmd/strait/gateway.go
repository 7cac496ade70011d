package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/gateway"
)

// defaultGatewayListen is where `strait dev` serves the gateway: SeaTunnel's REST port.
const defaultGatewayListen = "127.0.0.1:8080"

// startGateway serves the gateway's HTTP API on listen and returns the address it got and a
// function that stops it gracefully.
func startGateway(listen string, c client.Client, namespace string, log *slog.Logger) (string, func(context.Context) error, error) {
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return "", nil, fmt.Errorf("gateway: %w", err)
	}
	srv := &http.Server{
		Handler:           gateway.New(c, namespace, gateway.WithLogger(log), gateway.WithVersion(version)),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("gateway stopped", "error", err)
		}
	}()
	return lis.Addr().String(), srv.Shutdown, nil
}

func gatewayCmd(args []string) int {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	listen := fs.String("listen", defaultGatewayListen, "address of the HTTP API (SeaTunnel's REST API v2)")
	verbose := fs.Bool("v", false, "log every submit and stop")
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	log := logger(*verbose)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	addr, shutdown, err := startGateway(*listen, c, *cf.namespace, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	fmt.Printf("Gateway: http://%s (SeaTunnel REST API v2), Temporal at %s (namespace %s)\n", addr, *cf.address, *cf.namespace)
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "strait: stopping")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := shutdown(sctx); err != nil {
		fmt.Fprintf(os.Stderr, "strait: stop: %v\n", err)
		return 1
	}
	return 0
}
