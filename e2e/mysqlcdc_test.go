package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The kill tests of MySQL-CDC: a STREAMING MySQL-CDC → Jdbc (PostgreSQL, exactly-once) job
// runs while a writer changes the source table in transactions of a sequence its seed
// decides; at a moment a seeded random condition picks (the sink has seen a row of a given
// id), a runner, the worker or the MySQL server goes away. After the writer stops, the sink
// table must become equal to the source table, row by row. A failing run logs its seed;
// STRAIT_TEST_SEED runs that sequence again.

// cdcKillSeed is the run's seed: STRAIT_TEST_SEED, or the time.
func cdcKillSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("STRAIT_TEST_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("STRAIT_TEST_SEED %q: %v", s, err)
		}
		seed = n
	}
	t.Logf("seed %d (STRAIT_TEST_SEED=%d runs this sequence again)", seed, seed)
	return seed
}

// Sizes of a kill test's run.
const (
	cdcKillInitial = 50  // rows in the source table before the job starts
	cdcKillTxs     = 250 // transactions of the writer
	cdcKillPace    = 40 * time.Millisecond
)

// cdcWriter changes the source table in transactions: inserts of new ids, updates of
// names and scores (to NULL too), deletes and updates of a row's key, each chosen by a
// generator of the test's seed from the rows it knows are there. It holds mu during each
// transaction, so that a test may keep it out of a server restart.
type cdcWriter struct {
	db    *sql.DB
	table string
	rng   *rand.Rand
	live  []int64
	next  int64
	mu    sync.Mutex
}

func newCDCWriter(db *sql.DB, table string, seed uint64) *cdcWriter {
	w := &cdcWriter{db: db, table: table, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), next: cdcKillInitial + 1}
	for i := int64(1); i <= cdcKillInitial; i++ {
		w.live = append(w.live, i)
	}
	return w
}

// statements are the next transaction's statements, applied to the writer's model.
func (w *cdcWriter) statements() []string {
	n := 1 + w.rng.IntN(4)
	out := make([]string, 0, n)
	for range n {
		op := w.rng.IntN(10)
		if len(w.live) < 5 {
			op = 0
		}
		switch {
		case op < 5:
			id := w.next
			w.next++
			w.live = append(w.live, id)
			out = append(out, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'row %d', %d)", w.table, id, id, w.rng.IntN(1000)))
		case op < 7:
			id := w.live[w.rng.IntN(len(w.live))]
			out = append(out, fmt.Sprintf("UPDATE %s SET score = score + %d, name = CONCAT(name, '+') WHERE id = %d", w.table, 1+w.rng.IntN(9), id))
		case op < 8:
			id := w.live[w.rng.IntN(len(w.live))]
			out = append(out, fmt.Sprintf("UPDATE %s SET score = NULL WHERE id = %d", w.table, id))
		case op < 9:
			i := w.rng.IntN(len(w.live))
			id := w.live[i]
			w.live = append(w.live[:i], w.live[i+1:]...)
			out = append(out, fmt.Sprintf("DELETE FROM %s WHERE id = %d", w.table, id))
		default:
			i := w.rng.IntN(len(w.live))
			id, to := w.live[i], w.next
			w.next++
			w.live[i] = to
			out = append(out, fmt.Sprintf("UPDATE %s SET id = %d WHERE id = %d", w.table, to, id))
		}
	}
	return out
}

// run writes cdcKillTxs transactions, one every cdcKillPace, and reports the first error.
func (w *cdcWriter) run(ctx context.Context) error {
	tick := time.NewTicker(cdcKillPace)
	defer tick.Stop()
	for i := range cdcKillTxs {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if err := w.transaction(ctx); err != nil {
			return fmt.Errorf("transaction %d: %w", i, err)
		}
	}
	return nil
}

func (w *cdcWriter) transaction(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, s := range w.statements() {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return tx.Commit()
}

// cdcKillSink is the sink table of a kill test: its Jdbc block, its rows and the highest id
// it holds.
type cdcKillSink struct {
	name  string
	block string
	rows  func(t *testing.T) []string
	top   func(t *testing.T) int64
}

// pgKillSink is an empty table in a schema of its own of the test PostgreSQL, written
// exactly once through PostgreSQL's prepared transactions.
func pgKillSink(t *testing.T, n int64) cdcKillSink {
	t.Helper()
	pg := connectTo(t, os.Getenv("STRAIT_TEST_POSTGRES"))
	schema := fmt.Sprintf("mysqlcdc_kill_%d", n)
	if _, err := pg.Exec(context.Background(), fmt.Sprintf("CREATE SCHEMA %[1]s; CREATE TABLE %[1]s.sink (id bigint PRIMARY KEY, name text, score int)", schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := pg.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	table := schema + ".sink"
	return cdcKillSink{
		name: "PostgreSQL",
		block: fmt.Sprintf(`url = "jdbc:postgresql://%s/test"
    driver = "org.postgresql.Driver"
    database = test
    table = %q
    xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"`, testServerHost(t), table),
		rows: func(t *testing.T) []string {
			return pgTriples(t, pg, "SELECT id, name, score FROM "+table+" ORDER BY id")
		},
		top: func(t *testing.T) int64 {
			var top *int64
			if err := pg.QueryRow(context.Background(), "SELECT max(id) FROM "+table).Scan(&top); err != nil || top == nil {
				return 0
			}
			return *top
		},
	}
}

// mysqlKillSink is an empty table in a database of its own on the MariaDB of dsn, written
// exactly once through XA transactions.
func mysqlKillSink(t *testing.T, dsn string, n int64) cdcKillSink {
	t.Helper()
	db := newMySQLDatabase(t, dsn, fmt.Sprintf("cdc_kill_sink_%d", n))
	db.exec(t, "CREATE TABLE sink (id BIGINT PRIMARY KEY, name VARCHAR(255), score INT)")
	return cdcKillSink{
		name: "MySQL",
		block: fmt.Sprintf(`url = %q
    driver = "com.mysql.cj.jdbc.Driver"
    database = %s
    table = sink
    xa_data_source_class_name = "com.mysql.cj.jdbc.MysqlXADataSource"`, db.jdbcURL(), db.name),
		rows: func(t *testing.T) []string { return mysqlRows(t, db.DB, "sink") },
		top: func(t *testing.T) int64 {
			var top sql.NullInt64
			if err := db.QueryRow("SELECT max(id) FROM sink").Scan(&top); err != nil {
				return 0 // the server may be restarting
			}
			return top.Int64
		},
	}
}

// cdcKillJob is the job of a kill test: a STREAMING MySQL-CDC of src → Jdbc into the sink
// table, exactly once, a checkpoint every second.
func cdcKillJob(t *testing.T, src *mysqlDatabase, sink cdcKillSink) string {
	t.Helper()
	return writeJob(t, fmt.Sprintf(`
env {
  job.mode = "STREAMING"
  parallelism = 1
  checkpoint.interval = 1000
  job.retry.times = 10
  job.retry.interval.seconds = 1
}
source {
  MySQL-CDC {
    plugin_output = "cdc"
    base-url = %q
    username = "test"
    password = "test"
    table-names = ["%s.src"]
    snapshot.split.size = 16
    connect.max-retries = 60
  }
}
sink {
  Jdbc {
    plugin_input = "cdc"
    user = "test"
    password = "test"
    generate_sink_sql = true
    primary_keys = ["id"]
    is_exactly_once = true
    %s
  }
}`, src.jdbcURL(), src.name, sink.block))
}

// cdcKillSource creates the source table with its first rows in a database of its own on
// the MariaDB of dsn.
func cdcKillSource(t *testing.T, dsn string, n int64) *mysqlDatabase {
	t.Helper()
	src := newMySQLDatabase(t, dsn, fmt.Sprintf("cdc_kill_%d", n))
	src.exec(t, "CREATE TABLE src (id BIGINT PRIMARY KEY, name VARCHAR(255), score INT)")
	var values []string
	for i := 1; i <= cdcKillInitial; i++ {
		values = append(values, fmt.Sprintf("(%d, 'row %d', %d)", i, i, i))
	}
	src.exec(t, "INSERT INTO src VALUES "+strings.Join(values, ", "))
	return src
}

// mysqlRows reads id, name and score of a MySQL table by id, as tableRows prints them.
func mysqlRows(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query("SELECT id, name, score FROM " + table + " ORDER BY id")
	if err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	defer rows.Close()
	return triplesOf(t, rows)
}

// firstDiff compares two tables' rows in order and describes the first that differs.
func firstDiff(src, sink []string) string {
	for i := 0; i < max(len(src), len(sink)); i++ {
		a, b := "(none)", "(none)"
		if i < len(src) {
			a = src[i]
		}
		if i < len(sink) {
			b = sink[i]
		}
		if a != b {
			return fmt.Sprintf("row %d: source %s, sink %s (%d rows in the source, %d in the sink)", i+1, a, b, len(src), len(sink))
		}
	}
	return ""
}

// cdcKill is a kill test's processes and tables.
type cdcKill struct {
	addr, ckpt string
	worker     *proc
	runners    map[string]*proc
	src        *mysqlDatabase
	sink       cdcKillSink
	id         string
}

// startCDCKill starts Temporal, a worker and two runners as processes, creates the source
// table on the MariaDB of dsn and the sink table (sinkDSN: on that MariaDB, else in the test
// PostgreSQL) and submits the job.
func startCDCKill(t *testing.T, dsn, sinkDSN string) *cdcKill {
	t.Helper()
	k := &cdcKill{ckpt: t.TempDir(), runners: map[string]*proc{}}
	k.addr = startTemporal(t)
	k.worker = k.startWorker(t, "worker")
	for _, id := range []string{"m1", "m2"} {
		k.runners[id] = start(t, id, "runner", "--address", k.addr, "--id", id, "--slots", "2", "--checkpoint-dir", k.ckpt)
	}
	eventually(t, 60*time.Second, "two runners registered", func() bool { return len(clusterStatus(t, k.addr)) == 2 })
	n := time.Now().UnixNano() % 1_000_000_000
	k.src = cdcKillSource(t, dsn, n)
	if sinkDSN != "" {
		k.sink = mysqlKillSink(t, sinkDSN, n)
	} else {
		k.sink = pgKillSink(t, n)
	}
	k.id = submit(t, k.addr, cdcKillJob(t, k.src, k.sink))
	t.Cleanup(func() { _, _ = run(t, "job", "cancel", "--address", k.addr, k.id) })
	return k
}

func (k *cdcKill) startWorker(t *testing.T, name string) *proc {
	t.Helper()
	return start(t, name, "worker", "--address", k.addr, "--checkpoint-dir", k.ckpt)
}

// killMoment picks, from the seed, the id the sink must have seen before the kill: one the
// writer inserts in the first half of its run.
func killMoment(seed uint64) int64 {
	r := rand.New(rand.NewPCG(seed^0x5bd1e995, seed))
	return cdcKillInitial + 10 + int64(r.IntN(cdcKillTxs/2))
}

// runWriter starts the writer; the returned function waits for it to end.
func runWriter(t *testing.T, w *cdcWriter) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	errc := make(chan error, 1)
	go func() { errc <- w.run(ctx) }()
	return func() {
		t.Helper()
		defer cancel()
		if err := <-errc; err != nil {
			t.Fatalf("the writer: %v", err)
		}
	}
}

// awaitSinkEqualsSource waits until the sink table equals the source table row by row; a
// job that stops fails the test at once.
func (k *cdcKill) awaitSinkEqualsSource(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for n := 0; ; n++ {
		src, sink := mysqlRows(t, k.src.DB, "src"), k.sink.rows(t)
		diff := firstDiff(src, sink)
		if diff == "" {
			t.Logf("the %s sink equals the source: %d rows", k.sink.name, len(src))
			return
		}
		if n%10 == 9 {
			if st := jobStatus(t, k.addr, k.id); st.State != "RUNNING" {
				t.Fatalf("job %s is %s (%s); %s", k.id, st.State, st.Error, diff)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sink differs from the source after 3 minutes: %s", diff)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// writeUntilKillMoment starts the writer on the source and waits until the sink has seen the
// row the seed picks for the kill (killMoment); it returns the writer's wait and that row.
func (k *cdcKill) writeUntilKillMoment(t *testing.T, w *cdcWriter, seed uint64) (wait func(), at int64) {
	t.Helper()
	wait = runWriter(t, w)
	at = killMoment(seed)
	eventually(t, 2*time.Minute, fmt.Sprintf("the sink sees row %d", at), func() bool { return k.sink.top(t) >= at })
	return wait, at
}

// cdcKillSinks are the sinks each kill test writes to: a PostgreSQL table, and a MySQL
// table on the source's server.
var cdcKillSinks = []struct {
	name  string
	mysql bool
}{{"PostgreSQL", false}, {"MySQL", true}}

// TestMySQLCDCRunnerKilled SIGKILLs the runner hosting the MySQL-CDC source while the
// writer writes: the job fails over to the other runner from its latest checkpoint and the
// sink ends equal to the source.
func TestMySQLCDCRunnerKilled(t *testing.T) {
	dsn := sharedMariaDB(t)
	for _, sk := range cdcKillSinks {
		t.Run(sk.name, func(t *testing.T) {
			seed := cdcKillSeed(t)
			k, c, victim := startCDCKillCopied(t, dsn, sk.mysql)
			wait, at := k.writeUntilKillMoment(t, newCDCWriter(k.src.DB, "src", seed), seed)
			k.runners[victim].kill(t)
			t.Logf("runner %s killed once the sink saw row %d", victim, at)
			wait()
			k.awaitSinkEqualsSource(t)
			st := c.status(t, k.id)
			if len(st.Pipelines) != 1 || st.Pipelines[0].Restarts < 1 || c.runningOn(t, k.id) == victim {
				t.Fatalf("want a failover away from %s: %+v", victim, st.Pipelines)
			}
		})
	}
}

// startCDCKillCopied starts a kill test on the MariaDB of dsn, its sink table on that
// server too when mysqlSink, and waits until the sink holds the snapshot; it returns the
// test, its cluster and the runner the job's tasks run on.
func startCDCKillCopied(t *testing.T, dsn string, mysqlSink bool) (*cdcKill, *cluster, string) {
	t.Helper()
	sinkDSN := ""
	if mysqlSink {
		sinkDSN = dsn
	}
	k := startCDCKill(t, dsn, sinkDSN)
	c := &cluster{addr: k.addr, ckpt: k.ckpt}
	runner := c.runningOn(t, k.id)
	k.awaitSinkEqualsSource(t) // the snapshot
	return k, c, runner
}

// TestMySQLCDCWorkerKilled SIGKILLs the only worker while the writer writes and starts
// another: the new worker carries the workflows on from their history, no task restarts,
// and the sink ends equal to the source.
func TestMySQLCDCWorkerKilled(t *testing.T) {
	dsn := sharedMariaDB(t)
	for _, sk := range cdcKillSinks {
		t.Run(sk.name, func(t *testing.T) {
			seed := cdcKillSeed(t)
			k, c, _ := startCDCKillCopied(t, dsn, sk.mysql)
			wait, at := k.writeUntilKillMoment(t, newCDCWriter(k.src.DB, "src", seed), seed)
			k.worker.kill(t)
			t.Logf("worker killed once the sink saw row %d", at)
			k.worker = k.startWorker(t, "worker-2")
			wait()
			k.awaitSinkEqualsSource(t)
			if st := c.status(t, k.id); len(st.Pipelines) != 1 || st.Pipelines[0].Restarts != 0 {
				t.Fatalf("a worker's death restarted tasks: %+v", st.Pipelines)
			}
		})
	}
}

// TestMySQLCDCServerRestarted stops the MySQL server the source reads (a private MariaDB,
// so that other tests' server stays up; with the MySQL sink, the sink's server too, its XA
// transactions prepared and not yet committed kept across the restart) while the writer is
// held between two transactions, until the job has seen it go, and starts it again: the job
// reconnects and resumes the log where its checkpoint says, and the sink ends equal to the
// source.
func TestMySQLCDCServerRestarted(t *testing.T) {
	for _, sk := range cdcKillSinks {
		t.Run(sk.name, func(t *testing.T) {
			seed := cdcKillSeed(t)
			server := startPrivateMariaDB(t, true)
			k, c, _ := startCDCKillCopied(t, server.dsn(), sk.mysql)
			w := newCDCWriter(k.src.DB, "src", seed)
			wait, at := k.writeUntilKillMoment(t, w, seed)
			w.mu.Lock()
			server.stop(t)
			t.Logf("MariaDB stopped once the sink saw row %d", at)
			eventually(t, time.Minute, "the job sees the server gone", func() bool {
				st := c.status(t, k.id)
				return len(st.Pipelines) == 1 && st.Pipelines[0].LastFailure != ""
			})
			server.start(t)
			w.mu.Unlock()
			wait()
			k.awaitSinkEqualsSource(t)
		})
	}
}
