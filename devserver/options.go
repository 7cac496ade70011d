package devserver

// Options configure the embedded server.
type Options struct {
	// IP to listen on; default 127.0.0.1.
	IP string
	// Port of the frontend; 0 picks a free one.
	Port int
	// DBFile keeps the server's state in a SQLite file; empty keeps it in memory.
	DBFile string
	// Namespace to create; default "default".
	Namespace string
	// LogLevel of the server's own log (debug, info, warn, error); empty silences it.
	LogLevel string
	// UI is where to serve the Temporal Web UI (host:port); empty serves none.
	UI string
	// OneJob serves one job and no more: the server runs without Temporal's system worker
	// service (schedules, batch operations, namespace deletion, scanners), which a single
	// `strait run` never uses and which costs its start-up a checksum of the whole binary.
	OneJob bool
}
