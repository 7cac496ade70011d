package taskrunner_test

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/exchange"
	"github.com/strait-dev/strait/internal/sqltest"
	"github.com/strait-dev/strait/taskrunner"
)

// The schema evolution of a MySQL-CDC → Jdbc job through real task runners: SeaTunnel's
// MysqlCDCWithSchemaChangeIT statements (columns added with defaults, dropped, renamed,
// modified) run against the source table between its rows; the target ends with the
// source's columns and every row, and a restore from a checkpoint taken between two ALTERs
// neither loses a change nor applies one twice.

// schemaEnvs are the test servers; a test without them fails, as a missing fixture does.
func schemaEnvs(t *testing.T) (mysqlDSN, pgURL string) {
	t.Helper()
	mysqlDSN, pgURL = os.Getenv("STRAIT_TEST_MYSQL"), os.Getenv("STRAIT_TEST_POSTGRES")
	if mysqlDSN == "" || pgURL == "" {
		t.Fatal("STRAIT_TEST_MYSQL and STRAIT_TEST_POSTGRES are not set: start scripts/mariadb.sh and scripts/postgres.sh (see the Makefile)")
	}
	return mysqlDSN, pgURL
}

// mysqlDatabase creates a database of the test's own on the MariaDB test server.
func mysqlDatabase(t *testing.T, dsn, prefix string) (*sql.DB, *mysql.Config) {
	t.Helper()
	mc, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 3)
	_, _ = crand.Read(suffix)
	name := prefix + hex.EncodeToString(suffix)
	admin, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	mc.DBName, mc.MultiStatements = name, true
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		db.Close()
	})
	return db, mc
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// SeaTunnel's shop.products and its statements, in steps: each ALTER between the rows of
// SeaTunnel's DDL files (add_columns, drop_columns, change_columns, modify_columns).
const productsTable = `CREATE TABLE products (
  id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(255) NOT NULL DEFAULT 'SeaTunnel',
  description VARCHAR(512),
  weight FLOAT
)`

var (
	productsRows = `INSERT INTO products VALUES (101,"scooter","Small 2-wheel scooter",3.14), (102,"car battery","12V car battery",8.1),
 (103,"12-pack drill bits","12-pack of drill bits with sizes ranging from #40 to #3",0.8), (104,"hammer","12oz carpenter's hammer",0.75)`
	addColumns = []string{
		`INSERT INTO products VALUES (110,"scooter","Small 2-wheel scooter",3.14), (111,"car battery","12V car battery",8.1)`,
		`UPDATE products SET name = 'dailai' WHERE id = 101`,
		`DELETE FROM products WHERE id = 102`,
		`ALTER TABLE products ADD COLUMN add_column1 varchar(64) not null default 'yy',ADD COLUMN add_column2 int not null default 1`,
		`UPDATE products SET name = 'dailai' WHERE id = 110`,
		`INSERT INTO products VALUES (119,"scooter","Small 2-wheel scooter",3.14,'xx',1), (120,"car battery","12V car battery",8.1,'xx',2)`,
		`ALTER TABLE products ADD COLUMN add_column3 float not null default 1.1`,
		`INSERT INTO products VALUES (128,"scooter","Small 2-wheel scooter",3.14,'xx',1,1.1)`,
	}
	dropColumns = []string{
		`INSERT INTO products VALUES (137,"scooter","Small 2-wheel scooter",3.14,'xx',1,1.1)`,
		`ALTER TABLE products DROP COLUMN add_column1, DROP COLUMN add_column3`,
		`INSERT INTO products VALUES (146,"scooter","Small 2-wheel scooter",3.14,1)`,
		`UPDATE products SET name = 'dailai' WHERE id > 143`,
	}
	changeColumns = []string{
		`ALTER TABLE products CHANGE add_column2 add_column int default 1 not null`,
		`DELETE FROM products WHERE id < 104`,
		`INSERT INTO products VALUES (155,"scooter","Small 2-wheel scooter",3.14,1), (156,"car battery","12V car battery",8.1,2)`,
	}
	modifyColumns = []string{
		`ALTER TABLE products MODIFY name longtext null`,
		`INSERT INTO products VALUES (164,NULL,"Small 2-wheel scooter",3.14,1)`,
	}
)

// target is a sink table of the test: its Jdbc block, its columns and its rows.
type target struct {
	block   string
	columns func(t *testing.T) string
	rows    func(t *testing.T) string
}

// descQuery is SeaTunnel's check of the tables' DESC: each column's name, type,
// nullability and default.
const descQuery = "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '%s' ORDER BY ORDINAL_POSITION"

// mysqlTarget is SeaTunnel's sink table on the MariaDB test server, written by two writers
// the rows are hashed to by id.
func mysqlTarget(t *testing.T, dsn string) target {
	db, mc := mysqlDatabase(t, dsn, "sc_sink_")
	mustExec(t, db, strings.Replace(productsTable, "products", "sink", 1))
	return target{
		block: fmt.Sprintf(`url = "jdbc:mysql://%s/%s"
    user = %q
    password = %q
    generate_sink_sql = true
    database = %s
    table = sink
    primary_keys = ["id"]
    parallelism = 2
    partition_by = [id]`, mc.Addr, mc.DBName, mc.User, mc.Passwd, mc.DBName),
		columns: func(t *testing.T) string { return sqltest.Rows(t, db, fmt.Sprintf(descQuery, "sink")) },
		rows:    func(t *testing.T) string { return sqltest.Rows(t, db, "SELECT * FROM sink ORDER BY id") },
	}
}

// pgTarget is a table of a schema of its own in the PostgreSQL test database, written
// exactly once by one writer fused with the source.
func pgTarget(t *testing.T, url string) target {
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	suffix := make([]byte, 3)
	_, _ = crand.Read(suffix)
	schema := "sc_" + hex.EncodeToString(suffix)
	if _, err := conn.Exec(context.Background(), fmt.Sprintf(`CREATE SCHEMA %[1]s; CREATE TABLE %[1]s.sink (id integer PRIMARY KEY,
 name varchar(255) NOT NULL DEFAULT 'SeaTunnel', description varchar(512), weight real)`, schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(context.Background())
	})
	cfg, _ := pgx.ParseConfig(url)
	return target{
		block: fmt.Sprintf(`url = "jdbc:postgresql://%s:%d/%s"
    user = %q
    password = %q
    generate_sink_sql = true
    database = %s
    table = "%s.sink"
    primary_keys = ["id"]
    is_exactly_once = true`, cfg.Host, cfg.Port, cfg.Database, cfg.User, cfg.Password, cfg.Database, schema),
		columns: func(t *testing.T) string {
			return sqltest.PgRows(t, conn, "SELECT column_name FROM information_schema.columns WHERE table_schema = '"+schema+"' AND table_name = 'sink' ORDER BY ordinal_position")
		},
		rows: func(t *testing.T) string { return sqltest.PgRows(t, conn, "SELECT * FROM "+schema+".sink ORDER BY id") },
	}
}

// reports keeps what the runners report: each task's last state and the acknowledgements of
// every checkpoint.
type reports struct {
	mu     sync.Mutex
	states map[string]contract.TaskStatus // by epoch and task
	acks   map[int64][]contract.TaskAck
}

func (r *reports) Report(_ context.Context, _ contract.ReportTo, rep contract.TaskReport) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range rep.Tasks {
		r.states[fmt.Sprintf("%d/%s", rep.Epoch, s.Task)] = s
	}
	if rep.Checkpoint != nil {
		r.acks[rep.Checkpoint.ID] = append(r.acks[rep.Checkpoint.ID], rep.Checkpoint.Tasks...)
	}
	return nil
}

// failed is the error of a task of the epoch that failed, "" while none did.
func (r *reports) failed(epoch int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, s := range r.states {
		if strings.HasPrefix(k, fmt.Sprintf("%d/", epoch)) && s.State == contract.TaskFailed {
			return k + ": " + s.Error
		}
	}
	return ""
}

// ended reports whether every task of the epoch ended.
func (r *reports) ended(epoch, tasks int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for k, s := range r.states {
		if strings.HasPrefix(k, fmt.Sprintf("%d/", epoch)) && s.State.Terminal() {
			n++
		}
	}
	return n == tasks
}

func (r *reports) acked(id int64, tasks int) []contract.TaskAck {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.acks[id]) == tasks {
		return r.acks[id]
	}
	return nil
}

// cdcJob is a MySQL-CDC → Jdbc job deployed on two runners: the source's task group on the
// first, the sink's on the second when it is a group of its own (the exchange between them
// is a real one).
type cdcJob struct {
	t       *testing.T
	text    string
	rep     *reports
	store   checkpointstore.Store
	runners [2]*taskrunner.Runner
	addr    string
	tasks   int
	next    int64 // the next checkpoint's id
}

func newCDCJob(t *testing.T, text string) *cdcJob {
	store := tempStore(t)
	j := &cdcJob{t: t, text: text, rep: &reports{states: map[string]contract.TaskStatus{}, acks: map[int64][]contract.TaskAck{}}, store: store, next: 1}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := exchange.NewServer(nil)
	go srv.Serve(lis)
	cli := exchange.NewClient(nil)
	j.addr = lis.Addr().String()
	j.runners[0] = taskrunner.New(taskrunner.Config{ID: "a", Slots: 8, Store: store, Client: cli, Server: exchange.NewServer(nil), Address: "unused"}, j.rep)
	j.runners[1] = taskrunner.New(taskrunner.Config{ID: "b", Slots: 8, Store: store, Client: cli, Server: srv, Address: j.addr}, j.rep)
	t.Cleanup(func() {
		for _, r := range j.runners {
			r.Close()
		}
		srv.Stop()
		cli.Close()
	})
	return j
}

// deploy plans the job (its source reads the server's columns as they are now) and starts
// epoch, from a checkpoint's states when restore is set.
func (j *cdcJob) deploy(epoch int, restore *contract.Restore) {
	t := j.t
	planned := firstPipeline(t, j.text, connector.Job{ID: 7, Name: "schema", Mode: connector.Streaming})
	p := planned.Pipeline
	var place []contract.TaskPlacement
	here := [2][]contract.TaskID{}
	for gi, g := range p.TaskGroups {
		on := min(gi, 1)
		for i := 0; i < g.Parallelism; i++ {
			id := contract.TaskID{Group: g.ID, Subtask: i}
			here[on] = append(here[on], id)
			addr := "unused"
			if on == 1 {
				addr = j.addr
			}
			place = append(place, contract.TaskPlacement{Task: id, Runner: j.runners[on].ID(), Address: addr})
		}
	}
	j.tasks = len(here[0]) + len(here[1])
	for on, tasks := range here {
		if len(tasks) == 0 {
			continue
		}
		d := planned
		d.Epoch, d.Tasks, d.Placement, d.Restore = epoch, tasks, place, restore
		if err := j.runners[on].Deploy(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// until waits for cond, failing at once when a task of the epoch fails.
func (j *cdcJob) until(epoch int, what string, cond func() bool) {
	j.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if f := j.rep.failed(epoch); f != "" {
			j.t.Fatalf("%s: a task failed: %s", what, f)
		}
		if time.Now().After(deadline) {
			j.t.Fatalf("%s: not within 90 s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkpoint takes the epoch's next checkpoint, commits it as the pipeline would once it is
// complete, and returns the restore of it.
func (j *cdcJob) checkpoint(epoch int) *contract.Restore {
	j.t.Helper()
	id := j.next
	j.next++
	if err := j.runners[0].Trigger(contract.TriggerRequest{JobID: 7, Pipeline: 1, Epoch: epoch, CheckpointID: id, Completed: id - 1}); err != nil {
		j.t.Fatal(err)
	}
	var acks []contract.TaskAck
	j.until(epoch, fmt.Sprintf("checkpoint %d", id), func() bool { acks = j.rep.acked(id, j.tasks); return acks != nil })
	r := &contract.Restore{Checkpoint: id, States: map[string]string{}}
	var infos [][]byte
	for _, a := range acks {
		r.States[a.Task.String()] = a.StateKey
		for _, c := range a.Commits {
			infos = append(infos, c.Info)
		}
	}
	j.commit(id, infos)
	return r
}

// commit runs the sink's committer with a checkpoint's commit infos, as the pipeline does
// once the checkpoint is complete.
func (j *cdcJob) commit(id int64, infos [][]byte) {
	t := j.t
	if len(infos) == 0 {
		return
	}
	s := sinkOf(t, firstPipeline(t, j.text, connector.Job{ID: 7, Name: "schema", Mode: connector.Streaming}))
	com, err := s.CreateCommitter()
	if err != nil || com == nil {
		t.Fatalf("committer: %v", err)
	}
	if err := com.Commit(context.Background(), connector.CommitRequest{CheckpointID: id, Infos: infos}); err != nil {
		t.Fatal(err)
	}
}

// cancel stops the epoch's tasks, as a failure does, and waits for them to end.
func (j *cdcJob) cancel(epoch int) {
	for _, r := range j.runners {
		r.Cancel(contract.CancelRequest{JobID: 7, Pipeline: 1, Epoch: epoch})
	}
	j.until(epoch, "the cancel", func() bool { return j.rep.ended(epoch, j.tasks) })
}

func TestSchemaChangesMySQLCDCToJdbc(t *testing.T) {
	mysqlDSN, pgURL := schemaEnvs(t)
	for _, c := range []struct {
		name   string
		target func(t *testing.T) target
		// desc says whether the target's columns read as the source's: a MySQL target
		// takes the source's types and defaults, PostgreSQL its own
		desc bool
	}{
		{"MySQL, hashed over an exchange to two writers", func(t *testing.T) target { return mysqlTarget(t, mysqlDSN) }, true},
		{"PostgreSQL, exactly once, fused", func(t *testing.T) target { return pgTarget(t, pgURL) }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, mc := mysqlDatabase(t, mysqlDSN, "sc_src_")
			mustExec(t, src, productsTable, productsRows)
			tgt := c.target(t)
			text := fmt.Sprintf(`env { job.mode = STREAMING, parallelism = 1 }
source {
  MySQL-CDC {
    base-url = "jdbc:mysql://%s/%s"
    username = %q
    password = %q
    table-names = ["%s.products"]
    server-id = %d
    schema-changes.enabled = true
  }
}
sink {
  Jdbc {
    %s
  }
}`, mc.Addr, mc.DBName, mc.User, mc.Passwd, mc.DBName, 6500+rand.IntN(1000), tgt.block)
			job := newCDCJob(t, text)
			sourceRows := func() string { return sqltest.Rows(t, src, "SELECT * FROM products ORDER BY id") }
			equal := func(epoch int, what string) {
				t.Helper()
				last := time.Now()
				job.until(epoch, what, func() bool {
					// the writers flush (and with is_exactly_once commit) at checkpoints,
					// taken every second as a job's interval would
					if time.Since(last) > time.Second {
						job.checkpoint(epoch)
						last = time.Now()
					}
					if c.desc && sqltest.Rows(t, src, fmt.Sprintf(descQuery, "products")) != tgt.columns(t) {
						return false
					}
					return tgt.rows(t) == sourceRows()
				})
			}
			job.deploy(1, nil)
			equal(1, "the snapshot")
			mustExec(t, src, addColumns...)
			equal(1, "SeaTunnel's add_columns")
			restore := job.checkpoint(1)
			mustExec(t, src, dropColumns...)
			mustExec(t, src, changeColumns...)
			equal(1, "SeaTunnel's drop_columns and change_columns")

			// a failure: the job starts again from checkpoint 1, before the DROP and the
			// CHANGE, which the target has already; the server's table is as they left it
			job.cancel(1)
			job.deploy(2, restore)
			mustExec(t, src, modifyColumns...)
			equal(2, "SeaTunnel's modify_columns, after the restore")
			if got, want := tgt.columns(t), "(id) (name) (description) (weight) (add_column)"; !c.desc && got != want {
				t.Fatalf("target columns %s, want %s", got, want)
			}
			if f := job.rep.failed(2); f != "" {
				t.Fatalf("a task failed: %s", f)
			}
		})
	}
}
