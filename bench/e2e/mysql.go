package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// The MySQL comparisons: MySQL → PostgreSQL and MySQL → MySQL of bigint, varchar, double and
// datetime rows through Jdbc at SeaTunnel's defaults (batch_size 1000), each against a bare Go
// loop with the same drivers (bench/anchors mysql-pg, mysql-mysql) in the same run. The CDC
// throughput is BenchmarkCDCThroughput (connectors/mysqlcdc), which make bench runs with the
// Go benchmarks.

var (
	myRows = flag.Int("mysql-rows", 1_000_000, "rows for the MySQL comparisons (0 skips them)")
	myRuns = flag.Int("mysql-runs", 3, "runs of each MySQL measurement, the median taken")
)

const (
	myDB     = "strait_bench"
	mySource = "bench_my_src"
	myTarget = "bench_my_dst"
	myQuery  = "select id, name, score, created from " + mySource
)

// mysqlBench needs STRAIT_TEST_MYSQL (make bench starts MariaDB and sets it).
func mysqlBench(bin, dir string, procs int) {
	rows := *myRows
	dsn := os.Getenv("STRAIT_TEST_MYSQL")
	if rows <= 0 || dsn == "" {
		fmt.Println("MySQL: not measured (STRAIT_TEST_MYSQL is not set; make bench starts MariaDB)")
		return
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		fail(fmt.Errorf("STRAIT_TEST_MYSQL: %w", err))
	}
	cfg.DBName, cfg.ParseTime, cfg.Loc, cfg.MultiStatements = myDB, true, time.UTC, true
	ctx := context.Background()
	db := myFill(ctx, cfg, rows)
	defer db.Close()
	pg, err := pgx.Connect(ctx, pgURL())
	if err != nil {
		fmt.Printf("MySQL -> PostgreSQL: not measured (%v)\n", err)
		return
	}
	defer pg.Close(ctx)
	pc := pg.Config()
	myURL := fmt.Sprintf("jdbc:mysql://%s/%s", cfg.Addr, myDB)
	source := fmt.Sprintf(`source { Jdbc { plugin_output = "src", url = %q, driver = "com.mysql.cj.jdbc.Driver", user = %q, password = %q, query = %q } }
`, myURL, cfg.User, cfg.Passwd, myQuery)
	sinks := []struct {
		name, anchor, sink string
		anchorArgs         []string
		reset              func()
		check              func(what string)
	}{
		{"MySQL -> PostgreSQL", "go-sql-driver query -> pgx CopyFrom", fmt.Sprintf(
			`sink { Jdbc { plugin_input = "src", url = "jdbc:postgresql://%s:%d/%s", user = %q, password = %q, batch_size = 1000, generate_sink_sql = true, database = %q, table = "public.%s" } }`,
			pc.Host, pc.Port, pc.Database, pc.User, pc.Password, pc.Database, myTarget),
			[]string{"mysql-pg", cfg.FormatDSN(), myQuery, pgURL(), myTarget},
			func() {
				pgExec(ctx, pg, "create table if not exists "+myTarget+" (id bigint, name text, score double precision, created timestamptz)", "truncate "+myTarget)
			},
			func(what string) { pgCheck(ctx, pg, myTarget, rows, what) }},
		{"MySQL -> MySQL", "go-sql-driver query -> INSERTs of 1,000 rows", fmt.Sprintf(
			`sink { Jdbc { plugin_input = "src", url = %q, driver = "com.mysql.cj.jdbc.Driver", user = %q, password = %q, batch_size = 1000, generate_sink_sql = true, database = %q, table = %q } }`,
			myURL, cfg.User, cfg.Passwd, myDB, myTarget),
			[]string{"mysql-mysql", cfg.FormatDSN(), myQuery, myTarget},
			func() {
				myExec(ctx, db, "create table if not exists "+myTarget+" (id bigint, name varchar(64), score double, created datetime(6))", "truncate table "+myTarget)
			},
			func(what string) { myCount(ctx, db, myTarget, rows, what) }},
	}
	fmt.Printf("MySQL (MariaDB) sources, %d rows (bigint, varchar, double, datetime), batch_size 1000, GOMAXPROCS=%d (median of %d runs):\n", rows, procs, *myRuns)
	for i, s := range sinks {
		var anchorT, jobT, wall []float64
		var anchorRSS, jobRSS int64
		for range *myRuns {
			s.reset()
			secs, rss := runAnchor(s.anchorArgs[0], procs, s.anchorArgs[1:]...)
			anchorT, anchorRSS = append(anchorT, secs), max(anchorRSS, rss)
			s.check(s.anchor)
			s.reset()
			job := filepath.Join(dir, fmt.Sprintf("mysql-%d.conf", i))
			writeFile(job, "env { job.mode = BATCH, parallelism = 1 }\n"+source+s.sink+"\n")
			r := runJob(bin, job, procs)
			jobT, wall, jobRSS = append(jobT, r.jobSecs), append(wall, r.wall), max(jobRSS, r.maxRSSKB/1024)
			s.check("strait run " + s.name)
		}
		results.add(comparison{Section: "mysql", Name: "Jdbc " + s.name, Rows: rows, Secs: median(jobT), PeakRSSMB: jobRSS,
			Anchor: s.anchor, AnchorSecs: median(anchorT), AnchorPeakRSSMB: anchorRSS, Runs: *myRuns,
			Note: fmt.Sprintf("job time; whole process %.2f s", median(wall))})
	}
}

// myFill makes the benchmark database and its source table with rows rows, unless it has
// them already.
func myFill(ctx context.Context, cfg *mysql.Config, rows int) *sql.DB {
	root := *cfg
	root.DBName = ""
	admin, err := sql.Open("mysql", root.FormatDSN())
	if err != nil {
		fail(err)
	}
	myExec(ctx, admin, "create database if not exists "+myDB)
	admin.Close()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		fail(err)
	}
	var have int
	if db.QueryRowContext(ctx, "select count(*) from "+mySource).Scan(&have) == nil && have == rows {
		return db
	}
	myExec(ctx, db, "drop table if exists "+mySource,
		"create table "+mySource+" (id bigint primary key, name varchar(64), score double, created datetime(6))")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const chunk = 5000
	var b strings.Builder
	for from := 0; from < rows; from += chunk {
		b.Reset()
		b.WriteString("insert into " + mySource + " values ")
		for i := from; i < min(from+chunk, rows); i++ {
			if i > from {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d,'name-%07d',%g,'%s')", i, i, float64(i%1000)+0.5, base.Add(time.Duration(i)*time.Second).Format("2006-01-02 15:04:05"))
		}
		myExec(ctx, db, b.String())
	}
	return db
}

func myExec(ctx context.Context, db *sql.DB, qs ...string) {
	for _, q := range qs {
		if _, err := db.ExecContext(ctx, q); err != nil {
			fail(fmt.Errorf("mysql: %.80s: %w", q, err))
		}
	}
}

func myCount(ctx context.Context, db *sql.DB, table string, rows int, what string) {
	var n, distinct int
	if err := db.QueryRowContext(ctx, "select count(*), count(distinct id) from "+table).Scan(&n, &distinct); err != nil {
		fail(fmt.Errorf("mysql: count %s after %s: %w", table, what, err))
	}
	if n != rows || distinct != rows {
		fail(fmt.Errorf("mysql: %s wrote %d rows (%d distinct ids) into %s, want %d", what, n, distinct, table, rows))
	}
}

func pgExec(ctx context.Context, conn *pgx.Conn, qs ...string) {
	for _, q := range qs {
		if _, err := conn.Exec(ctx, q); err != nil {
			fail(fmt.Errorf("postgres: %s: %w", q, err))
		}
	}
}
