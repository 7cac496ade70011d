// Package devservertest starts the embedded Temporal server for a test.
package devservertest

import (
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/strait-dev/strait/devserver"
)

// Start starts an embedded server with its defaults (in memory, a free port), stopped when
// the test ends.
func Start(t testing.TB) *devserver.Server {
	t.Helper()
	srv, err := devserver.Start(devserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv
}

// Client starts an embedded server and returns a client of its namespace; both are closed
// when the test ends.
func Client(t testing.TB) client.Client {
	t.Helper()
	srv := Start(t)
	c, err := client.Dial(client.Options{HostPort: srv.Address(), Namespace: srv.Namespace()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}
