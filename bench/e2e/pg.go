package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// The PostgreSQL comparison: a PostgreSQL → PostgreSQL job of bigint, text, double and
// timestamptz rows at SeaTunnel's defaults (batch_size 1000, auto-commit) against a bare pgx
// loop that streams the same query's typed rows into CopyFrom, in the same run; and the Jdbc
// source read with partition_column in two splits against one.

var (
	pgRows = flag.Int("pg-rows", 5_000_000, "rows for the PostgreSQL comparison (0 skips it): at a million the job's fixed costs (deploying, the last checkpoint) are a tenth of its time")
	pgRuns = flag.Int("pg-runs", 3, "runs of each PostgreSQL measurement, the median taken")
)

const (
	pgSource = "bench_pg_src"
	pgTarget = "bench_pg_dst"
	pgQuery  = "select id, name, score, created from " + pgSource
)

func pgURL() string {
	if u := os.Getenv("STRAIT_TEST_POSTGRES"); u != "" {
		return u
	}
	return "postgres://test:test@127.0.0.1:5432/test?sslmode=disable"
}

// pgJobSource reads the source table; %s is the source's extra options.
const pgJobSource = `source { Jdbc { plugin_output = "src", url = "jdbc:postgresql://%s/%s", driver = "org.postgresql.Driver",
  user = %q, password = %q, query = "` + pgQuery + `" %s } }
`

// pgSinks are the sink blocks compared: SeaTunnel's defaults (batch_size 1000) with plain
// INSERTs, COPY, and exactly-once prepared transactions.
var pgSinks = []struct{ name, env, options string }{
	{"plain insert", "", `generate_sink_sql = true, database = "test", table = "public.` + pgTarget + `"`},
	{"use_copy_statement", "", `generate_sink_sql = true, use_copy_statement = true, database = "test", table = "public.` + pgTarget + `"`},
	{"is_exactly_once", ", checkpoint.interval = 10000", `generate_sink_sql = true, database = "test", table = "public.` + pgTarget + `", is_exactly_once = true, xa_data_source_class_name = "org.postgresql.xa.PGXADataSource"`},
}

func pgBench(bin, dir string, procs int) {
	rows := *pgRows
	if rows <= 0 {
		return
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgURL())
	if err != nil {
		fmt.Printf("PostgreSQL: not measured (%v)\n", err)
		return
	}
	defer conn.Close(ctx)
	if err := pgFill(ctx, conn, rows); err != nil {
		fail(fmt.Errorf("postgres: fill %s: %w", pgSource, err))
	}
	cc := conn.Config()
	host := fmt.Sprintf("%s:%d", cc.Host, cc.Port)
	fmt.Printf("PostgreSQL -> PostgreSQL, %d rows (bigint, text, double, timestamptz), batch_size 1000, GOMAXPROCS=%d (median of %d runs):\n", rows, procs, *pgRuns)
	var anchorT []float64
	var anchorRSS int64
	// the same transactions as the auto-commit sinks, with pgx alone (bench/anchors pgbatch.go)
	var pipeT, copyBatchT []float64
	sinkT := make([][]float64, len(pgSinks))
	sinkWall := make([][]float64, len(pgSinks))
	sinkRSS := make([]int64, len(pgSinks))
	for range *pgRuns {
		pgTruncate(ctx, conn)
		s, rss := runAnchor("pgcopy", procs, pgURL(), pgQuery, pgTarget)
		anchorT, anchorRSS = append(anchorT, s), max(anchorRSS, rss)
		pgCheck(ctx, conn, pgTarget, rows, "pgx CopyFrom")
		pgTruncate(ctx, conn)
		s, _ = runAnchor("pgpipe", procs, pgURL(), pgQuery, pgTarget, "1000")
		pipeT = append(pipeT, s)
		pgCheck(ctx, conn, pgTarget, rows, "pgx pipeline")
		pgTruncate(ctx, conn)
		s, _ = runAnchor("pgcopybatch", procs, pgURL(), pgQuery, pgTarget, "1000")
		copyBatchT = append(copyBatchT, s)
		pgCheck(ctx, conn, pgTarget, rows, "pgx CopyFrom per batch")
		for i, s := range pgSinks {
			r := pgSinkRun(ctx, conn, bin, dir, host, procs, rows, i, s.env, s.options, 1000, s.name)
			sinkT[i], sinkWall[i], sinkRSS[i] = append(sinkT[i], r.jobSecs), append(sinkWall[i], r.wall), max(sinkRSS[i], r.maxRSSKB/1024)
		}
	}
	anchor := median(anchorT)
	for i, s := range pgSinks {
		wall := median(sinkWall[i])
		results.add(comparison{Section: "postgres", Name: "Jdbc -> Jdbc, " + s.name, Rows: rows, Secs: median(sinkT[i]), PeakRSSMB: sinkRSS[i],
			Anchor: "pgx query -> CopyFrom", AnchorSecs: anchor, AnchorPeakRSSMB: anchorRSS, Target: "≥ 0.90, RSS < 150 MB", Runs: *pgRuns,
			Note: fmt.Sprintf("job time; whole process %.2f s, ratio %.2f end to end", wall, anchor/wall)})
	}
	// the auto-commit paths against pgx doing the same transactions of 1,000 rows
	same := []struct {
		sink   int
		anchor string
		secs   []float64
	}{
		{0, "pgx pipeline: BEGIN, INSERT ... unnest, COMMIT per 1000 rows, 2 in flight", pipeT},
		{1, "pgx: a transaction of one CopyFrom per 1000 rows", copyBatchT},
	}
	for _, a := range same {
		results.add(comparison{Section: "postgres", Name: "Jdbc -> Jdbc, " + pgSinks[a.sink].name + " (same transactions)", Rows: rows,
			Secs: median(sinkT[a.sink]), Anchor: a.anchor, AnchorSecs: median(a.secs), Target: "≥ 0.95", Runs: *pgRuns,
			Note: "job time; a transaction per flush of 1,000 rows on both sides"})
	}
	pgBatchSizes(ctx, conn, bin, dir, host, procs, rows)
	pgPartitions(bin, dir, host, cc.Database, cc.User, cc.Password, rows)
}

// pgSinkRun runs the job of sink block i of pgSinks (env and options) at a batch size into
// the emptied target table, and checks that it holds every row once.
func pgSinkRun(ctx context.Context, conn *pgx.Conn, bin, dir, host string, procs, rows, i int, env, options string, batch int, what string) result {
	cc := conn.Config()
	pgTruncate(ctx, conn)
	job := filepath.Join(dir, fmt.Sprintf("pg-%d-%d.conf", i, batch))
	text := fmt.Sprintf("env { job.mode = BATCH, parallelism = 1 %s }\n", env) +
		fmt.Sprintf(pgJobSource, host, cc.Database, cc.User, cc.Password, "") +
		fmt.Sprintf("sink { Jdbc { plugin_input = \"src\", url = \"jdbc:postgresql://%s/%s\", user = %q, password = %q, batch_size = %d, %s } }\n",
			host, cc.Database, cc.User, cc.Password, batch, options)
	writeFile(job, text)
	r := runJob(bin, job, procs)
	pgCheck(ctx, conn, pgTarget, rows, fmt.Sprintf("%s at batch_size %d", what, batch))
	return r
}

// pgBatchSizes compares use_copy_statement with the plain insert at batch sizes beside
// SeaTunnel's default, alternating the two: the sink writes each flush in whichever form
// the server applies faster, so COPY is never the slower choice.
func pgBatchSizes(ctx context.Context, conn *pgx.Conn, bin, dir, host string, procs, rows int) {
	for _, batch := range []int{200, 5000, 50000} {
		var plain, copyT []float64
		for run := range *pgRuns {
			// each goes first in every other run: the job after a truncate of the other's
			// rows runs on a table the server is still cleaning up
			for k := range 2 {
				i := (run + k) % 2
				r := pgSinkRun(ctx, conn, bin, dir, host, procs, rows, i, "", pgSinks[i].options, batch, pgSinks[i].name)
				if i == 0 {
					plain = append(plain, r.jobSecs)
				} else {
					copyT = append(copyT, r.jobSecs)
				}
			}
		}
		results.add(comparison{Section: "postgres", Name: fmt.Sprintf("Jdbc -> Jdbc, use_copy_statement, batch_size %d", batch), Rows: rows,
			Secs: median(copyT), Anchor: "the plain insert at the same batch_size", AnchorSecs: median(plain), Target: "≥ 0.95", Runs: *pgRuns,
			Note: "job time; COPY at least as fast as the insert at every batch size"})
	}
}

// pgPartitions reads the source table with partition_column in two splits on two cores and
// in one split, into a Console sink that prints nothing.
func pgPartitions(bin, dir, host, db, user, password string, rows int) {
	var one, two []float64
	for range *pgRuns {
		for _, n := range []int{1, 2} {
			job := filepath.Join(dir, fmt.Sprintf("pg-split-%d.conf", n))
			text := fmt.Sprintf("env { job.mode = BATCH, parallelism = %d }\n", n) +
				fmt.Sprintf(pgJobSource, host, db, user, password, fmt.Sprintf(`, partition_column = "id", partition_num = %d`, n)) +
				"sink { Console { plugin_input = \"src\", log.print.data = false } }\n"
			writeFile(job, text)
			r := runJob(bin, job, 2)
			if n == 1 {
				one = append(one, r.jobSecs)
			} else {
				two = append(two, r.jobSecs)
			}
		}
	}
	results.add(comparison{Section: "postgres", Name: "Jdbc source, partition_column, 2 splits", Rows: rows, Secs: median(two),
		Anchor: "1 split", AnchorSecs: median(one), Target: "≥ 1.8", Runs: *pgRuns, Note: "GOMAXPROCS=2; the server shares the 2 cores"})
}

// pgFill makes the source table with rows rows, unless it has them already.
func pgFill(ctx context.Context, conn *pgx.Conn, rows int) error {
	var have int
	if err := conn.QueryRow(ctx, "select count(*) from "+pgSource).Scan(&have); err == nil && have == rows {
		return nil
	}
	for _, q := range []string{
		"drop table if exists " + pgSource,
		"create table " + pgSource + " (id bigint primary key, name text, score double precision, created timestamptz)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	vals := make([]any, 4)
	i := 0
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if i == rows {
			return nil, nil
		}
		vals[0], vals[1], vals[2], vals[3] = int64(i), fmt.Sprintf("name-%07d", i), float64(i%1000)+0.5, base.Add(time.Duration(i)*time.Second)
		i++
		return vals, nil
	})
	_, err := conn.CopyFrom(ctx, pgx.Identifier{pgSource}, []string{"id", "name", "score", "created"}, src)
	return err
}

// pgTruncate empties the target table (creating it the first time).
func pgTruncate(ctx context.Context, conn *pgx.Conn) {
	pgExec(ctx, conn, "create table if not exists "+pgTarget+" (id bigint, name text, score double precision, created timestamptz)",
		"truncate "+pgTarget)
}

// pgCheck fails the benchmark unless table has every row once.
func pgCheck(ctx context.Context, conn *pgx.Conn, table string, rows int, what string) {
	var n, distinct int
	if err := conn.QueryRow(ctx, "select count(*), count(distinct id) from "+table).Scan(&n, &distinct); err != nil {
		fail(fmt.Errorf("postgres: count %s after %s: %w", table, what, err))
	}
	if n != rows || distinct != rows {
		fail(fmt.Errorf("postgres: %s wrote %d rows (%d distinct ids) into %s, want %d", what, n, distinct, table, rows))
	}
}

func writeFile(path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		fail(err)
	}
}
