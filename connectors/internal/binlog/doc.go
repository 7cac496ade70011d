// Package binlog speaks MySQL's client/server protocol as far as a replica needs it: the
// connection handshake (mysql_native_password, and MySQL 8's caching_sha2_password with the
// server's RSA key when the connection is not encrypted), simple statements, registering as
// a replica (COM_REGISTER_SLAVE) and reading the binary log from a file and offset
// (COM_BINLOG_DUMP), from a MySQL GTID set (COM_BINLOG_DUMP_GTID) or from a MariaDB GTID
// position (@slave_connect_state).
//
// It decodes the events a row-based log holds: FORMAT_DESCRIPTION, ROTATE, QUERY, XID,
// TABLE_MAP, WRITE/UPDATE/DELETE_ROWS (versions 1 and 2), MySQL's GTID and PREVIOUS_GTIDS,
// MariaDB's GTID, GTID_LIST, BINLOG_CHECKPOINT and ANNOTATE_ROWS, with CRC32 checksums
// checked when the server writes them. Row values of every column type are decoded into
// Value (see there): integers, floats, DECIMAL (as its decimal text), the temporal types in
// both their old and their fractional (DATETIME2, TIME2, TIMESTAMP2) forms, YEAR, BIT,
// ENUM and SET (as their index and bit set), strings and blobs (as bytes), JSON (MySQL's
// binary form turned into JSON text; MariaDB's JSON is a text column) and GEOMETRY (as
// bytes).
//
// Ordinary queries (schemas, snapshots) go through database/sql with go-sql-driver/mysql;
// this package only carries what that driver does not.
package binlog
