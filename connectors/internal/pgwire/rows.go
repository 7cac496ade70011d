package pgwire

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/strait-dev/strait/row"
)

// Rows streams the result of one statement into batches: rows stay on the server's side of
// the connection until Read asks for them, so memory is bounded by a batch, and each value
// is decoded straight from the wire into the batch.
type Rows struct {
	rr   *pgconn.ResultReader
	cols []Column
}

// Query runs sql on conn, asking for each column in its wire format, and checks that the
// result has exactly the columns cols (names and types): a table changed since the job
// started is an error, not a row read wrongly. After an error the result may still be
// streaming: close the connection rather than use it again.
func Query(ctx context.Context, conn *pgconn.PgConn, sql string, cols []Column) (*Rows, error) {
	formats := make([]int16, len(cols))
	for i := range cols {
		formats[i] = cols[i].Format
	}
	rr := conn.ExecParams(ctx, sql, nil, nil, nil, formats)
	fields := rr.FieldDescriptions()
	if fields == nil {
		_, err := rr.Close()
		if err == nil {
			err = errors.New("the statement returned no rows")
		}
		return nil, errors.New(ErrorText(err))
	}
	r := &Rows{rr: rr, cols: cols}
	if len(fields) != len(cols) {
		return nil, fmt.Errorf("the statement returns %d columns, %d when the job started: restart the job to read the new schema", len(fields), len(cols))
	}
	for i, f := range fields {
		if c := &cols[i]; f.Name != c.Name || f.DataTypeOID != c.OID || f.TypeModifier != c.Typmod {
			return nil, fmt.Errorf("column %q changed since the job started (type %d modifier %d, was %q type %d modifier %d): restart the job to read the new schema",
				f.Name, f.DataTypeOID, f.TypeModifier, c.Name, c.OID, c.Typmod)
		}
	}
	return r, nil
}

// Read appends the result's rows to out, as INSERT rows of table, until out is full or the
// result ends (done). dec.Batch must be out.
func (r *Rows) Read(out *row.Batch, table string, dec *Decoder) (done bool, err error) {
	width := len(r.cols)
	for !out.Full() {
		if !r.rr.NextRow() {
			_, err := r.rr.Close()
			r.rr = nil
			if err != nil {
				return true, errors.New(ErrorText(err))
			}
			return true, nil
		}
		vals := r.rr.Values()
		if len(vals) != width {
			return false, fmt.Errorf("a row of %d values, %d expected", len(vals), width)
		}
		rw := out.Add(row.Insert, table, width)
		for j, b := range vals {
			if b == nil {
				continue // the batch's values start out null
			}
			if err := dec.Decode(&r.cols[j], b, &rw.Fields[j]); err != nil {
				return false, fmt.Errorf("column %q: %w", r.cols[j].Name, err)
			}
		}
	}
	return false, nil
}
