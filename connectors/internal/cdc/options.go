// Package cdc holds what the change-data-capture sources (MySQL-CDC, Postgres-CDC) share
// of their SeaTunnel options: the settings per captured table, and the tuning of
// SeaTunnel's snapshot splitting that Strait accepts without effect (its snapshot splits
// are even ranges of the first integer column of the primary key: keyrange).
package cdc

import "github.com/strait-dev/strait/config"

// TableConfig is one entry of table-names-config.
type TableConfig struct {
	Table               string   `opt:"table,required" doc:"the table, as table-names names it"`
	PrimaryKeys         []string `opt:"primaryKeys" doc:"its primary key, for a table without one (or instead of its own)"`
	SnapshotSplitColumn string   `opt:"snapshotSplitColumn,noeffect" doc:"the column snapshot splits are ranges of; Strait splits on the first integer column of the primary key"`

	At *config.Options `opt:"."`
}

// Tuning is SeaTunnel's tuning of its connection pool and snapshot splitting.
type Tuning struct {
	PoolSize        int64   `opt:"connection.pool.size,noeffect" default:"20" doc:"connections of SeaTunnel's pool; Strait opens one connection per reader"`
	FactorUpper     float64 `opt:"chunk-key.even-distribution.factor.upper-bound,noeffect" default:"100" doc:"SeaTunnel's tuning of snapshot splits; Strait's are even ranges of the first integer column of the primary key"`
	FactorLower     float64 `opt:"chunk-key.even-distribution.factor.lower-bound,noeffect" default:"0.05" doc:"SeaTunnel's tuning of snapshot splits; Strait's are even ranges of the first integer column of the primary key"`
	SampleThreshold int64   `opt:"sample-sharding.threshold,noeffect" default:"1000" doc:"SeaTunnel's tuning of snapshot splits; Strait's are even ranges of the first integer column of the primary key"`
	InverseRate     int64   `opt:"inverse-sampling.rate,noeffect" default:"1000" doc:"SeaTunnel's tuning of snapshot splits; Strait's are even ranges of the first integer column of the primary key"`
}
