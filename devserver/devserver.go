//go:build !noembed

// Package devserver embeds a Temporal server (go.temporal.io/server on SQLite, in memory or
// in a file) for `strait run`, `strait dev` and the tests. Production workers and runners
// talk to a real Temporal cluster and are built without it (build tag noembed).
package devserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/internal/freeport"
)

// Available reports whether this build embeds the Temporal server.
const Available = true

// Server is a running embedded Temporal server.
type Server struct {
	srv       temporal.Server
	address   string
	namespace string
	ui        *ui
}

// Address is the frontend's host:port.
func (s *Server) Address() string { return s.address }

// Namespace is the namespace the server created.
func (s *Server) Namespace() string { return s.namespace }

// SearchAttributes are the custom search attributes Strait's workflows use.
var SearchAttributes = contract.SearchAttributes

// portError is a port the server needs that is taken.
type portError struct{ error }

func (e *portError) Unwrap() error { return e.error }

// Start starts a server and returns once it serves. The history, matching and worker ports
// (and the frontend's, unless given) are picked free but may be taken by
// another process starting at the same moment before the server binds them; the start is
// then tried again with new ports. A frontend port that is given and taken is an error.
func Start(opts Options) (*Server, error) {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
		}
		var s *Server
		if s, err = startOnce(opts); err == nil {
			return s, nil
		}
		var pe *portError
		if opts.Port != 0 && errors.As(err, &pe) && strings.Contains(pe.Error(), fmt.Sprintf(" frontend port %d:", opts.Port)) {
			break // the port given is taken: new picks cannot help
		}
	}
	return nil, err
}

func startOnce(opts Options) (s *Server, err error) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(fatalStart); ok {
				// most often a port taken between the check below and the bind
				s, err = nil, &portError{fmt.Errorf("embedded temporal: start: %s", f.msg)}
				return
			}
			s, err = nil, fmt.Errorf("embedded temporal: start: %v", r)
		}
	}()
	if opts.IP == "" {
		opts.IP = "127.0.0.1"
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Port == 0 {
		if opts.Port, err = freeport.Pick(opts.IP); err != nil {
			return nil, fmt.Errorf("embedded temporal: pick a port: %w", err)
		}
	}
	sql := &config.SQL{PluginName: sqliteplugin.PluginName, ConnectAttributes: map[string]string{}}
	if opts.DBFile == "" {
		sql.ConnectAttributes["mode"] = "memory"
		sql.ConnectAttributes["cache"] = "shared"
		sql.DatabaseName = fmt.Sprintf("strait-%d-%d", os.Getpid(), time.Now().UnixNano())
	} else {
		sql.ConnectAttributes["mode"] = "rwc"
		sql.ConnectAttributes["_journal_mode"] = "WAL"
		sql.ConnectAttributes["_synchronous"] = "NORMAL"
		sql.DatabaseName = opts.DBFile
		if _, err := os.Stat(opts.DBFile); os.IsNotExist(err) {
			if err := os.MkdirAll(filepath.Dir(opts.DBFile), 0o755); err != nil {
				return nil, fmt.Errorf("embedded temporal: %w", err)
			}
			if err := sqliteschema.SetupSchema(sql); err != nil {
				return nil, fmt.Errorf("embedded temporal: create schema in %s: %w", opts.DBFile, err)
			}
		}
	}
	ns, err := sqliteschema.NewNamespaceConfig("active", opts.Namespace, false, SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("embedded temporal: namespace: %w", err)
	}
	if err := sqliteschema.CreateNamespaces(sql, ns); err != nil {
		return nil, fmt.Errorf("embedded temporal: create namespace: %w", err)
	}
	address := net.JoinHostPort(opts.IP, fmt.Sprint(opts.Port))
	cfg := &config.Config{}
	cfg.Persistence = config.Persistence{
		DefaultStore:     sqliteplugin.PluginName,
		VisibilityStore:  sqliteplugin.PluginName,
		NumHistoryShards: 1,
		DataStores:       map[string]config.DataStore{sqliteplugin.PluginName: {SQL: sql}},
	}
	cfg.ClusterMetadata = &cluster.Config{
		EnableGlobalNamespace:    false,
		FailoverVersionIncrement: 10,
		MasterClusterName:        "active",
		CurrentClusterName:       "active",
		ClusterInformation: map[string]cluster.ClusterInformation{
			"active": {Enabled: true, InitialFailoverVersion: 1, RPCAddress: address},
		},
	}
	cfg.DCRedirectionPolicy = config.DCRedirectionPolicy{Policy: "noop"}
	all := []string{"frontend", "history", "matching", "worker"}
	services := all
	if opts.OneJob {
		services = all[:3]
	}
	// Every service runs in this process, so each knows where the others are: the hosts are
	// static, with no membership ring to join. A ring, besides its gossip, is a race at start:
	// until history's view of it holds the matching service, the workflow tasks history hands
	// on fail and wait for its retry, seconds later; and after a kill it starts from the dead
	// process's members in the state file.
	cfg.Services = map[string]config.Service{}
	hosts := map[primitives.ServiceName]static.Hosts{}
	for _, name := range all {
		port := opts.Port
		if name != "frontend" {
			if port, err = freeport.PickInternal(opts.IP); err != nil {
				return nil, err
			}
		}
		// the worker service is named even when it does not run: the static hosts must
		// name every service
		hosts[primitives.ServiceName(name)] = static.SingleLocalHost(net.JoinHostPort(opts.IP, fmt.Sprint(port)))
		cfg.Services[name] = config.Service{RPC: config.RPC{GRPCPort: port, BindOnIP: opts.IP}}
	}
	cfg.Archival.History.State = "disabled"
	cfg.Archival.Visibility.State = "disabled"
	cfg.NamespaceDefaults.Archival.History.State = "disabled"
	cfg.NamespaceDefaults.Archival.Visibility.State = "disabled"
	cfg.PublicClient = config.PublicClient{HostPort: address}

	var base log.Logger = log.NewNoopLogger()
	if opts.LogLevel != "" {
		base = log.NewZapLogger(log.BuildZapLogger(log.Config{Stdout: false, Level: opts.LogLevel}))
	}
	logger := newFatalLogger(base)
	authorizer, err := authorization.GetAuthorizerFromConfig(&cfg.Global.Authorization)
	if err != nil {
		return nil, err
	}
	claimMapper, err := authorization.GetClaimMapperFromConfig(&cfg.Global.Authorization, logger)
	if err != nil {
		return nil, err
	}
	dc := dynamicconfig.StaticClient{
		dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key():      true,
		dynamicconfig.FrontendPersistenceMaxQPS.Key():                    10000,
		dynamicconfig.HistoryPersistenceMaxQPS.Key():                     45000,
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 100,
	}
	// Temporal's services crash the process (in goroutines of their own) when a port they
	// bind is taken, so every port is checked just before the server binds them (while it
	// is built); a taken one is an error here, and Start picks new ports
	for name, svc := range cfg.Services {
		p := svc.RPC.GRPCPort
		l, err := net.Listen("tcp", net.JoinHostPort(opts.IP, fmt.Sprint(p)))
		if err != nil {
			return nil, &portError{fmt.Errorf("embedded temporal: %s port %d: %w", name, p, err)}
		}
		l.Close()
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(cfg),
		temporal.ForServices(services),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper }),
		temporal.WithDynamicConfigClient(dc),
	)
	if err != nil {
		return nil, fmt.Errorf("embedded temporal: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("embedded temporal: start: %w", err)
	}
	logger.started()
	s = &Server{srv: srv, address: address, namespace: opts.Namespace}
	if opts.UI != "" {
		if s.ui, err = startUI(opts.UI, address, opts.Namespace); err != nil {
			_ = srv.Stop()
			return nil, err
		}
	}
	return s, nil
}

// UI is the Web UI's address, or empty when none is served.
func (s *Server) UI() string {
	if s.ui == nil {
		return ""
	}
	return s.ui.listen
}

// Stop stops the Web UI and the server.
func (s *Server) Stop() error {
	s.ui.stop()
	return s.srv.Stop()
}
