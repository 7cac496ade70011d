package multitable

// TableState is a sink whose writers' states name their table. A sink of one table is built
// as that table's sink alone, so its writers' states are its own; when the job is restored
// with more tables (SeaTunnel's multi-table restore adds one), each such state goes to the
// table it names.
type TableState interface {
	// StateTable is the id of the table a writer's state belongs to; ok is false for a state
	// that names none.
	StateTable(state []byte) (id string, ok bool)
}

// ownerOf is the table a single table's writer state names, among the sink's tables.
func (s *Sink) ownerOf(state []byte) (string, bool) {
	for _, id := range s.ids {
		if ts, ok := s.sinks[id].(TableState); ok {
			if owner, ok := ts.StateTable(state); ok && owner == id {
				return id, true
			}
		}
	}
	return "", false
}
