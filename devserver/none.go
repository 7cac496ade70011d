//go:build noembed

// Package devserver is left out of this build (tag noembed): it talks to a real Temporal
// cluster only.
package devserver

import "errors"

// Available reports whether this build embeds the Temporal server.
const Available = false

// Server is never started in this build.
type Server struct{}

// Start fails: the build has no embedded server.
func Start(Options) (*Server, error) {
	return nil, errors.New("this strait binary was built without the embedded Temporal server (tag noembed); give --address or TEMPORAL_ADDRESS")
}

// Address is empty.
func (s *Server) Address() string { return "" }

// Namespace is empty.
func (s *Server) Namespace() string { return "" }

// UI is empty.
func (s *Server) UI() string { return "" }

// Stop does nothing.
func (s *Server) Stop() error { return nil }
