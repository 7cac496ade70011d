package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// The PostgreSQL sink at auto-commit makes each flush of batch_size rows a transaction of its
// own, as SeaTunnel's does. These anchors do the same transactions with pgx alone, so the sink
// can be held to what the server allows at that transaction size, beside the one long COPY of
// pgcopy:
//
//	pgpipe:      per batch, BEGIN; INSERT ... SELECT unnest($1), ..., unnest($4); COMMIT, each
//	             statement prepared once, in pgx's pipeline mode with two batches in flight
//	             (the sink's plain insert path);
//	pgcopybatch: per batch, one CopyFrom in a transaction of its own, waited for (pgx cannot
//	             pipeline a COPY).

// pgBatchArgs are an anchor's arguments: the url, the query, the target table, the batch size.
func pgBatchArgs(args []string) (url, query, table string, batch int, err error) {
	if len(args) != 4 {
		return "", "", "", 0, fmt.Errorf("want the PostgreSQL url, the query, the target table and the batch size")
	}
	batch, err = strconv.Atoi(args[3])
	if err != nil || batch <= 0 {
		return "", "", "", 0, fmt.Errorf("batch size %q", args[3])
	}
	return args[0], args[1], args[2], batch, nil
}

// pgBatchAnchor reads an anchor's arguments, opens its two connections and runs write.
func pgBatchAnchor(args []string, write func(ctx context.Context, in, out *pgx.Conn, query, table string, batch int) error) error {
	url, query, table, batch, err := pgBatchArgs(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	in, out, err := pgPair(ctx, url)
	if err != nil {
		return err
	}
	defer in.Close(ctx)
	defer out.Close(ctx)
	return write(ctx, in, out, query, table, batch)
}

// pgPair opens the connection the rows are read on and the one they are written on.
func pgPair(ctx context.Context, url string) (in, out *pgx.Conn, err error) {
	if in, err = pgx.Connect(ctx, url); err != nil {
		return nil, nil, err
	}
	if out, err = pgx.Connect(ctx, url); err != nil {
		in.Close(ctx)
		return nil, nil, err
	}
	return in, out, nil
}

// pgBatches reads the query's (id, name, score, created) rows and hands them to flush in
// batches of batch rows.
func pgBatches(ctx context.Context, in *pgx.Conn, query string, batch int,
	flush func(ids []int64, names []string, scores []float64, created []time.Time) error) error {
	rows, err := in.Query(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	ids, names := make([]int64, 0, batch), make([]string, 0, batch)
	scores, created := make([]float64, 0, batch), make([]time.Time, 0, batch)
	for rows.Next() {
		var (
			id    int64
			name  string
			score float64
			at    time.Time
		)
		if err := rows.Scan(&id, &name, &score, &at); err != nil {
			return err
		}
		ids, names, scores, created = append(ids, id), append(names, name), append(scores, score), append(created, at)
		if len(ids) == batch {
			if err := flush(ids, names, scores, created); err != nil {
				return err
			}
			ids, names, scores, created = ids[:0], names[:0], scores[:0], created[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(ids) > 0 {
		return flush(ids, names, scores, created)
	}
	return nil
}

func pgPipe(args []string) error { return pgBatchAnchor(args, pipeBatches) }

// pipeBatches writes the batches with INSERT ... unnest in pgx's pipeline mode.
func pipeBatches(ctx context.Context, in, out *pgx.Conn, query, table string, batch int) error {
	// unnest in the select list: the server reads the arrays element by element, where
	// unnest in FROM would first copy them into a tuple store
	insert := "insert into " + pgx.Identifier{table}.Sanitize() + " (id, name, score, created) " +
		"select unnest($1::int8[]), unnest($2::text[]), unnest($3::float8[]), unnest($4::timestamptz[])"
	m := out.TypeMap()
	for name, sql := range map[string]string{"anchor_begin": "begin", "anchor_insert": insert, "anchor_commit": "commit"} {
		if _, err := out.PgConn().Prepare(ctx, name, sql, nil); err != nil {
			return fmt.Errorf("prepare %s: %w", sql, err)
		}
	}
	p := out.PgConn().StartPipeline(ctx)
	binary := []int16{pgtype.BinaryFormatCode, pgtype.BinaryFormatCode, pgtype.BinaryFormatCode, pgtype.BinaryFormatCode}
	oids := []uint32{pgtype.Int8ArrayOID, pgtype.TextArrayOID, pgtype.Float8ArrayOID, pgtype.TimestamptzArrayOID}
	params := make([][]byte, 4)
	inFlight := 0
	// wait takes one batch's results: BEGIN, the INSERT, COMMIT and its sync point
	wait := func() error {
		for {
			res, err := p.GetResults()
			if err != nil {
				return err
			}
			switch r := res.(type) {
			case *pgconn.ResultReader:
				if _, err := r.Close(); err != nil {
					return err
				}
			case *pgconn.PipelineSync:
				inFlight--
				return nil
			case nil:
				return fmt.Errorf("pipeline: no results while a batch is in flight")
			}
		}
	}
	err := pgBatches(ctx, in, query, batch, func(ids []int64, names []string, scores []float64, created []time.Time) error {
		for i, v := range []any{ids, names, scores, created} {
			var err error
			if params[i], err = m.Encode(oids[i], pgtype.BinaryFormatCode, v, params[i][:0]); err != nil {
				return err
			}
		}
		p.SendQueryPrepared("anchor_begin", nil, nil, nil)
		p.SendQueryPrepared("anchor_insert", params, binary, nil)
		p.SendQueryPrepared("anchor_commit", nil, nil, nil)
		if err := p.Sync(); err != nil {
			return err
		}
		if inFlight++; inFlight > 2 {
			return wait()
		}
		return nil
	})
	for err == nil && inFlight > 0 {
		err = wait()
	}
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	return err
}

func pgCopyBatch(args []string) error { return pgBatchAnchor(args, copyBatches) }

// copyBatches writes each batch with one CopyFrom.
func copyBatches(ctx context.Context, in, out *pgx.Conn, query, table string, batch int) error {
	cols := []string{"id", "name", "score", "created"}
	vals := make([]any, 4)
	return pgBatches(ctx, in, query, batch, func(ids []int64, names []string, scores []float64, created []time.Time) error {
		i := -1
		_, err := out.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
			if i++; i == len(ids) {
				return nil, nil
			}
			vals[0], vals[1], vals[2], vals[3] = ids[i], names[i], scores[i], created[i]
			return vals, nil
		}))
		return err
	})
}
