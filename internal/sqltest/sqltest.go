// Package sqltest prints what a query of a test database returns, so that a test compares a
// table's rows as one line of text: (1, a, NULL) (2, b, 3.5).
package sqltest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Rows runs query on db and prints its rows, each value as the driver gives its text and
// NULL as NULL; a failed query fails the test.
func Rows(t testing.TB, db *sql.DB, query string) string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var p printer
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		p.row(len(vals), func(i int) (string, bool) { return string(vals[i]), vals[i] != nil })
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return p.String()
}

// PgRows runs query on conn in PostgreSQL's simple protocol and prints its rows, each value
// as fmt prints what pgx decodes and NULL as NULL; a failed query fails the test.
func PgRows(t testing.TB, conn *pgx.Conn, query string) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var p printer
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		p.row(len(vals), func(i int) (string, bool) { return fmt.Sprint(vals[i]), vals[i] != nil })
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return p.String()
}

// printer writes rows as (a, b) separated by spaces.
type printer struct{ strings.Builder }

func (p *printer) row(n int, value func(i int) (string, bool)) {
	if p.Len() > 0 {
		p.WriteByte(' ')
	}
	p.WriteByte('(')
	for i := range n {
		if i > 0 {
			p.WriteString(", ")
		}
		if s, ok := value(i); ok {
			p.WriteString(s)
		} else {
			p.WriteString("NULL")
		}
	}
	p.WriteByte(')')
}
