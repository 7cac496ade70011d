// Package parquet is the parquet file format of the file connectors: a reader of parquet
// files (each row group a split of its own, columns matched by name, nested lists, maps and
// groups assembled, values cast to the declared types) and a writer with SeaTunnel's type
// mapping and codecs, on parquet-go. Every file is checked before parquet-go reads it
// (check.go, thrift.go, pages.go): a broken or hostile file is an error naming it, not a
// panic or an allocation the file's counts ask for.
package parquet
