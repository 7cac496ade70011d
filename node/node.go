// Package node composes Strait processes with fx: the embedded Temporal server (when no
// address is given), the Temporal client, the jobs worker and task runners. The commands in
// cmd/strait pick the parts they host.
package node

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"go.uber.org/dig"
	"go.uber.org/fx"

	"github.com/strait-dev/strait/activities"
	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/devserver"
	"github.com/strait-dev/strait/engineconfig"
	"github.com/strait-dev/strait/exchange"
	"github.com/strait-dev/strait/metrics"
	"github.com/strait-dev/strait/taskrunner"
	"github.com/strait-dev/strait/worker"
)

// Config says what a process hosts.
type Config struct {
	// Address of Temporal; empty starts the embedded server.
	Address   string
	Namespace string
	// Connection holds how to reach a remote Temporal beyond its address: TLS or mTLS,
	// credentials (an API key), gRPC headers. Unused with the embedded server.
	Connection client.Options
	// Embedded server options, when Address is empty.
	Embedded devserver.Options
	// Worker hosts the workflows and coordinator activities.
	Worker bool
	// Runners are the task runners the process hosts.
	Runners []RunnerSpec
	// MetricsAddr serves Prometheus /metrics there when set (":9090", "127.0.0.1:0").
	MetricsAddr string
	// MetricsFallback, when set, is where /metrics goes when MetricsAddr is taken (strait
	// dev's default port may be held by another process; "127.0.0.1:0" is any free port).
	MetricsFallback string
	// CheckpointDir is the local checkpoint store's root, shared by the workers and runners
	// of a cluster on one host or a shared mount (default: the engine config's
	// checkpoint.storage.root, else <tmp>/strait/checkpoints). An engine config with S3
	// storage puts the checkpoints in S3 instead.
	CheckpointDir string
	// DialWait is how long the process waits for Temporal to answer at start: services
	// (worker, runner) wait for a Temporal that is still starting; 0 tries once.
	DialWait time.Duration
	// Engine is strait.yaml; nil means the built-in defaults.
	Engine *engineconfig.Config
	Logger *slog.Logger
}

// RunnerSpec configures one task runner.
type RunnerSpec struct {
	ID    string
	Slots int
	Tags  map[string]string
	// Listen is the exchange server's address (":0" picks a port); Advertise is the
	// host:port other runners use to reach it, when it differs.
	Listen, Advertise string
	// TLS runs the exchange over mTLS with these files when any is named; without them it
	// is plain gRPC, for trusted networks.
	TLS exchange.TLSFiles
}

// Node is what a composed process exposes to its command.
type Node struct {
	Client    client.Client
	Runners   []*taskrunner.Runner
	Runner    *taskrunner.Runner // the first runner, nil without one
	Address   string
	Namespace string
	Embedded  bool
	// UI is where the embedded server's Temporal Web UI is served ("" when not).
	UI string
	// MetricsAddr is where /metrics is served ("" when not).
	MetricsAddr string
}

// Module is the fx wiring of a process.
func Module(cfg Config) fx.Option {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "default"
	}
	if cfg.Engine != nil {
		for _, k := range cfg.Engine.Ignored {
			cfg.Logger.Info("engine config: setting not used", "setting", k)
		}
	}
	return fx.Options(
		fx.Supply(cfg),
		fx.Provide(metrics.NewRegistry, provideStore, provideServer, provideClient, provideRunner, provideNode),
		// metrics first: the runners register the address it is served at
		fx.Invoke(storeFirst, serveMetrics, startWorker, startRunner),
	)
}

// New starts a composed process and returns it with a stop function.
func New(ctx context.Context, cfg Config) (*Node, func(context.Context) error, error) {
	var n *Node
	app := fx.New(Module(cfg), fx.Populate(&n), fx.NopLogger, fx.StartTimeout(2*time.Minute), fx.StopTimeout(time.Minute))
	if err := app.Err(); err != nil {
		return nil, nil, dig.RootCause(err)
	}
	if err := app.Start(ctx); err != nil {
		return nil, nil, dig.RootCause(err)
	}
	return n, app.Stop, nil
}

type server struct{ s *devserver.Server }

func provideServer(lc fx.Lifecycle, cfg Config) (*server, error) {
	if cfg.Address != "" {
		return &server{}, nil
	}
	cfg.Embedded.Namespace = cfg.Namespace
	s, err := devserver.Start(cfg.Embedded)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(func() error { return s.Stop() }))
	return &server{s: s}, nil
}

func provideClient(lc fx.Lifecycle, cfg Config, srv *server, reg *prometheus.Registry) (client.Client, error) {
	addr := cfg.Address
	if srv.s != nil {
		addr = srv.s.Address()
	}
	opts := client.Options{}
	if srv.s == nil {
		opts = cfg.Connection
	}
	opts.HostPort, opts.Namespace = addr, cfg.Namespace
	opts.Logger, opts.MetricsHandler = sdklog.NewStructuredLogger(cfg.Logger), metrics.NewTemporalHandler(reg)
	wait := cfg.DialWait
	if srv.s != nil {
		// the embedded frontend answers before it reports healthy: wait for it
		wait = max(wait, embeddedDialWait)
	}
	c, err := dial(opts, wait, cfg.Logger)
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w", addr, err)
	}
	lc.Append(fx.StopHook(c.Close))
	return c, nil
}

// embeddedDialWait bounds the wait for the embedded server's frontend to report healthy.
const embeddedDialWait = 30 * time.Second

// DefaultDialWait is how long a service waits for Temporal to answer at start: a worker or
// runner started with (or before) its Temporal server waits for it rather than exiting.
const DefaultDialWait = 90 * time.Second

// dial connects to Temporal, trying again with a growing pause (up to 5 s) while the server
// is not up or not healthy yet, for at most wait.
func dial(opts client.Options, wait time.Duration, log *slog.Logger) (client.Client, error) {
	began := time.Now()
	deadline := began.Add(wait)
	pause := 25 * time.Millisecond // an embedded server is healthy within tens of milliseconds
	warned := false
	for attempt := 1; ; attempt++ {
		c, err := client.Dial(opts)
		if err == nil {
			if attempt > 1 {
				log.Info("Temporal answers", "address", opts.HostPort, "attempts", attempt)
			}
			return c, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			if wait <= 0 {
				return nil, err
			}
			return nil, fmt.Errorf("no answer within %s: %w", wait.Round(time.Second), err)
		}
		// a server that is merely starting is not worth a warning; one silent for a while is
		if (!warned && time.Since(began) > 2*time.Second) || attempt%10 == 0 {
			warned = true
			log.Warn("Temporal does not answer yet; trying again", "address", opts.HostPort, "error", err)
		}
		time.Sleep(min(pause, left))
		pause = min(pause*2, 5*time.Second)
	}
}

type runners []*taskrunner.Runner

// storeCheckTimeout bounds the start-up check of the checkpoint store: a wrong endpoint
// or credential stops the process within seconds.
const storeCheckTimeout = 15 * time.Second

// provideStore opens the checkpoint store the process's workers and runners share and
// checks it, or gives none when the process hosts neither.
func provideStore(cfg Config) (checkpointstore.Store, error) {
	if !cfg.Worker && len(cfg.Runners) == 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeCheckTimeout)
	defer cancel()
	store, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := store.Check(ctx); err != nil {
		return nil, err
	}
	return store, nil
}

// storeFirst opens (and checks) the checkpoint store before anything else, Temporal
// included: a wrong endpoint or credential stops the process within seconds, not after it
// waited for Temporal.
func storeFirst(checkpointstore.Store) {}

// openStore is the store the engine config names: S3, or a local folder (--checkpoint-dir,
// else checkpoint.storage.root, else <tmp>/strait/checkpoints).
func openStore(ctx context.Context, cfg Config) (checkpointstore.Store, error) {
	st := engineconfig.Default().Checkpoint.Storage
	if cfg.Engine != nil {
		st = cfg.Engine.Checkpoint.Storage
	}
	if st.Type == engineconfig.StorageS3 {
		if cfg.CheckpointDir != "" {
			return nil, fmt.Errorf("checkpoint store: --checkpoint-dir %s and the engine config's s3 storage both name the store: give one", cfg.CheckpointDir)
		}
		s3cfg := st.S3
		s3cfg.Logger = cfg.Logger
		return checkpointstore.NewS3(ctx, s3cfg)
	}
	dir := cfg.CheckpointDir
	if dir == "" {
		dir = st.Root
	}
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "strait", "checkpoints")
	}
	return checkpointstore.New(dir)
}

func provideRunner(lc fx.Lifecycle, cfg Config, c client.Client, reg *prometheus.Registry, store checkpointstore.Store) (runners, error) {
	var out runners
	if len(cfg.Runners) == 0 {
		return nil, nil
	}
	taskrunner.TuneGC()
	em, err := exchange.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	for _, spec := range cfg.Runners {
		id := spec.ID
		if id == "" {
			id = taskrunner.DefaultID()
		}
		// the runner's data exchange: a server other runners stream to, a client for its own
		// outputs
		listen := spec.Listen
		if listen == "" {
			listen = "127.0.0.1:0"
		}
		lis, err := net.Listen("tcp", listen)
		if err != nil {
			return nil, fmt.Errorf("runner %s: exchange listen on %s: %w", id, listen, err)
		}
		opts, err := exchangeOptions(spec, em, cfg.Logger)
		if err != nil {
			lis.Close()
			return nil, fmt.Errorf("runner %s: %w", id, err)
		}
		srv := exchange.NewServer(cfg.Logger, opts...)
		cli := exchange.NewClient(cfg.Logger, opts...)
		go func() {
			if err := srv.Serve(lis); err != nil {
				cfg.Logger.Error("exchange server stopped", "runner", id, "error", err)
			}
		}()
		lc.Append(fx.StopHook(func() {
			srv.Stop()
			_ = cli.Close()
		}))
		r := taskrunner.New(taskrunner.Config{ID: id, Slots: spec.Slots, Tags: spec.Tags, Logger: cfg.Logger,
			Address: taskrunner.AdvertisedAddress(lis.Addr().String(), spec.Advertise), Server: srv, Client: cli, Store: store},
			&activities.SignalReporter{Client: c})
		reg.MustRegister(taskrunner.NewCollector(r))
		out = append(out, r)
	}
	return out, nil
}

// exchangeOptions are a runner's exchange settings: its metrics, and mTLS when its spec
// names certificates.
func exchangeOptions(spec RunnerSpec, em *exchange.Metrics, log *slog.Logger) ([]exchange.Option, error) {
	opts := []exchange.Option{exchange.WithMetrics(em)}
	if !spec.TLS.Enabled() {
		return opts, nil
	}
	t, err := exchange.NewTLS(spec.TLS, log)
	if err != nil {
		return nil, err
	}
	log.Info("exchange: mTLS", "cert", spec.TLS.Cert, "ca", spec.TLS.CA, "server_name", spec.TLS.ServerName)
	return append(opts, exchange.WithTLS(t)), nil
}

func provideNode(cfg Config, c client.Client, rs runners, srv *server) *Node {
	n := &Node{Client: c, Runners: rs, Address: cfg.Address, Namespace: cfg.Namespace}
	if len(rs) > 0 {
		n.Runner = rs[0]
	}
	if srv.s != nil {
		n.Address, n.Embedded, n.UI = srv.s.Address(), true, srv.s.UI()
	}
	return n
}

func startWorker(lc fx.Lifecycle, cfg Config, c client.Client, store checkpointstore.Store, reg *prometheus.Registry) {
	if !cfg.Worker {
		return
	}
	reg.MustRegister(metrics.NewJobs(c, cfg.Namespace, cfg.Logger))
	var w sdkworker.Worker
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := worker.EnsureSearchAttributes(ctx, c, cfg.Namespace); err != nil {
				return err
			}
			w = worker.NewJobsWorker(c, cfg.Logger, store, cfg.Engine)
			return w.Start()
		},
		OnStop: func(context.Context) error {
			w.Stop()
			return nil
		},
	})
}

func startRunner(lc fx.Lifecycle, cfg Config, c client.Client, rs runners) {
	for _, r := range rs {
		startOneRunner(lc, c, r)
	}
}

func startOneRunner(lc fx.Lifecycle, c client.Client, r *taskrunner.Runner) {
	var w sdkworker.Worker
	mctx, stopMonitor := context.WithCancel(context.Background())
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			w = worker.NewRunnerWorker(c, r)
			if err := w.Start(); err != nil {
				return err
			}
			if err := activities.RegisterRunner(ctx, c, r.Info()); err != nil {
				return err
			}
			r.SetLease(contract.DefaultLeaseTimeout)
			go monitor(mctx, c, r)
			return nil
		},
		OnStop: func(context.Context) error {
			stopMonitor()
			r.Close()
			w.Stop()
			return nil
		},
	})
}

func serveMetrics(lc fx.Lifecycle, cfg Config, reg *prometheus.Registry, n *Node, rs runners) {
	if cfg.MetricsAddr == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			addr, err := metrics.ServeOr(ctx, cfg.MetricsAddr, cfg.MetricsFallback, reg, cfg.Logger)
			if err != nil {
				return fmt.Errorf("metrics on %s: %w", cfg.MetricsAddr, err)
			}
			n.MetricsAddr = addr
			for _, r := range rs {
				r.SetMetricsAddress(addr)
			}
			return nil
		},
		OnStop: func(context.Context) error {
			cancel()
			return nil
		},
	})
}
