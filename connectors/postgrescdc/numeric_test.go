package postgrescdc

import (
	"context"
	"encoding/binary"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// wireNumeric builds a numeric's binary form: ndigits, weight, sign, dscale, digits.
func wireNumeric(weight int16, sign uint16, dscale int16, digits ...uint16) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(digits)))
	b = binary.BigEndian.AppendUint16(b, uint16(weight))
	b = binary.BigEndian.AppendUint16(b, sign)
	b = binary.BigEndian.AppendUint16(b, uint16(dscale))
	for _, d := range digits {
		b = binary.BigEndian.AppendUint16(b, d)
	}
	return b
}

func TestDecodeNumeric(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want string // the decimal with its scale, or the error
	}{
		{"500", wireNumeric(0, 0, 0, 500), "500"},
		{"500.00", wireNumeric(0, 0, 2, 500), "500.00"},
		{"1.50", wireNumeric(0, 0, 2, 1, 5000), "1.50"},
		{"zero", wireNumeric(0, 0, 0), "0"},
		{"zero with scale", wireNumeric(0, 0, 3), "0.000"},
		{"-0.001", wireNumeric(-1, 0x4000, 3, 10), "-0.001"},
		{"10000", wireNumeric(1, 0, 0, 1), "10000"},
		{"404.4443", wireNumeric(0, 0, 4, 404, 4443), "404.4443"},
		{"1e-20", wireNumeric(-5, 0, 20, 1), "0.00000000000000000001"},
		{"big", wireNumeric(7, 0x4000, 9, 12, 3456, 7890, 1234, 5678, 9012, 3456, 7890, 1234, 5678),
			"-123456789012345678901234567890.123456780"},
		{"NaN", wireNumeric(0, 0xC000, 0), "numeric NaN cannot be read as a decimal"},
		{"infinity", wireNumeric(0, 0xD000, 0), "numeric infinity cannot be read as a decimal"},
		{"-infinity", wireNumeric(0, 0xF000, 0), "numeric -infinity cannot be read as a decimal"},
		{"short", []byte{0, 1, 0}, "malformed numeric value of 3 bytes"},
		{"digits missing", wireNumeric(0, 0, 0, 1)[:9], "malformed numeric value of 9 bytes"},
		{"negative scale", wireNumeric(0, 0, -1, 1), "malformed numeric value of 10 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := decodeNumeric(tc.b)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = v.String()
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			// the same bytes held in a string (the snapshot's raw value) read the same
			if vs, errs := decodeNumeric(string(tc.b)); (errs == nil) != (err == nil) || (err == nil && vs.String() != got) {
				t.Errorf("from a string: %v, %v", vs, errs)
			}
		})
	}
}

// wireArray builds a one-dimensional numeric[]'s binary form; a nil element is a null.
func wireArray(elems ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, 1700)
	b = binary.BigEndian.AppendUint32(b, uint32(len(elems)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for _, e := range elems {
		if e == nil {
			b = binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(e)))
		b = append(b, e...)
	}
	return b
}

func TestDecodeNumericArray(t *testing.T) {
	empty := binary.BigEndian.AppendUint32(nil, 0)
	empty = binary.BigEndian.AppendUint32(empty, 0)
	empty = binary.BigEndian.AppendUint32(empty, 1700)
	twoDim := binary.BigEndian.AppendUint32(nil, 2)
	twoDim = append(twoDim, make([]byte, 24)...)
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"scales kept", wireArray(wireNumeric(0, 0, 0, 500), nil, wireNumeric(0, 0, 2, 1, 5000)), "[500, null, 1.50]"},
		{"empty", empty, "[]"},
		{"two dimensions", twoDim, "a 2-dimensional array cannot be read as an array of decimals; only one-dimensional arrays can"},
		{"bad element", wireArray(wireNumeric(0, 0xC000, 0)), "element 1: numeric NaN cannot be read as a decimal"},
		{"truncated", wireArray(wireNumeric(0, 0, 0, 500))[:26], "malformed array value of 26 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := row.NewBatch(4)
			defer b.Release()
			var v row.Value
			got := ""
			if err := decodeNumber(numArray, tc.b, &v, b); err != nil {
				got = err.Error()
			} else {
				got = v.String()
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

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
	h.until("the stream", 10*time.Second, func() bool { return h.streamAt >= 0 })
	insert(101)
	inserted := numericTexts(t, db)
	db.exec(t, `UPDATE nums SET nu = nu * 1.0 WHERE id = 101`)
	updated := numericTexts(t, db)["101"]
	if updated[0] != "500.0" {
		t.Fatalf("the updated value is %s in PostgreSQL", updated[0])
	}
	h.until("the changes", 10*time.Second, func() bool { return len(h.rows) == len(values)*2+2 })
	if h.rows[len(h.rows)-1].Kind != row.UpdateAfter {
		t.Fatalf("last row %s", h.rows[len(h.rows)-1].Kind)
	}
	for i, r := range h.rows {
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
