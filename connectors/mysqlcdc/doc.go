// Package mysqlcdc is SeaTunnel's MySQL-CDC source: a snapshot of MySQL or MariaDB tables,
// then the changes of the server's row-based binary log, read as a replica reads it (package
// binlog speaks the replication protocol).
//
// # The snapshot and the switch to the log
//
// The snapshot is read in splits: ranges of the first integer column of the table's primary
// key (about snapshot.split.size rows each), or the whole table in one split. In a BATCH job
// every reader reads splits, each by one SELECT whose rows stream into batches, and the job
// ends.
//
// In a STREAMING job the snapshot is SeaTunnel's incremental snapshot. Reader 0 reads every
// split, one after the other, so that it alone knows what the switch to the log needs. For
// each split it reads the end of the log (the low watermark), SELECTs the split's rows into
// memory by primary key, reads the end of the log again (the high watermark) and, when the
// log grew in between, reads the log from the low to the high watermark and applies the
// changes of the split's rows to what it read: the split is then the rows of its range as
// they were at its high watermark, and is emitted as INSERT rows. The log is then read from
// the earliest high watermark on; a change of a row is emitted only when it comes after the
// high watermark of the split whose range holds the row's key. So no change is lost or
// emitted twice at the switch, whatever was written while the snapshot was read. Once the
// log is past every high watermark, every change is emitted.
//
// A table without a primary key (and none in table-names-config) is one split, read without
// applying changes: its changes are read from the split's low watermark on, so those made
// while it was read may be emitted twice (SeaTunnel's rule for such tables: they are read at
// least once).
//
// # The log
//
// Row events become rows whose table id is database.table: WRITE_ROWS INSERT rows,
// DELETE_ROWS DELETE rows, UPDATE_ROWS an UPDATE_BEFORE and an UPDATE_AFTER row, or, when the
// update changes the primary key, a DELETE of the old row and an INSERT of the new, as
// Debezium emits it. The server must log whole rows (binlog_format ROW, binlog_row_image
// FULL); the source checks both, and log_bin, when it is built. TRUNCATE is not passed on (a
// warning is logged), as SeaTunnel's does not.
//
// # Schema changes
//
// With schema-changes.enabled (or SeaTunnel 2.3.8's debezium.include.schema.changes) an
// ALTER TABLE of a captured table that adds, drops, modifies, changes or renames columns
// (package ddl reads it) changes the columns later row events are decoded with, and is
// passed on as a connector.SchemaChange after the rows before it: a batch ends at a change.
// New columns are mapped as the columns read from the server are (columnOf). Clauses that
// change no rows (indexes, defaults, table options) are followed silently. A statement that
// changes a captured table otherwise (the primary key, a rename or a drop of the table, a
// conversion of its character set, partitions), or any DDL of one without the option, fails
// the job, naming it. With format compatible_debezium_json the records follow the new
// columns and nothing is passed on (the rows keep their three fields). The log split's state
// holds every captured table as it is at the split's position (see State).
//
// stop.mode latest or specific ends the log at a position (the end of the log when the job
// starts, or a file and offset), kept in the split state: the transactions that start
// before it are emitted, and the source, bounded then, ends. With format
// compatible_debezium_json every change is a row of topic, key and value holding the Kafka
// Connect records of Debezium's MySQL connector (debezium.go).
//
// Values of the log and of the snapshot (which the server sends as text, in a session whose
// time zone is UTC) decode to the same Strait values; TIMESTAMP values, instants, become the
// local date and time of server-time-zone; zero dates are NULL; a TIME that is not a time of
// day (negative, or 24 hours or more) fails the job naming the column.
//
// # State
//
// The log split holds the position of the last transaction emitted (file and offset, and
// the GTIDs the server had written by then), or, when a checkpoint falls within a
// transaction, the start of that transaction and how many of its changes were emitted: a
// restore reads the log from there and skips those, so no committed transaction is lost or
// repeated. It also holds the high watermarks the log has not passed yet and the ids of the
// snapshot splits read. A snapshot split being read at a checkpoint is read again after a
// restore, from its beginning. With schema changes it holds the captured tables' columns as
// they are at its position: a restore decodes the events after it with those (the server's
// may have changed since) and passes on each change after the position once.
package mysqlcdc
