// Package pgwire holds what Strait's PostgreSQL connectors share: the connection settings of
// a PostgreSQL JDBC url, the mapping of PostgreSQL types to SeaTunnel types (as SeaTunnel's
// PostgresTypeConverter does it), decoders of PostgreSQL's wire formats into row values,
// catalog lookups (a table's columns, primary key and indexes) and the even cutting of an
// integer key range into splits.
package pgwire
