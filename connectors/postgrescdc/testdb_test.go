package postgrescdc

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgtest"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// testDB is a test's own schema in the test database (pgtest.New), and a replication slot
// and publication name of its own.
type testDB struct {
	url      string // base-url: jdbc:postgresql://host:port/database
	user     string
	password string
	database string
	schema   string
	slot     string // also the prefix of the publication, <slot>_publication
	conn     *pgx.Conn
}

// newTestDB skips the test when STRAIT_TEST_POSTGRES is unset. It creates a schema named
// after the test, dropped with CASCADE when the test ends, and drops the test's slot and
// publication then too (a slot left behind keeps the server's log forever).
func newTestDB(t testing.TB) *testDB {
	t.Helper()
	var db *testDB
	pg := pgtest.New(t, "cdc_", 36, func(conn *pgx.Conn) {
		db.conn = conn
		db.dropSlot(t)
		if _, err := conn.Exec(context.Background(), "DROP PUBLICATION IF EXISTS "+pgwire.QuoteIdent(db.slot+"_publication")); err != nil {
			t.Errorf("drop publication: %v", err)
		}
	})
	db = &testDB{url: pg.JDBCURL(nil), user: pg.Config.User, password: pg.Config.Password, database: pg.Config.Database,
		schema: pg.Schema, slot: pg.Schema, conn: pg.Conn}
	return db
}

// dropSlot drops the test's replication slot, ending the connection that streams from it.
func (db *testDB) dropSlot(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for attempt := 0; ; attempt++ {
		_, err := db.conn.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL`, db.slot)
		if err == nil {
			_, err = db.conn.Exec(ctx, `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1`, db.slot)
		}
		if err == nil {
			return
		}
		if attempt == 50 {
			t.Errorf("drop replication slot %s: %v", db.slot, err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exec runs statements in the test's schema.
func (db *testDB) exec(t testing.TB, sql string) {
	t.Helper()
	if _, err := db.conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// table is the name table-names takes for a table of the test's schema.
func (db *testDB) table(name string) string {
	return db.database + "." + db.schema + "." + name
}

// options are the options of a source capturing tables, plus extra lines.
func (db *testDB) options(tables []string, extra string) string {
	var names []string
	for _, n := range tables {
		names = append(names, strconv.Quote(db.table(n)))
	}
	return "base-url = " + strconv.Quote(db.url) + "\nusername = " + strconv.Quote(db.user) + "\npassword = " + strconv.Quote(db.password) +
		"\ndatabase-names = [" + strconv.Quote(db.database) + "]\nschema-names = [" + strconv.Quote(db.schema) + "]" +
		"\ntable-names = [" + strings.Join(names, ", ") + "]\nslot.name = " + strconv.Quote(db.slot) +
		"\ndecoding.plugin.name = \"decoderbufs\"\n" + extra + "\n"
}

// confirmedFlush reads the slot's confirmed_flush_lsn ("" when there is no slot).
func (db *testDB) confirmedFlush(t testing.TB) string {
	t.Helper()
	var lsn *string
	err := db.conn.QueryRow(context.Background(), "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", db.slot).Scan(&lsn)
	if errors.Is(err, pgx.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if lsn == nil {
		return ""
	}
	return *lsn
}
