package taskrunner

import (
	"sync"
	"sync/atomic"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/row"
)

// meter counts the rows and bytes that pass one end of a task (what its source read, or
// what its sink wrote), in all and by table. A batch is counted with one pass over its rows
// and one lock; rows whose table is not set count for the task's only table.
type meter struct {
	rows, bytes atomic.Int64

	defaultTable string // the table of rows that carry none, when the vertex has one

	mu     sync.Mutex
	tables map[string]*[2]int64 // rows, bytes
}

func newMeter(defaultTable string) *meter {
	return &meter{defaultTable: defaultTable, tables: map[string]*[2]int64{}}
}

// count adds a batch. Batches mostly hold one table, so sizes are summed per run of rows of
// the same table and each run is added once.
func (m *meter) count(b *row.Batch) {
	rs := b.Rows
	if len(rs) == 0 {
		return
	}
	var total int64
	m.mu.Lock()
	for i := 0; i < len(rs); {
		table := rs[i].Table
		j, size := i, 0
		for ; j < len(rs) && rs[j].Table == table; j++ {
			size += b.RowSize(j)
		}
		if table == "" {
			table = m.defaultTable
		}
		c := m.tables[table]
		if c == nil {
			c = new([2]int64)
			m.tables[table] = c
		}
		c[0] += int64(j - i)
		c[1] += int64(size)
		total += int64(size)
		i = j
	}
	m.mu.Unlock()
	m.rows.Add(int64(len(rs)))
	m.bytes.Add(total)
}

// addTo writes the meter's counts into c, as read (source side) or written (sink side).
func (m *meter) addTo(c *contract.Counters, read bool) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.tables) > 0 && c.Tables == nil {
		c.Tables = make(map[string]contract.TableCounters, len(m.tables))
	}
	for id, n := range m.tables {
		if id == "" {
			continue
		}
		t := c.Tables[id]
		if read {
			t.RowsRead += n[0]
			t.BytesRead += n[1]
		} else {
			t.RowsWritten += n[0]
			t.BytesWritten += n[1]
		}
		c.Tables[id] = t
	}
	if read {
		c.RowsRead += m.rows.Load()
		c.BytesRead += m.bytes.Load()
	} else {
		c.RowsWritten += m.rows.Load()
		c.BytesWritten += m.bytes.Load()
	}
}
