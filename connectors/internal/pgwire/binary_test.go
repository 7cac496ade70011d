package pgwire

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// textOf reads the one value of a query in text format, as PostgreSQL prints it.
func textOf(ctx context.Context, pg *pgx.Conn, sql string) (string, error) {
	rr := pg.PgConn().ExecParams(ctx, sql, nil, nil, nil, []int16{TextFormat})
	var s string
	for rr.NextRow() {
		s = string(rr.Values()[0])
	}
	_, err := rr.Close()
	return s, err
}

// TestUseBinary reads values of the types read as strings in binary format and checks
// that their text is what PostgreSQL prints for them.
func TestUseBinary(t *testing.T) {
	dsn := os.Getenv("STRAIT_TEST_POSTGRES")
	if dsn == "" {
		t.Fatal("STRAIT_TEST_POSTGRES is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	if _, err := pg.Exec(ctx, `CREATE TYPE pg_temp.mood AS ENUM ('sad', 'ok', 'very happy')`); err != nil {
		t.Fatal(err)
	}
	exprs := []string{
		`'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid`,
		`'{"k": [1, 2.5, "x"]}'::jsonb`,
		`'{"k": 1}'::json`,
		`'192.168.1.1'::inet`, `'192.168.1.0/24'::inet`, `'10.0.0.0/8'::cidr`, `'10.1.2.3/32'::cidr`,
		`'::1'::inet`, `'::'::inet`, `'2001:db8::1'::inet`, `'2001:db8::/32'::cidr`, `'1::'::inet`,
		`'::ffff:1.2.3.4'::inet`, `'::1.2.3.4'::inet`, `'1:0:0:1:0:0:0:1'::inet`, `'1:0:1:0:1:0:1:0'::inet`,
		`'fe80::1/64'::inet`,
		`'08:00:2b:01:02:03'::macaddr`, `'08:00:2b:01:02:03:04:05'::macaddr8`,
		`'1 year 2 mons 3 days 04:05:06.5'::interval`, `'0'::interval`, `'-1 day +02:00'::interval`,
		`'1 day -02:00:00'::interval`, `'-00:00:01.000001'::interval`, `'3 mons -1 days'::interval`,
		`'-1 year -2 mons'::interval`, `'1 mon'::interval`, `'100 hours 0.25 seconds'::interval`,
		`'-1 mon +1 day -00:00:00.5'::interval`,
		`B'10110'::bit(5)`, `B'1011011101'::varbit`, `''::varbit`,
		`12345::oid`, `'very happy'::pg_temp.mood`,
		`'{sad,"very happy",NULL}'::pg_temp.mood[]`,
		`'{192.168.1.1,::1}'::inet[]`, `'[0:1]={10.0.0.1,10.0.0.2}'::inet[]`,
		`'{{1 day,2 hours},{NULL,-1 mons}}'::interval[]`,
		`'{}'::inet[]`,
		`'(1.5,-2)'::point`, `'[1,5)'::int4range`, `'empty'::int4range`,
		`'((0,0),(1,2))'::box`, `'[(0,0),(1,1)]'::lseg`, `'{1,2,3}'::line`, `'((0,0),(1,1),(2,0))'::path`,
		`'((0,0),(1,1),(2,0))'::polygon`, `'<(1,2),3>'::circle`, `'(1,2)'::tid`, `'[1.5,2.5]'::numrange`, `'(,3]'::int8range`, `'[2020-01-01,)'::daterange`, `'["2020-01-01 10:00","2020-01-02 00:00:00.5")'::tsrange`,
		`'a b'::tsvector`,
		`'abc'::name`, `'x'::"char"`, `'ab'::char(4)`,
	}
	for _, e := range exprs {
		text, err := textOf(ctx, pg, "SELECT "+e)
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		fields, err := DescribeSQL(ctx, pg, "SELECT "+e)
		if err != nil {
			t.Fatal(err)
		}
		c := ColumnOf(fields[0], TypeOptions{UnboundedScale: 10})
		if c.Type.Kind != types.String {
			t.Errorf("%s: type %s", e, c.Type)
			continue
		}
		infos, err := LookupTypes(ctx, pg, []uint32{c.OID})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.UseBinary(infos[c.OID]); err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		rr := pg.PgConn().ExecParams(ctx, "SELECT "+e, nil, nil, nil, []int16{BinaryFormat})
		var b []byte
		for rr.NextRow() {
			b = append([]byte(nil), rr.Values()[0]...)
		}
		if _, err := rr.Close(); err != nil {
			t.Fatal(err)
		}
		d := Decoder{Batch: row.NewBatch(4)}
		var v row.Value
		if err := d.Decode(&c, b, &v); err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		if v.T != types.String || v.S != text {
			t.Errorf("%s: %q, PostgreSQL prints %q", e, v.S, text)
		}
	}
	// types whose binary form is unknown
	if _, err := pg.Exec(ctx, `CREATE TYPE pg_temp.pair AS (a int, b text)`); err != nil {
		t.Fatal(err)
	}
	fields, err := DescribeSQL(ctx, pg, "SELECT ROW(1, 'x')::pg_temp.pair")
	if err != nil {
		t.Fatal(err)
	}
	c := ColumnOf(fields[0], TypeOptions{})
	infos, err := LookupTypes(ctx, pg, []uint32{c.OID})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.UseBinary(infos[c.OID]); err == nil {
		t.Error("a composite type read in binary format")
	}
}
