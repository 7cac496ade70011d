package cdc

import (
	"strings"

	"github.com/strait-dev/strait/config"
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
