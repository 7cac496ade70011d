package postgrescdc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// ensurePublication makes sure the publication exists and publishes tables: it creates it
// when it is missing and adds the tables it lacks (unless the configured autocreate mode
// is disabled, when either is an error).
func (s *Source) ensurePublication(ctx context.Context, pg *pgx.Conn, tables []*cdcTable) error {
	var all bool
	err := pg.QueryRow(ctx, "SELECT puballtables FROM pg_catalog.pg_publication WHERE pubname = $1", s.publication).Scan(&all)
	if errors.Is(err, pgx.ErrNoRows) {
		if s.pubMode == pubDisabled {
			return fmt.Errorf("%s: publication %s does not exist, and debezium.publication.autocreate.mode is disabled: create it (CREATE PUBLICATION %s FOR TABLE ...)",
				s.where, s.publication, pgwire.QuoteIdent(s.publication))
		}
		sql := "CREATE PUBLICATION " + pgwire.QuoteIdent(s.publication)
		if s.pubMode == pubAllTables {
			sql += " FOR ALL TABLES"
		} else {
			sql += " FOR TABLE " + quotedTables(tables)
		}
		if _, err := pg.Exec(ctx, sql); err != nil {
			return fmt.Errorf("%s: create publication %s: %s", s.where, s.publication, pgwire.ErrorText(err))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: look up publication %s: %s", s.where, s.publication, pgwire.ErrorText(err))
	}
	if all {
		return nil
	}
	rows, err := pg.Query(ctx, "SELECT schemaname::text, tablename::text FROM pg_catalog.pg_publication_tables WHERE pubname = $1", s.publication)
	if err != nil {
		return fmt.Errorf("%s: look up publication %s: %s", s.where, s.publication, pgwire.ErrorText(err))
	}
	published := map[pgwire.TableName]bool{}
	for rows.Next() {
		var n pgwire.TableName
		if err := rows.Scan(&n.Schema, &n.Table); err != nil {
			rows.Close()
			return err
		}
		published[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: look up publication %s: %s", s.where, s.publication, pgwire.ErrorText(err))
	}
	var missing []*cdcTable
	for _, t := range tables {
		if !published[t.name] {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if s.pubMode == pubDisabled {
		return fmt.Errorf("%s: publication %s does not publish %s, and debezium.publication.autocreate.mode is disabled: add it (ALTER PUBLICATION %s ADD TABLE ...)",
			s.where, s.publication, missing[0].name, pgwire.QuoteIdent(s.publication))
	}
	if _, err := pg.Exec(ctx, "ALTER PUBLICATION "+pgwire.QuoteIdent(s.publication)+" ADD TABLE "+quotedTables(missing)); err != nil {
		return fmt.Errorf("%s: add tables to publication %s: %s", s.where, s.publication, pgwire.ErrorText(err))
	}
	return nil
}

func quotedTables(tables []*cdcTable) string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name.Quoted()
	}
	return strings.Join(names, ", ")
}

// slotInfo is a row of pg_replication_slots.
type slotInfo struct {
	plugin, slotType, database string
	active                     bool
	pid                        int32
	confirmed                  pglogrepl.LSN
}

// lookupSlot reads the replication slot; nil when there is none.
func (s *Source) lookupSlot(ctx context.Context, pg *pgx.Conn) (*slotInfo, error) {
	var si slotInfo
	var plugin, database *string
	var pid *int32
	var confirmed *string
	err := pg.QueryRow(ctx, `SELECT plugin::text, slot_type, database::text, active, active_pid, confirmed_flush_lsn::text
		FROM pg_catalog.pg_replication_slots WHERE slot_name = $1`, s.slot).
		Scan(&plugin, &si.slotType, &database, &si.active, &pid, &confirmed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: look up replication slot %s: %s", s.where, s.slot, pgwire.ErrorText(err))
	}
	if plugin != nil {
		si.plugin = *plugin
	}
	if database != nil {
		si.database = *database
	}
	if pid != nil {
		si.pid = *pid
	}
	if confirmed != nil {
		if si.confirmed, err = pglogrepl.ParseLSN(*confirmed); err != nil {
			return nil, fmt.Errorf("%s: replication slot %s: bad confirmed_flush_lsn %q", s.where, s.slot, *confirmed)
		}
	}
	return &si, nil
}

// checkSlot checks that an existing slot is one this source can read.
func (s *Source) checkSlot(si *slotInfo) error {
	switch {
	case si.slotType != "logical":
		return fmt.Errorf("%s: replication slot %s is a %s slot; Postgres-CDC needs a logical one: choose another slot.name", s.where, s.slot, si.slotType)
	case si.plugin != "pgoutput":
		return fmt.Errorf("%s: replication slot %s decodes with %s; Postgres-CDC reads slots of the pgoutput plugin: choose another slot.name or drop the slot",
			s.where, s.slot, si.plugin)
	case si.database != s.conn.Database:
		return fmt.Errorf("%s: replication slot %s belongs to database %s, not %s: choose another slot.name", s.where, s.slot, si.database, s.conn.Database)
	}
	return nil
}

func (s *Source) slotInUse(si *slotInfo) error {
	return fmt.Errorf("%s: replication slot %s is in use by another process (PID %d): another job or client reads it; give this job its own slot.name",
		s.where, s.slot, si.pid)
}

// prepareStream makes the publication and the replication slot on a fresh start and
// returns where the change stream starts.
func (s *Source) prepareStream(ctx context.Context, pg *pgx.Conn) (pglogrepl.LSN, error) {
	if err := s.ensurePublication(ctx, pg, s.tables); err != nil {
		return 0, err
	}
	si, err := s.lookupSlot(ctx, pg)
	if err != nil {
		return 0, err
	}
	if si == nil {
		// the slot's consistent point: every transaction committed before it is visible to
		// the snapshot reads that follow, every one committed after it is in the stream
		return s.createSlot(ctx, pg)
	}
	if err := s.checkSlot(si); err != nil {
		return 0, err
	}
	// the connection of a job that just failed may hold the slot for a moment
	for deadline := time.Now().Add(slotBusyWait); si.active; {
		if time.Now().After(deadline) {
			return 0, s.slotInUse(si)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		if si, err = s.lookupSlot(ctx, pg); err != nil {
			return 0, err
		}
		if si == nil {
			return 0, fmt.Errorf("%s: replication slot %s was dropped while the job started; start it again", s.where, s.slot)
		}
	}
	if s.startup == startEarliest {
		return si.confirmed, nil
	}
	return s.currentPosition(ctx, pg)
}

// currentPosition returns a position in the log such that every transaction committed
// before it is visible to the queries that follow: the current end of the log, once every
// transaction that had a transaction id by then has ended.
func (s *Source) currentPosition(ctx context.Context, pg *pgx.Conn) (pglogrepl.LSN, error) {
	var lsn string
	if err := pg.QueryRow(ctx, "SELECT pg_catalog.pg_current_wal_insert_lsn()::text").Scan(&lsn); err != nil {
		return 0, fmt.Errorf("%s: read the position of the log: %s", s.where, pgwire.ErrorText(err))
	}
	pos, err := pglogrepl.ParseLSN(lsn)
	if err != nil {
		return 0, err
	}
	var xid int64
	if err := pg.QueryRow(ctx, "SELECT txid_current()").Scan(&xid); err != nil {
		return 0, fmt.Errorf("%s: read the current transaction id: %s", s.where, pgwire.ErrorText(err))
	}
	for {
		var done bool
		if err := pg.QueryRow(ctx, "SELECT txid_snapshot_xmin(txid_current_snapshot()) > $1", xid).Scan(&done); err != nil {
			return 0, fmt.Errorf("%s: wait for running transactions: %s", s.where, pgwire.ErrorText(err))
		}
		if done {
			return pos, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// slotWaitReport is how long a slot's creation may wait before the source says which
// transactions it waits for.
var slotWaitReport = 10 * time.Second

// createSlot makes the logical replication slot and returns its consistent point. PostgreSQL
// makes the slot only once every transaction that held a transaction id when it began has
// ended, prepared transactions included, in every database of the server: one left prepared
// by a crashed two-phase client stops it for good. While it waits, the source names those
// transactions in its log, and in its error if the wait ends the job.
func (s *Source) createSlot(ctx context.Context, pg *pgx.Conn) (pglogrepl.LSN, error) {
	done := make(chan struct{})
	defer close(done)
	blockers := make(chan string, 1)
	go func() {
		select {
		case <-done:
			return
		case <-time.After(slotWaitReport):
		}
		wait := s.slotBlockers(ctx)
		if wait != "" {
			slog.Warn("Postgres-CDC: the replication slot waits for transactions to end", "slot", s.slot, "waiting for", wait)
		}
		blockers <- wait
	}()
	var lsn string
	err := pg.QueryRow(ctx, "SELECT lsn::text FROM pg_catalog.pg_create_logical_replication_slot($1, 'pgoutput')", s.slot).Scan(&lsn)
	if err != nil {
		msg := fmt.Sprintf("%s: create replication slot %s: %s", s.where, s.slot, pgwire.ErrorText(err))
		select {
		case wait := <-blockers:
			if wait != "" {
				msg += "; PostgreSQL makes a slot once every transaction open when it began has ended, and these had not: " + wait +
					" (end a prepared transaction with COMMIT PREPARED or ROLLBACK PREPARED)"
			}
		default:
		}
		return 0, errors.New(msg)
	}
	return pglogrepl.ParseLSN(lsn)
}

// slotBlockers names, on a connection of its own, the prepared transactions and the sessions
// with an open transaction id that a slot's creation waits for; "" when it cannot tell.
func (s *Source) slotBlockers(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	conn, err := s.connect(ctx)
	if err != nil {
		return ""
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT format('prepared transaction %L in database %s since %s', gid, database, prepared::timestamptz(0))
FROM pg_catalog.pg_prepared_xacts
UNION ALL
SELECT format('session %s of %s in database %s (%s) since %s', pid, usename, datname, coalesce(nullif(application_name, ''), 'no application name'), xact_start::timestamptz(0))
FROM pg_catalog.pg_stat_activity WHERE backend_xid IS NOT NULL AND pid <> pg_catalog.pg_backend_pid()
LIMIT 10`, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return ""
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return ""
	}
	return strings.Join(names, "; ")
}
