package main

import (
	"context"
	"crypto/tls"
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

// gatewaySettings are how a gateway is served: where, with which certificate, and the
// gateway's own options (tokens, limits).
type gatewaySettings struct {
	listen, certFile, keyFile string
	opts                      []gateway.Option
}

// serveGateway serves the gateway as s says: TLS 1.2 or later when a certificate is given;
// it returns the address it got and a function that stops it gracefully.
func serveGateway(s gatewaySettings, c client.Client, namespace string, log *slog.Logger) (string, func(context.Context) error, error) {
	var tlsConf *tls.Config
	if s.certFile != "" || s.keyFile != "" {
		if s.certFile == "" || s.keyFile == "" {
			return "", nil, errors.New("gateway: --tls-cert and --tls-key go together")
		}
		cert, err := tls.LoadX509KeyPair(s.certFile, s.keyFile)
		if err != nil {
			return "", nil, fmt.Errorf("gateway: TLS certificate %s, key %s: %w", s.certFile, s.keyFile, err)
		}
		tlsConf = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	lis, err := net.Listen("tcp", s.listen)
	if err != nil {
		return "", nil, fmt.Errorf("gateway: %w", err)
	}
	opts := append([]gateway.Option{gateway.WithLogger(log), gateway.WithVersion(version)}, s.opts...)
	srv := &http.Server{
		Handler:           gateway.New(c, namespace, opts...),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		TLSConfig:         tlsConf,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if tlsConf != nil {
		lis = tls.NewListener(lis, tlsConf)
	}
	go func() {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("gateway stopped", "error", err)
		}
	}()
	return lis.Addr().String(), srv.Shutdown, nil
}

// gatewayFlags are the flags of `strait gateway` that secure and limit it.
type gatewayFlags struct {
	tokensFile, certFile, keyFile *string
	rate                          *float64
	burst                         *int
	maxBody                       *int64
}

func addGatewayFlags(fs *flag.FlagSet) gatewayFlags {
	return gatewayFlags{
		tokensFile: fs.String("tokens-file", "", "file of bearer tokens, one a line (# comments; ro:<token> may only GET), read again when it changes; "+gateway.TokensEnv+" adds tokens"),
		certFile:   fs.String("tls-cert", "", "serve HTTPS (TLS 1.2+) with this PEM certificate (chain)"),
		keyFile:    fs.String("tls-key", "", "the PEM private key of --tls-cert"),
		rate:       fs.Float64("rate-limit", 20, "requests a second each client IP may send (a token bucket); 0 turns it off"),
		burst:      fs.Int("rate-burst", 40, "requests a client may send at once before --rate-limit applies"),
		maxBody:    fs.Int64("max-body", gateway.DefaultMaxBody, "largest request body in bytes; a larger one answers 413"),
	}
}

// settings turns the flags into how the gateway is served; tokens come from the file and
// the environment, and none at all means no authentication.
func (f gatewayFlags) settings(listen string, log *slog.Logger) (gatewaySettings, bool, error) {
	s := gatewaySettings{listen: listen, certFile: *f.certFile, keyFile: *f.keyFile, opts: []gateway.Option{
		gateway.WithRateLimit(gateway.RateLimit{PerSecond: *f.rate, Burst: *f.burst}),
		gateway.WithMaxBody(*f.maxBody),
	}}
	env := os.Getenv(gateway.TokensEnv)
	if *f.tokensFile == "" && env == "" {
		return s, false, nil
	}
	toks, err := gateway.NewTokens(*f.tokensFile, env, log)
	if err != nil {
		return s, false, err
	}
	s.opts = append(s.opts, gateway.WithTokens(toks))
	return s, true, nil
}

func gatewayCmd(args []string) int {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	listen := fs.String("listen", defaultGatewayListen, "address of the HTTP API (SeaTunnel's REST API v2)")
	gf := addGatewayFlags(fs)
	verbose := fs.Bool("v", false, "log every submit and stop")
	temporalUI := fs.String("temporal-ui", "", "base address of the Temporal Web UI (http://host:8233), which the dashboard links each job's workflow to")
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	log := logger(*verbose)
	settings, auth, err := gf.settings(*listen, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 2
	}
	if *temporalUI != "" {
		settings.opts = append(settings.opts, gateway.WithTemporalUI(*temporalUI))
	}
	c, err := cf.dial()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	addr, shutdown, err := serveGateway(settings, c, *cf.namespace, log)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return 1
	}
	scheme, security := "http", "no authentication"
	if settings.certFile != "" {
		scheme = "https"
	}
	if auth {
		security = "bearer tokens"
	}
	fmt.Printf("Gateway: %s://%s (SeaTunnel REST API v2, %s), Temporal at %s (namespace %s)\n", scheme, addr, security, *cf.address, *cf.namespace)
	fmt.Printf("Dashboard: %s://%s/ui/\n", scheme, addr)
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
