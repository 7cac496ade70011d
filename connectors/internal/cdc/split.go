package cdc

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/keyrange"
)

// Split is what a change source's split carries: a range of a table's snapshot, or how far
// the stream of changes was read (S, the source's own).
type Split[S any] struct {
	// Snapshot is set for a snapshot split.
	Snapshot *keyrange.Range `json:"snapshot,omitempty"`
	// Stream is set for the stream split.
	Stream *S `json:"stream,omitempty"`
}

// Encode is the split of that id carrying d.
func (d Split[S]) Encode(id string) connector.Split {
	b, _ := json.Marshal(d)
	return connector.Split{ID: id, Data: b}
}

// DecodeSplit reads what a split carries, which must be either a snapshot or the stream;
// stream is what the error calls the stream when it is neither.
func DecodeSplit[S any](s connector.Split, stream string) (Split[S], error) {
	var d Split[S]
	if err := json.Unmarshal(s.Data, &d); err != nil {
		return d, err
	}
	if (d.Snapshot == nil) == (d.Stream == nil) {
		return d, fmt.Errorf("neither a snapshot nor a %s split", stream)
	}
	return d, nil
}

// SnapshotSplits are the splits that read a table's snapshot, one per range, with the ids
// <table>-0, <table>-1...
func SnapshotSplits(table string, ranges []keyrange.Range) []connector.Split {
	out := make([]connector.Split, len(ranges))
	for i := range ranges {
		out[i] = Split[struct{}]{Snapshot: &ranges[i]}.Encode(table + "-" + strconv.Itoa(i))
	}
	return out
}
