package postgrescdc

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Numeric values reach the rows as PostgreSQL holds them, scale included, in the snapshot
// and in the stream alike: an unbounded numeric's 500 is 500 (not 500.0000000000), its 0.5
// and 0.50 differ, numeric(10,2)'s 1.5 is 1.50, and the elements of a numeric[] keep theirs.
func TestNumericKeepsScale(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE nums (id int PRIMARY KEY, nu numeric, n2 numeric(10, 2), nn numeric(5, -2), na numeric[]);
ALTER TABLE nums REPLICA IDENTITY FULL;`)
	values := []string{
		`500, 1.5, 12345, '{500,NULL,1.50}'`,
		`500.00, 1, 0, '{}'`,
		`0.5, -0.005, -149, '{0.50}'`,
		`0.50, 99999999.99, 9999949, NULL`,
		`123456789012345678901234567890.123456789012345678, 0, 50, '{1e-20}'`,
		`0.00000000000000000001, NULL, NULL, '{-0.000}'`,
		`-0.000, 0.004, 1, '{1}'`,
		`NULL, NULL, NULL, NULL`,
	}
	insert := func(base int) {
		for i, v := range values {
			db.exec(t, "INSERT INTO nums VALUES ("+strconv.Itoa(base+i)+", "+v+")")
		}
	}
	insert(1)
	src := mustSource(t, db.options([]string{"nums"}, ""), connector.Streaming, 1)
	if got := src.Tables()[0].Columns[1].Type.String(); got != "decimal(38, 10)" {
		t.Errorf("numeric is %s in the catalog", got)
	}
	h := newHarness(t, src, 1, nil, nil)
	h.Until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	insert(101)
	inserted := numericTexts(t, db)
	db.exec(t, `UPDATE nums SET nu = nu * 1.0 WHERE id = 101`)
	updated := numericTexts(t, db)["101"]
	if updated[0] != "500.0" {
		t.Fatalf("the updated value is %s in PostgreSQL", updated[0])
	}
	h.Until("the changes", 10*time.Second, func() bool { return len(h.Rows) == len(values)*2+2 })
	if h.Rows[len(h.Rows)-1].Kind != row.UpdateAfter {
		t.Fatalf("last row %s", h.Rows[len(h.Rows)-1].Kind)
	}
	for i, r := range h.Rows {
		id := r.Fields[0].String()
		want, ok := inserted[id]
		if r.Kind == row.UpdateAfter {
			want = updated
		}
		if !ok {
			t.Fatalf("row %d: id %s is not in the table", i, id)
		}
		for j, name := range []string{"nu", "n2", "nn", "na"} {
			if got := pgText(r.Fields[j+1]); got != want[j] {
				t.Errorf("%s row %s, column %s: %s, PostgreSQL holds %s", r.Kind, id, name, got, want[j])
			}
		}
	}
}

// numericTexts reads the table's values as PostgreSQL prints them, arrays with their elements
// between brackets as rows print them; NULL is "null".
func numericTexts(t *testing.T, db *testDB) map[string][]string {
	t.Helper()
	rows, err := db.conn.Query(context.Background(), `SELECT id::text,
  coalesce(nu::text, 'null'), coalesce(n2::text, 'null'), coalesce(nn::text, 'null'),
  coalesce('[' || array_to_string(na, ', ', 'null') || ']', 'null') FROM nums`, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id string
		vals := make([]string, 4)
		if err := rows.Scan(&id, &vals[0], &vals[1], &vals[2], &vals[3]); err != nil {
			t.Fatal(err)
		}
		out[id] = vals
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pgText renders a value as numericTexts reads PostgreSQL's.
func pgText(v row.Value) string {
	if v.T == types.Null {
		return "null"
	}
	return v.String()
}
