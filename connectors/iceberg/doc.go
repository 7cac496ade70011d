// Package iceberg is SeaTunnel's Iceberg connector on Apache iceberg-go: a Hadoop catalog
// (a warehouse folder on the local disk or on S3) or a REST catalog.
//
// The sink turns rows into Parquet data files in the table's data folder and commits them
// exactly once per checkpoint: each writer returns the data files it wrote since the last
// checkpoint as its commit info (Iceberg's manifest entry encoding), and the committer adds
// every writer's files in one snapshot, on main or iceberg.table.commit-branch, whose summary
// names the job (strait.job-id), the checkpoint (strait.checkpoint-id) and the writers'
// transactions (strait.transactions). A commit tried again reads the branch's history first
// and adds no transaction that is there; an abort deletes the files of transactions that will
// never be committed. The save modes create the table from the input's columns (partitioned by
// iceberg.table.partition-keys), recreate it, or delete its rows, before the job first runs.
// Without upsert mode the sink appends INSERT rows and refuses change rows; with it, each
// writer keeps a key's last change of a checkpoint and writes an equality delete file of the
// keys changed beside a data file of the rows that stand, committed in one row delta. With
// schema evolution the sink also follows the schema changes a change source passes on,
// evolving the table's schema (schemachange.go).
//
// The source reads a table's snapshot (the current one, or use_snapshot_id /
// use_snapshot_timestamp), one split per data file handed to the readers in turn, with the
// table's deletes applied, as rows of the declared schema or of the table's own columns.
package iceberg
