package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/strait-dev/strait/connector"
)

// split is the state of one topic partition: the next offset to read and, in BATCH mode,
// the end offset (exclusive) seen when the job started; -1 means no end.
type split struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	End       int64  `json:"end"`
}

func (s split) id() string { return fmt.Sprintf("%s-%d", s.Topic, s.Partition) }

func (s split) encode() connector.Split {
	b, _ := json.Marshal(s)
	return connector.Split{ID: s.id(), Data: b}
}

func decodeSplit(cs connector.Split) (split, error) {
	var s split
	if err := json.Unmarshal(cs.Data, &s); err != nil {
		return s, fmt.Errorf("split %s: %w", cs.ID, err)
	}
	return s, nil
}

// enumState is the enumerator's snapshot: the partitions handed out already.
type enumState struct {
	Assigned []string `json:"assigned"`
}

// enumerator finds the partitions of the source's topics, resolves where each starts (and,
// in BATCH mode, ends) and hands each to one reader. In STREAMING mode with partition
// discovery it looks again at every interval.
type enumerator struct {
	src *Source
	ctx connector.EnumeratorContext

	cl  *kgo.Client
	adm *kadm.Client

	mu       sync.Mutex
	assigned map[string]bool
	restored bool

	stop context.CancelFunc
	done chan struct{}
}

func newEnumerator(s *Source, ctx connector.EnumeratorContext, state []byte) (*enumerator, error) {
	e := &enumerator{src: s, ctx: ctx, assigned: map[string]bool{}}
	if len(state) > 0 {
		var st enumState
		if err := json.Unmarshal(state, &st); err != nil {
			return nil, fmt.Errorf("%s: enumerator state: %w", s.where, err)
		}
		for _, id := range st.Assigned {
			e.assigned[id] = true
		}
		e.restored = true
	}
	return e, nil
}

func (e *enumerator) Open(ctx context.Context) error {
	cl, err := kgo.NewClient(e.src.client.opts...)
	if err != nil {
		return fmt.Errorf("%s: kafka client: %w", e.src.where, err)
	}
	e.cl, e.adm = cl, kadm.NewClient(cl)
	return nil
}

// Run finds the partitions and assigns them. Without discovery every reader is then told
// that no more will come.
func (e *enumerator) Run(ctx context.Context) error {
	if err := e.discover(ctx, true); err != nil {
		return err
	}
	if e.src.discovery <= 0 {
		for i := 0; i < e.ctx.Parallelism(); i++ {
			e.ctx.SignalNoMoreSplits(i)
		}
		return nil
	}
	dctx, cancel := context.WithCancel(context.Background())
	e.stop, e.done = cancel, make(chan struct{})
	go e.discoverEvery(dctx)
	return nil
}

func (e *enumerator) discoverEvery(ctx context.Context) {
	defer close(e.done)
	t := time.NewTicker(e.src.discovery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := e.discover(ctx, false); err != nil && ctx.Err() == nil {
				slog.Warn("kafka: partition discovery failed, will try again", "source", e.src.where, "error", err)
			}
		}
	}
}

// discover lists the partitions and assigns those not handed out yet. The first run fails
// when a named topic does not exist; later runs only add what they find.
func (e *enumerator) discover(ctx context.Context, first bool) error {
	ctx, cancel := context.WithTimeout(ctx, e.src.client.requestTimeout)
	defer cancel()
	parts, err := e.partitions(ctx, first)
	if err != nil {
		return err
	}
	e.mu.Lock()
	var fresh []split
	for _, p := range parts {
		if !e.assigned[p.id()] {
			fresh = append(fresh, p)
		}
	}
	e.mu.Unlock()
	if len(fresh) == 0 {
		return nil
	}
	// partitions found after the start are read from their beginning: their records are new
	if err := e.resolve(ctx, fresh, first && !e.restored); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, p := range fresh {
		e.assigned[p.id()] = true
		e.ctx.Assign(owner(p, e.ctx.Parallelism()), p.encode())
	}
	slog.Info("kafka: partitions assigned", "source", e.src.where, "count", len(fresh))
	return nil
}

// owner spreads the partitions of a topic over the readers in turn.
func owner(p split, readers int) int {
	h := fnv.New32a()
	h.Write([]byte(p.Topic))
	return int((h.Sum32() + uint32(p.Partition)) % uint32(readers))
}

// partitions lists the partitions of every topic the source reads.
func (e *enumerator) partitions(ctx context.Context, first bool) ([]split, error) {
	var named []string
	hasPattern := false
	for _, set := range e.src.sets {
		named = append(named, set.topics...)
		hasPattern = hasPattern || set.pattern != nil
	}
	var details kadm.TopicDetails
	var err error
	if hasPattern {
		details, err = e.adm.ListTopics(ctx)
	} else {
		details, err = e.adm.ListTopics(ctx, named...)
	}
	if err != nil {
		return nil, e.brokerError(ctx, err)
	}
	var out []split
	for _, name := range named {
		d, ok := details[name]
		if first && (!ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition)) {
			return nil, fmt.Errorf("%s: topic %q does not exist", e.src.where, name)
		}
	}
	names := details.Names()
	sort.Strings(names)
	for _, name := range names {
		d := details[name]
		if set, _ := e.src.setOf(name); set == nil || d.Err != nil {
			if d.Err != nil && set != nil && first {
				return nil, fmt.Errorf("%s: topic %q: %w", e.src.where, name, d.Err)
			}
			continue
		}
		for _, p := range d.Partitions.Numbers() {
			out = append(out, split{Topic: name, Partition: p, End: -1})
		}
	}
	return out, nil
}

// brokerError names the brokers when none answered in time.
func (e *enumerator) brokerError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: no Kafka broker answered at %s within %s: %w", e.src.where, e.src.bootstrap, e.src.client.requestTimeout, err)
	}
	return fmt.Errorf("%s: Kafka at %s: %w", e.src.where, e.src.bootstrap, err)
}

// resolve sets where each partition starts, by its topic's start_mode when the job starts
// (from the beginning for partitions found later), and in BATCH mode where it ends.
func (e *enumerator) resolve(ctx context.Context, parts []split, atStart bool) error {
	byTopic := map[string][]int{}
	for i, p := range parts {
		byTopic[p.Topic] = append(byTopic[p.Topic], i)
	}
	topics := make([]string, 0, len(byTopic))
	for t := range byTopic {
		topics = append(topics, t)
	}
	earliest, err := e.adm.ListStartOffsets(ctx, topics...)
	if err != nil {
		return e.brokerError(ctx, err)
	}
	var latest kadm.ListedOffsets
	if e.src.client.readCommitted {
		latest, err = e.adm.ListCommittedOffsets(ctx, topics...)
	} else {
		latest, err = e.adm.ListEndOffsets(ctx, topics...)
	}
	if err != nil {
		return e.brokerError(ctx, err)
	}
	var group kadm.OffsetResponses
	for i := range parts {
		p := &parts[i]
		lo, err := listed(earliest, p)
		if err != nil {
			return fmt.Errorf("%s: start offset of %s: %w", e.src.where, p.id(), err)
		}
		hi, err := listed(latest, p)
		if err != nil {
			return fmt.Errorf("%s: end offset of %s: %w", e.src.where, p.id(), err)
		}
		p.Offset = lo
		if e.src.job.Mode != connector.Streaming {
			p.End = hi
		}
		if !atStart {
			continue
		}
		set, _ := e.src.setOf(p.Topic)
		switch set.start.mode {
		case "latest":
			p.Offset = hi
		case "specific_offsets":
			if off, ok := set.start.offsets[p.Topic][p.Partition]; ok {
				p.Offset = max(lo, off)
			}
		case "timestamp":
			after, err := e.adm.ListOffsetsAfterMilli(ctx, set.start.timestamp, p.Topic)
			if err != nil {
				return e.brokerError(ctx, err)
			}
			if off, err := listed(after, p); err == nil && off >= 0 {
				p.Offset = off
			}
		case "group_offsets":
			if group == nil {
				if group, err = e.adm.FetchOffsets(ctx, e.src.group); errors.Is(err, kerr.GroupIDNotFound) {
					group, err = kadm.OffsetResponses{}, nil // a group that never committed
				}
				if err != nil {
					return fmt.Errorf("%s: offsets of consumer group %s: %w", e.src.where, e.src.group, err)
				}
			}
			if r, ok := group.Lookup(p.Topic, p.Partition); ok && r.Err == nil && r.At >= 0 {
				p.Offset = r.At
			} else if e.src.client.resetLatest {
				p.Offset = hi
			}
		}
	}
	return nil
}

func listed(l kadm.ListedOffsets, p *split) (int64, error) {
	o, ok := l[p.Topic][p.Partition]
	if !ok {
		return 0, fmt.Errorf("not listed")
	}
	if o.Err != nil {
		return 0, o.Err
	}
	return o.Offset, nil
}

func (e *enumerator) RegisterReader(int) error     { return nil }
func (e *enumerator) HandleSplitRequest(int) error { return nil }

// AddSplitsBack hands the splits of a failed reader out again.
func (e *enumerator) AddSplitsBack(splits []connector.Split, reader int) error {
	for _, s := range splits {
		e.ctx.Assign(reader, s)
	}
	return nil
}

// Snapshot records the partitions handed out.
func (e *enumerator) Snapshot(int64) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := enumState{Assigned: make([]string, 0, len(e.assigned))}
	for id := range e.assigned {
		st.Assigned = append(st.Assigned, id)
	}
	sort.Strings(st.Assigned)
	return json.Marshal(st)
}

func (e *enumerator) Close() error {
	if e.stop != nil {
		e.stop()
		<-e.done
	}
	if e.cl != nil {
		e.cl.Close()
	}
	return nil
}
