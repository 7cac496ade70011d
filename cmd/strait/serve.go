package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/strait-dev/strait/devserver"
	"github.com/strait-dev/strait/exchange"
	"github.com/strait-dev/strait/gateway"
	"github.com/strait-dev/strait/node"
	"github.com/strait-dev/strait/secret"
)

func logger(verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if !verbose {
		level = slog.LevelWarn
	}
	return newLogger(level)
}

// newLogger is a process's logger, made the default one (connectors log through it): text
// on stderr from level up, with every secret masked (secret.NewHandler), so neither a
// connector that logs its options nor a driver's error quoted in a line shows a password.
func newLogger(level slog.Level) *slog.Logger {
	l := slog.New(secret.NewHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	slog.SetDefault(l)
	return l
}

// secretKeyOf is the value of fs's --secret-key-file flag, read when called: the
// connection flags' when the command has them (a worker, a runner), else one added now
// (dev).
func secretKeyOf(fs *flag.FlagSet) func() string {
	if fs.Lookup("secret-key-file") == nil {
		secretKeyFlag(fs)
	}
	return func() string { return fs.Lookup("secret-key-file").Value.String() }
}

// processFlags are the flags every long-running process takes.
type processFlags struct {
	metrics, checkpointDir, engine *string
	secretKey                      func() string
	verbose                        *bool
}

func addProcessFlags(fs *flag.FlagSet) processFlags {
	return processFlags{
		metrics:       fs.String("metrics", "", "serve Prometheus /metrics on this address"),
		checkpointDir: fs.String("checkpoint-dir", "", "checkpoint store root, shared by the workers and runners (default <tmp>/strait/checkpoints)"),
		engine:        serviceEngineFlag(fs),
		verbose:       fs.Bool("v", false, "log what the engine does"),
		secretKey:     secretKeyOf(fs),
	}
}

// apply fills the process settings into cfg; false means the engine config is bad
// (already reported).
func (f processFlags) apply(cfg *node.Config) bool {
	eng, ok := loadEngine(*f.engine)
	if !ok {
		return false
	}
	cfg.Logger, cfg.MetricsAddr, cfg.CheckpointDir, cfg.Engine = logger(*f.verbose), *f.metrics, *f.checkpointDir, eng
	// a worker or runner started without a key says so; strait dev is a cluster of its own
	return useSecretKey(f.secretKey(), cfg.Logger, cfg.Worker || len(cfg.Runners) > 0)
}

// applyTo fills the resolved Temporal connection into cfg (a service dials 127.0.0.1:7233
// when nothing names an address); false means it is bad (already reported).
func (f connectFlags) applyTo(cfg *node.Config) bool {
	opts, err := f.options(defaultAddress)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return false
	}
	cfg.Address, cfg.Namespace, cfg.Connection = opts.HostPort, opts.Namespace, opts
	return true
}

// startNode starts the process cfg composes under a context that SIGINT and SIGTERM
// cancel; stop releases the signals. A nil node means it did not start (already reported).
func startNode(cfg node.Config) (ctx context.Context, stop context.CancelFunc, n *node.Node, shutdown func(context.Context) error) {
	ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	n, shutdown, err := node.New(ctx, cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait: %v\n", err)
		return ctx, stop, nil, nil
	}
	return ctx, stop, n, shutdown
}

// addon is a part a command adds to a composed process once it runs (the gateway); it
// returns how to stop it.
type addon func(n *node.Node) (stop func(context.Context) error, err error)

// serve starts a composed process and its addons and blocks until SIGINT or SIGTERM, then
// drains them, the addons first.
func serve(cfg node.Config, banner func(*node.Node), addons ...addon) int {
	ctx, stop, n, shutdown := startNode(cfg)
	defer stop()
	if n == nil {
		return 1
	}
	var stops []func(context.Context) error
	stopAll := func() error {
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i](sctx))
		}
		errs = append(errs, shutdown(sctx))
		return errors.Join(errs...)
	}
	for _, a := range addons {
		s, err := a(n)
		if err != nil {
			fmt.Fprintf(os.Stderr, "strait: %v\n", err)
			_ = stopAll()
			return 1
		}
		if s != nil {
			stops = append(stops, s)
		}
	}
	banner(n)
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "strait: stopping")
	if err := stopAll(); err != nil {
		fmt.Fprintf(os.Stderr, "strait: stop: %v\n", err)
		return 1
	}
	return 0
}

func devCmd(args []string) int {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	port := fs.Int("port", 7233, "Temporal frontend port")
	ip := fs.String("ip", "127.0.0.1", "address to listen on")
	db := fs.String("db", "", "SQLite file that keeps Temporal's state across restarts (default: in memory)")
	runners := fs.Int("runners", 1, "task runners in this process")
	slots := fs.Int("slots", 4, "slots per runner")
	onlyTemporal := fs.Bool("only-temporal", false, "serve the Temporal server alone (for multi-process set-ups)")
	namespace := fs.String("namespace", "default", "namespace to create")
	uiPort := fs.Int("ui-port", 0, "port of the Temporal Web UI, on --ip (default: --port + 1000)")
	headless := fs.Bool("headless", false, "serve no Web UI")
	gw := fs.String("gateway", defaultGatewayListen, "serve the HTTP submit gateway (SeaTunnel's REST API v2) here; empty disables it")
	pf := addProcessFlags(fs)
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	gwGiven := false
	fs.Visit(func(f *flag.Flag) { gwGiven = gwGiven || f.Name == "gateway" })
	if *onlyTemporal && !gwGiven {
		*gw = "" // a bare Temporal server serves no gateway unless asked to
	}
	if !devserver.Available {
		fmt.Fprintln(os.Stderr, "strait dev: this binary was built without the embedded Temporal server (tag noembed)")
		return 2
	}
	cfg := node.Config{Namespace: *namespace, Embedded: devserver.Options{IP: *ip, Port: *port, DBFile: *db}}
	if !*headless {
		p := *uiPort
		if p == 0 {
			p = 8233
			if *port != 0 {
				p = *port + 1000 // as Temporal's own dev server places it
			}
		}
		cfg.Embedded.UI = net.JoinHostPort(*ip, strconv.Itoa(p))
	}
	if !pf.apply(&cfg) {
		return 2
	}
	if cfg.MetricsAddr == "" && !*onlyTemporal {
		// dev serves /metrics unless told where: on Prometheus's usual port, else any free one
		cfg.MetricsAddr, cfg.MetricsFallback = net.JoinHostPort(*ip, "9090"), net.JoinHostPort(*ip, "0")
	}
	if !*onlyTemporal {
		cfg.Worker = true
		for i := 1; i <= *runners; i++ {
			cfg.Runners = append(cfg.Runners, node.RunnerSpec{ID: fmt.Sprintf("dev-%d", i), Slots: *slots})
		}
	}
	gwAddr := ""
	serveGateway := func(n *node.Node) (func(context.Context) error, error) {
		if *gw == "" {
			return nil, nil
		}
		settings := gatewaySettings{listen: *gw}
		if n.UI != "" {
			settings.opts = append(settings.opts, gateway.WithTemporalUI("http://"+n.UI))
		}
		if env := os.Getenv(gateway.TokensEnv); env != "" {
			// dev takes tokens from the environment, as the gateway does
			toks, err := gateway.NewTokens("", env, cfg.Logger)
			if err != nil {
				return nil, err
			}
			settings.opts = append(settings.opts, gateway.WithTokens(toks))
		}
		addr, stop, err := serveGateway(settings, n.Client, n.Namespace, cfg.Logger)
		if err != nil && !gwGiven {
			// the default port is taken: dev still runs, without the gateway
			fmt.Fprintf(os.Stderr, "strait dev: warning: %v; no gateway (give --gateway ADDR)\n", err)
			return nil, nil
		}
		gwAddr = addr
		return stop, err
	}
	return serve(cfg, func(n *node.Node) {
		fmt.Printf("Temporal server: %s (namespace %s)\n", n.Address, n.Namespace)
		if n.UI != "" {
			fmt.Printf("Temporal Web UI: http://%s/namespaces/%s/workflows\n", n.UI, n.Namespace)
		}
		if !*onlyTemporal {
			fmt.Printf("Worker: task queue strait-jobs\n")
			for _, r := range n.Runners {
				fmt.Printf("Runner %s: %d slots\n", r.ID(), r.Slots())
			}
		}
		if gwAddr != "" {
			fmt.Printf("Gateway: http://%s (SeaTunnel REST API v2)\n", gwAddr)
			fmt.Printf("Dashboard: http://%s/ui/\n", gwAddr)
		}
		if n.MetricsAddr != "" {
			fmt.Printf("Metrics: http://%s/metrics\n", n.MetricsAddr)
		}
		fmt.Printf("Submit jobs with: strait run --address %s job.conf\n", n.Address)
	}, serveGateway)
}

func workerCmd(args []string) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	pf := addProcessFlags(fs)
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	cfg := node.Config{Worker: true, DialWait: node.DefaultDialWait}
	if !cf.applyTo(&cfg) || !pf.apply(&cfg) {
		return 2
	}
	return serve(cfg, func(n *node.Node) {
		fmt.Printf("Worker connected to %s (namespace %s), task queue strait-jobs\n", n.Address, n.Namespace)
		if n.MetricsAddr != "" {
			fmt.Printf("Metrics: http://%s/metrics\n", n.MetricsAddr)
		}
	})
}

func runnerCmd(args []string) int {
	fs := flag.NewFlagSet("runner", flag.ContinueOnError)
	cf := addConnectFlags(fs)
	id := fs.String("id", "", "runner id (default: the host name, stable across restarts)")
	slots := fs.Int("slots", 4, "slots")
	var tags multi
	fs.Var(&tags, "tag", "tag key=value (repeatable), matched by a job's env.tag_filter")
	listen := fs.String("listen", ":0", "address of the data exchange server (other runners connect here)")
	advertise := fs.String("advertise", "", "host:port other runners reach the exchange at (default: the listen address)")
	xf := addExchangeTLSFlags(fs)
	pf := addProcessFlags(fs)
	if _, err := parseInterleaved(fs, args); err != nil {
		return 2
	}
	tm := map[string]string{}
	for _, t := range tags {
		k, v, ok := strings.Cut(t, "=")
		if !ok || k == "" {
			fmt.Fprintf(os.Stderr, "strait runner: --tag %q: expected key=value\n", t)
			return 2
		}
		tm[k] = v
	}
	xtls, err := xf.files()
	if err != nil {
		fmt.Fprintf(os.Stderr, "strait runner: %v\n", err)
		return 2
	}
	spec := node.RunnerSpec{ID: *id, Slots: *slots, Tags: tm, Listen: *listen, Advertise: *advertise, TLS: xtls}
	cfg := node.Config{Runners: []node.RunnerSpec{spec}, DialWait: node.DefaultDialWait}
	if !cf.applyTo(&cfg) || !pf.apply(&cfg) {
		return 2
	}
	return serve(cfg, func(n *node.Node) {
		r := n.Runners[0]
		security := ""
		if xtls.Enabled() {
			security = " (mTLS)"
		}
		fmt.Printf("Runner %s: %d slots, tags %v, exchange at %s%s, connected to %s\n", r.ID(), r.Slots(), tm, r.Address(), security, n.Address)
		if n.MetricsAddr != "" {
			fmt.Printf("Metrics: http://%s/metrics\n", n.MetricsAddr)
		}
	})
}

// exchangeTLSFlags are a runner's flags for mTLS on the data exchange.
type exchangeTLSFlags struct{ cert, key, ca, serverName *string }

func addExchangeTLSFlags(fs *flag.FlagSet) exchangeTLSFlags {
	return exchangeTLSFlags{
		cert: fs.String("exchange-tls-cert", envOr("STRAIT_EXCHANGE_TLS_CERT", ""),
			"PEM certificate the runner presents on the data exchange, as server and as client; with --exchange-tls-key and --exchange-tls-ca the exchange runs over mTLS (STRAIT_EXCHANGE_TLS_CERT)"),
		key: fs.String("exchange-tls-key", envOr("STRAIT_EXCHANGE_TLS_KEY", ""), "PEM key of --exchange-tls-cert (STRAIT_EXCHANGE_TLS_KEY)"),
		ca: fs.String("exchange-tls-ca", envOr("STRAIT_EXCHANGE_TLS_CA", ""),
			"PEM CA certificates the other runners' certificates must chain to (STRAIT_EXCHANGE_TLS_CA)"),
		serverName: fs.String("exchange-tls-server-name", envOr("STRAIT_EXCHANGE_TLS_SERVER_NAME", ""),
			"name the other runners' certificates carry, when they name a service rather than each host (default: the host of each runner's advertised address; STRAIT_EXCHANGE_TLS_SERVER_NAME)"),
	}
}

// files are the mTLS files the flags name: none, or a certificate, its key and a CA.
func (f exchangeTLSFlags) files() (exchange.TLSFiles, error) {
	files := exchange.TLSFiles{Cert: *f.cert, Key: *f.key, CA: *f.ca, ServerName: *f.serverName}
	if !files.Enabled() {
		if files.ServerName != "" {
			return files, errors.New("--exchange-tls-server-name given without --exchange-tls-cert, --exchange-tls-key and --exchange-tls-ca")
		}
		return files, nil
	}
	if m := files.Missing(); m != "" {
		return files, fmt.Errorf("mTLS on the exchange needs --exchange-tls-%s (or STRAIT_EXCHANGE_TLS_%s) too: a certificate, its key and a CA", m, strings.ToUpper(m))
	}
	return files, nil
}
