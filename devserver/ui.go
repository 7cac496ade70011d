//go:build !noembed

package devserver

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"github.com/temporalio/ui-server/v2/server/server_options"
)

// ui is the Temporal Web UI served beside the embedded server (strait dev), where users
// watch their jobs: each job a workflow, its pipelines child workflows, its state in the
// StraitJobState search attribute.
type ui struct {
	srv    *uiserver.Server
	listen string
	done   chan error
}

// startUI serves the Web UI on listen (host:port) for the frontend at temporal, and returns
// once it answers.
func startUI(listen, temporal, namespace string) (*ui, error) {
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("web ui: listen address %q: %w", listen, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port <= 0 || port > 65535 {
		return nil, fmt.Errorf("web ui: listen address %q: the port must be 1 to 65535", listen)
	}
	// the UI server does not report a port it cannot bind; find out first
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("web ui: %w", err)
	}
	l.Close()
	cfg := &uiconfig.Config{
		Host:                host,
		Port:                port,
		TemporalGRPCAddress: temporal,
		EnableUI:            true,
		DefaultNamespace:    namespace,
		HideLogs:            true,
	}
	u := &ui{srv: uiserver.NewServer(server_options.WithConfigProvider(cfg)), listen: listen, done: make(chan error, 1)}
	go func() { u.done <- u.srv.Start() }()
	url := "http://" + net.JoinHostPort(host, portText) + "/"
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-u.done:
			if err == nil || errors.Is(err, http.ErrServerClosed) {
				err = errors.New("stopped at once")
			}
			return nil, fmt.Errorf("web ui on %s: %w", listen, err)
		default:
		}
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return u, nil
		}
		if time.Now().After(deadline) {
			u.srv.Stop()
			return nil, fmt.Errorf("web ui on %s: no answer after 10 s", listen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (u *ui) stop() {
	if u != nil {
		u.srv.Stop()
	}
}
