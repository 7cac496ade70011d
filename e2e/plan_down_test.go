package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/internal/nettest"
)

// planDownJob reads with Jdbc from addr, where no database answers.
const planDownJob = `env { job.mode = BATCH }
source {
  Jdbc {
    url = "jdbc:postgresql://%ADDR%/test"
    driver = "org.postgresql.Driver"
    user = test
    password = test
    query = "select 1 as one"
    connection_check_timeout_sec = %TIMEOUT%
  }
}
sink { Console {} }
`

// `strait plan` on a job whose database is down fails as a bad config does, exit code 2,
// naming the host and port, and within the connection timeout (plus the time the process
// takes to start), whether the port refuses connections or accepts them and never answers.
func TestPlanDatabaseDown(t *testing.T) {
	const timeout = 3 // connection_check_timeout_sec
	for _, tc := range []struct {
		name string
		addr func(t testing.TB) string
	}{
		{"closed port", nettest.ClosedAddr},
		{"silent server", nettest.SilentAddr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.addr(t)
			job := strings.NewReplacer("%ADDR%", addr, "%TIMEOUT%", strconv.Itoa(timeout)).Replace(planDownJob)
			file := writeFile(t, "down.conf", job)
			start := time.Now()
			code, out := run(t, "plan", file)
			took := time.Since(start)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s", code, tail(out, 20))
			}
			if !strings.Contains(out, "source[0] Jdbc") || !strings.Contains(out, addr) {
				t.Fatalf("the error names neither the plugin nor %s:\n%s", addr, tail(out, 20))
			}
			if bound := timeout*time.Second + 30*time.Second; took > bound {
				t.Fatalf("strait plan took %v, want it to give up within %v", took, bound)
			}
		})
	}
}
