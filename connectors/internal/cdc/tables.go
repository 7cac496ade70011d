package cdc

import (
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
)

// TableNames reads table-names, each entry a list of tables separated by commas, into the
// tables to capture, each once in the order first named, and the primary keys
// table-names-config gives them. parse reads a table's name; check, when not nil, may
// refuse a table of table-names (n as written).
func TableNames[N comparable](o *config.Options, tableNames []string, configs []TableConfig, parse func(string) (N, error), check func(n string, t N) error) ([]N, map[N][]string, error) {
	var names []N
	seen := map[N]bool{}
	for _, item := range tableNames {
		for _, n := range strings.Split(item, ",") {
			if n = strings.TrimSpace(n); n == "" {
				continue
			}
			t, err := parse(n)
			if err == nil && check != nil {
				err = check(n, t)
			}
			if err != nil {
				return nil, nil, o.Errorf("table-names", "%v", err)
			}
			if !seen[t] {
				seen[t] = true
				names = append(names, t)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil, o.Errorf("table-names", "names no table")
	}
	pks := map[N][]string{}
	for _, e := range configs {
		t, err := parse(e.Table)
		if err != nil {
			return nil, nil, e.At.Errorf("table", "%v", err)
		}
		if !seen[t] {
			return nil, nil, e.At.Errorf("table", "table %s is not in table-names", e.Table)
		}
		if len(e.PrimaryKeys) > 0 {
			pks[t] = e.PrimaryKeys
		}
	}
	return names, pks, nil
}

// Unchanged checks, at a job's fresh start, that the tables a change source reads now have
// the columns the job was planned with (planned, nil when there is no plan to compare
// with). A table altered in between would be read with columns the rest of the job does not
// know, and the change itself is in the log before the position the source starts from, so
// nothing would pass it on: the job fails, naming the table and its columns then and now.
func Unchanged(where string, planned, now []*catalog.Table) error {
	byID := make(map[string]*catalog.Table, len(planned))
	for _, t := range planned {
		byID[t.ID()] = t
	}
	for _, t := range now {
		p := byID[t.ID()]
		if p == nil {
			continue
		}
		if was, is := p.RowType().String(), t.RowType().String(); was != is {
			return connector.Permanent(fmt.Errorf("%s: table %s changed after the job was planned: its columns were %s and are %s; submit the job again to read it as it is",
				where, t.ID(), was, is))
		}
	}
	return nil
}
