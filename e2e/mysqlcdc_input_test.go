package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// cdcConsoleJob is a STREAMING MySQL-CDC → Console job reading tables of a database at
// hostPort as user test with a password.
func cdcConsoleJob(t *testing.T, hostPort, db, password string, tables ...string) string {
	t.Helper()
	var names []string
	for _, tb := range tables {
		names = append(names, fmt.Sprintf("%q", db+"."+tb))
	}
	return writeJob(t, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  parallelism = 1
}
source {
  MySQL-CDC {
    base-url = "jdbc:mysql://%s/%s"
    username = "test"
    password = %q
    table-names = [%s]
    connect.max-retries = 0
  }
}
sink {
  Console {}
}`, hostPort, db, password, strings.Join(names, ", ")))
}

// TestMySQLCDCBadInput runs MySQL-CDC jobs through strait run that cannot start: each fails
// before it runs, with a message that says what is wrong and where.
func TestMySQLCDCBadInput(t *testing.T) {
	dsn := sharedMariaDB(t)
	db := newMySQLDatabase(t, dsn, fmt.Sprintf("cdc_bad_%d", time.Now().UnixNano()%1_000_000_000))
	db.exec(t, "CREATE TABLE ok (id INT PRIMARY KEY)", "CREATE TABLE addr (id INT PRIMARY KEY, ip INET6)")
	noLog := startPrivateMariaDB(t, false)
	plain := newMySQLDatabase(t, noLog.dsn(), "nolog")
	plain.exec(t, "CREATE TABLE ok (id INT PRIMARY KEY)")
	cases := []struct {
		name string
		job  string
		want []string
	}{
		{"wrong password", cdcConsoleJob(t, db.hostPort, db.name, "wrong", "ok"),
			[]string{"source[0] MySQL-CDC", "connect to " + db.hostPort + " as test", "Access denied"}},
		{"a missing table", cdcConsoleJob(t, db.hostPort, db.name, "test", "ok", "missing"),
			[]string{"source[0] MySQL-CDC", "table " + db.name + ".missing does not exist"}},
		{"binary log off", cdcConsoleJob(t, noLog.hostPort(), "nolog", "test", "ok"),
			[]string{"source[0] MySQL-CDC", noLog.hostPort(), "does not write a binary log (log_bin is OFF)", "--log-bin"}},
		{"an unsupported column type", cdcConsoleJob(t, db.hostPort, db.name, "test", "addr"),
			[]string{"source[0] MySQL-CDC", `column "ip"`, "type inet6 is not supported"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out := run(t, "run", c.job)
			if code == 0 {
				t.Fatalf("the job ran:\n%s", tail(out, 20))
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Fatalf("exit %d; the output does not say %q:\n%s", code, w, tail(out, 20))
				}
			}
		})
	}
}
