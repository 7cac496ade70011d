// Package postgrescdc is SeaTunnel's Postgres-CDC source: a snapshot of PostgreSQL tables,
// then the stream of their changes, read through logical replication with PostgreSQL's
// built-in pgoutput plugin (whatever decoding.plugin.name says).
//
// # Consistency
//
// On a fresh start the enumerator prepares the stream before anything is read: it creates
// the publication (FOR TABLE the captured tables, or adds the tables an existing one lacks)
// and the logical replication slot, and keeps in its state the slot's consistent point,
// where the stream will start. Every transaction that committed before that point is
// visible to the snapshot queries that follow; every one that committed after it is in the
// stream. (An existing slot is reused: the stream then starts at the current end of the
// log, once the transactions running at that moment have ended, or, with startup.mode
// earliest, where the slot was last confirmed.)
//
// The snapshot is then read in splits: ranges of the table's first integer primary-key
// column (about snapshot.split.size rows each), or the whole table in one split. Readers
// pull them one at a time (RequestSplit); each is read by one plain SELECT and emitted as
// INSERT rows. The stream split goes to reader 0 only after every snapshot split was read:
// when none is left and every reader has asked for more. The stream therefore replays,
// after the snapshot, every change made since the consistent point, including those made
// while the snapshot was read. Some of them are already in the snapshot; since each change
// carries whole rows, a sink that writes by key ends up equal to the source.
//
// # The stream
//
// START_REPLICATION asks pgoutput for proto_version 1, the publication and binary values,
// so the binary decoders of package pgwire apply (types whose binary form is not their text,
// such as interval or inet, are turned into the text PostgreSQL prints). Numeric values,
// in the snapshot as in the stream, keep the scale PostgreSQL stores them with, not the
// scale of the column's catalog type. Relation messages map the stream's relations
// to captured tables by schema and name (changes of other tables are skipped) and columns
// by name: a column added since the job started is left out, one dropped is null. Changes
// become rows whose table id is database.schema.table:
//
//   - INSERT: an INSERT row.
//   - UPDATE: UPDATE_BEFORE with the old row when PostgreSQL sends it (REPLICA IDENTITY
//     FULL), then UPDATE_AFTER. An update of the primary key becomes DELETE of the old row
//     and INSERT of the new, as Debezium emits it, so a sink writing by key drops the old
//     key.
//   - DELETE: a DELETE row with the old row, or with its key columns only (the other
//     columns null) without REPLICA IDENTITY FULL.
//   - TRUNCATE: not passed on (SeaTunnel's Debezium skips truncates too); a warning is
//     logged once per table.
//
// A value PostgreSQL stores out of line (TOAST) and an update leaves unchanged is not sent
// in the new row; it is taken from the old row, which only REPLICA IDENTITY FULL sends.
// Without it such an update fails the job with an error saying so, rather than writing a
// null over the value.
//
// # State
//
// A snapshot split holds no progress: one being read at a checkpoint is read again from its
// beginning after a restore. The stream split holds the commit end of the last transaction
// emitted (every transaction committed before it was emitted), and, when a checkpoint falls
// within a transaction, the commit position of that transaction and how many of its changes
// were emitted. A restore starts streaming there, skips the transactions that committed
// before it and the changes of the partly emitted one that were emitted: no committed
// transaction is lost or repeated. Between transactions the position also follows the
// server's keepalives, so a slot whose tables see no changes does not hold the log back.
//
// A goroutine owns the replication connection: it receives the messages into a buffer the
// reader drains (PollNext never waits more than a few milliseconds), answers keepalive
// requests at once and reports its position every 10 seconds. The position it reports as
// flushed, which lets PostgreSQL drop the log before it, is the one saved by the newest
// completed checkpoint (NotifyCheckpointComplete), so a restore from that checkpoint always
// finds its changes. A restored stream split waits, like a fresh one, until the snapshot
// splits still to be read are read (tables added to table-names since the checkpoint are
// added to the publication and read then).
//
// In a BATCH job the source reads the snapshot only, needs no slot or publication, and
// ends.
package postgrescdc
