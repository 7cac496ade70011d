// Command anchors holds the bare Go programs make bench compares Strait with: each does a
// comparison's work with the libraries alone, as a process of its own (so its time and peak
// RSS are a whole small process's), and prints its seconds, start-up excluded.
//
//	anchors pgcopy <url> <query> <table>   a pgx query's typed rows streamed into CopyFrom
//	anchors json <in> <out>                JSON lines decoded into typed fields and encoded again
//	anchors jsonmap <in> <out>             the same with the field mapping of the Benthos comparison
//	anchors generate <rows>                rows of random values made and dropped
//	anchors pgpipe <url> <query> <table> <batch>       a transaction of INSERT ... unnest per batch, pipelined
//	anchors pgcopybatch <url> <query> <table> <batch>  a transaction of one CopyFrom per batch
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/bench/internal/subcmd"
)

var anchors = map[string]func(args []string) error{
	"pgcopy":      pgCopy,
	"json":        jsonCopy,
	"jsonmap":     jsonMapCopy,
	"generate":    generate,
	"pgpipe":      pgPipe,
	"pgcopybatch": pgCopyBatch,
}

func main() {
	f := subcmd.Lookup("anchors", "anchor", "pgcopy, pgpipe, pgcopybatch, json, jsonmap or generate", anchors)
	start := time.Now()
	if err := f(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "anchors: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("anchor-secs %.6f\n", time.Since(start).Seconds())
}

// pgCopy streams the query's typed rows into CopyFrom on a second connection.
func pgCopy(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("want the PostgreSQL url, the query and the target table")
	}
	ctx := context.Background()
	in, err := pgx.Connect(ctx, args[0])
	if err != nil {
		return err
	}
	defer in.Close(ctx)
	out, err := pgx.Connect(ctx, args[0])
	if err != nil {
		return err
	}
	defer out.Close(ctx)
	rows, err := in.Query(ctx, args[1])
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		id      int64
		name    string
		score   float64
		created time.Time
		vals    = make([]any, 4)
	)
	src := pgx.CopyFromFunc(func() ([]any, error) {
		if !rows.Next() {
			return nil, rows.Err()
		}
		if err := rows.Scan(&id, &name, &score, &created); err != nil {
			return nil, err
		}
		vals[0], vals[1], vals[2], vals[3] = id, name, score, created
		return vals, nil
	})
	_, err = out.CopyFrom(ctx, pgx.Identifier{args[2]}, []string{"id", "name", "score", "created"}, src)
	return err
}
