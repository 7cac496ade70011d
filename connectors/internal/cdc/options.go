// Package cdc holds what the change-data-capture sources (MySQL-CDC, Postgres-CDC) share:
// of their SeaTunnel options, the settings per captured table, the reading of table-names
// and the tuning of SeaTunnel's snapshot splitting that Strait accepts without effect (its
// snapshot splits are even ranges of the first integer column of the primary key:
// keyrange); and what their splits carry, a snapshot's range or the stream's position.
package cdc

import (
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/config"
)

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

// ParseDuration reads a duration given in milliseconds (30000), or as a duration string
// (30s), the option key's value s.
func ParseDuration(o *config.Options, key, s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, o.Errorf(key, "must not be negative, got %d", n)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(strings.ToLower(s), " ", ""))
	if err != nil || d < 0 {
		return 0, o.Errorf(key, "%q is not a duration (milliseconds, or as 30s)", s)
	}
	return d, nil
}
