// Package jdbc is SeaTunnel's Jdbc connector for PostgreSQL (on pgx) and MySQL and MariaDB
// (on go-sql-driver/mysql): the options of SeaTunnel's Jdbc source and sink (url, driver,
// user, password, query, table_path, partitioning; generate_sink_sql, primary_keys,
// batch_size, save modes, exactly-once), speaking the databases' protocols directly
// instead of through a JDBC driver.
//
// It is a core and a driver per database, chosen from the url (driver.go). The core holds
// what every database shares: the options (source.go, sink.go), split planning
// (splitplan.go, split.go), the reader (reader.go), the writer's buffer and its reduction
// by key (rowbuf.go), checkpoints, exactly-once and recovery (writer.go, commit.go), save
// modes (setup.go) and schema changes (schemachange.go). A driver is the files of one
// database, pg_*.go and mysql_*.go: its connection, catalog and type mapping, the SQL of
// its splits, how a split is read, how a flush is encoded and sent, its prepared
// transactions and its DDL.
//
// The sink applies a changelog the way SeaTunnel does: rows buffered up to batch_size are
// reduced by primary key (the last change of a key wins, UPDATE_BEFORE is skipped), then
// written on PostgreSQL as one upsert and one delete of arrays per flush (pg_writer.go);
// rows without a key are inserted by one INSERT of arrays or a binary COPY. Flushes are
// pipelined (pg_pipeline.go): sent without waiting, at most two in flight, each its own
// transaction with auto_commit, and a checkpoint waits for all of them. With
// is_exactly_once each checkpoint's writes are a prepared transaction (PREPARE TRANSACTION)
// that the committer commits, idempotently.
//
// On MySQL the rows of a flush are one multi-statement round trip: a DELETE of the deleted
// keys and a multi-row INSERT ... ON DUPLICATE KEY UPDATE, their values as literals; with
// is_exactly_once a checkpoint's writes are an XA transaction (XA START, END, PREPARE; XA
// COMMIT by the committer, XA RECOVER on restore).
//
// The sink follows schema changes (schemachange.go): a writer commits the rows before a
// change, alters its table as the change says unless the table shows it applied, and
// rebuilds its statements; its state keeps its input table as the changes left it.
package jdbc
