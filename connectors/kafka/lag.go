package kafka

import (
	"strconv"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// partitionLag is how far a reader is behind the end of the partitions it reads, as the
// last fetch of each told: the end (the high watermark, or the last stable offset when it
// reads committed records only) less the next offset to read. The reader updates it once per
// poll; the metrics read it from another goroutine.
type partitionLag struct {
	mu     sync.Mutex
	behind map[topicPartition]int64
}

type topicPartition struct {
	topic     string
	partition int32
}

// observe takes the ends the fetches tell of, after their records moved the partitions on.
func (l *partitionLag) observe(f kgo.Fetches, parts map[string]map[int32]*partState, committed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.behind == nil {
		l.behind = map[topicPartition]int64{}
	}
	f.EachPartition(func(p kgo.FetchTopicPartition) {
		ps := parts[p.Topic][p.Partition]
		if ps == nil || p.Err != nil {
			return
		}
		k := topicPartition{p.Topic, p.Partition}
		if ps.done {
			delete(l.behind, k)
			return
		}
		end := p.HighWatermark
		if committed {
			end = p.LastStableOffset
		}
		l.behind[k] = max(end-ps.Offset, 0)
	})
}

// RecordsBehind is, by "topic-partition", the records between what the reader read and the
// end of each partition it reads, as of the partition's last fetch.
func (r *reader) RecordsBehind() map[string]int64 {
	r.lag.mu.Lock()
	defer r.lag.mu.Unlock()
	out := make(map[string]int64, len(r.lag.behind))
	for k, n := range r.lag.behind {
		out[k.topic+"-"+strconv.Itoa(int(k.partition))] = n
	}
	return out
}
