package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// The MySQL anchors read a MySQL query's typed rows with go-sql-driver/mysql, streamed, and
// write them with the same drivers Strait's Jdbc connector uses:
//
//	anchors mysql-pg <mysql dsn> <query> <postgres url> <table>   into PostgreSQL with CopyFrom
//	anchors mysql-mysql <mysql dsn> <query> <table>              into MySQL, 1,000 rows per INSERT

func init() {
	anchors["mysql-pg"] = mysqlToPG
	anchors["mysql-mysql"] = mysqlToMySQL
}

// mysqlRows is a streamed MySQL query of (bigint, varchar, double, datetime) rows.
type mysqlRows struct {
	db   *sql.DB
	rows *sql.Rows
	// the current row
	id      int64
	name    string
	score   float64
	created time.Time
}

// openMySQL opens a MySQL database whose times are UTC, as Strait's sessions are.
func openMySQL(dsn string) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg.ParseTime, cfg.Loc = true, time.UTC
	return sql.Open("mysql", cfg.FormatDSN())
}

func openMySQLRows(ctx context.Context, dsn, query string) (*mysqlRows, error) {
	db, err := openMySQL(dsn)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &mysqlRows{db: db, rows: rows}, nil
}

func (r *mysqlRows) next() (bool, error) {
	if !r.rows.Next() {
		return false, r.rows.Err()
	}
	return true, r.rows.Scan(&r.id, &r.name, &r.score, &r.created)
}

func (r *mysqlRows) close() {
	r.rows.Close()
	r.db.Close()
}

func mysqlToPG(args []string) error {
	if len(args) != 4 {
		return fmt.Errorf("want the MySQL dsn, the query, the PostgreSQL url and the target table")
	}
	ctx := context.Background()
	in, err := openMySQLRows(ctx, args[0], args[1])
	if err != nil {
		return err
	}
	defer in.close()
	out, err := pgx.Connect(ctx, args[2])
	if err != nil {
		return err
	}
	defer out.Close(ctx)
	vals := make([]any, 4)
	src := pgx.CopyFromFunc(func() ([]any, error) {
		ok, err := in.next()
		if !ok || err != nil {
			return nil, err
		}
		vals[0], vals[1], vals[2], vals[3] = in.id, in.name, in.score, in.created
		return vals, nil
	})
	_, err = out.CopyFrom(ctx, pgx.Identifier{args[3]}, []string{"id", "name", "score", "created"}, src)
	return err
}

// mysqlToMySQL writes the rows in multi-row INSERTs of 1,000 rows (SeaTunnel's batch_size),
// each committed as it goes (auto-commit), on a second connection.
func mysqlToMySQL(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("want the MySQL dsn, the query and the target table")
	}
	ctx := context.Background()
	in, err := openMySQLRows(ctx, args[0], args[1])
	if err != nil {
		return err
	}
	defer in.close()
	out, err := openMySQL(args[0])
	if err != nil {
		return err
	}
	defer out.Close()
	const batch = 1000
	insert := "insert into " + args[2] + " (id, name, score, created) values " +
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", batch), ",")
	stmt, err := out.PrepareContext(ctx, insert)
	if err != nil {
		return err
	}
	defer stmt.Close()
	vals := make([]any, 0, 4*batch)
	flush := func(n int) error {
		if n == batch {
			_, err := stmt.ExecContext(ctx, vals...)
			return err
		}
		q := "insert into " + args[2] + " (id, name, score, created) values " + strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", n), ",")
		_, err := out.ExecContext(ctx, q, vals...)
		return err
	}
	n := 0
	for {
		ok, err := in.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		vals = append(vals, in.id, in.name, in.score, in.created)
		if n++; n == batch {
			if err := flush(n); err != nil {
				return err
			}
			vals, n = vals[:0], 0
		}
	}
	if n > 0 {
		return flush(n)
	}
	return nil
}
