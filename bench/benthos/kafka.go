package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"
)

func registerKafka() error {
	in := service.NewConfigSpec().
		Summary("Reads partition 0 of a topic from its start until count records.").
		Fields(service.NewStringField("seed_brokers"), service.NewStringField("topic"), service.NewIntField("count"))
	err := service.RegisterBatchInput("strait_bench_kafka_input", in,
		func(conf *service.ParsedConfig, _ *service.Resources) (service.BatchInput, error) {
			var r kafkaInput
			var err error
			if r.brokers, err = conf.FieldString("seed_brokers"); err != nil {
				return nil, err
			}
			if r.topic, err = conf.FieldString("topic"); err != nil {
				return nil, err
			}
			if r.left, err = conf.FieldInt("count"); err != nil {
				return nil, err
			}
			return &r, nil
		})
	if err != nil {
		return err
	}
	out := service.NewConfigSpec().
		Summary("Produces each message to a topic and waits for its batch's acknowledgements.").
		Fields(service.NewStringField("seed_brokers"), service.NewStringField("topic"))
	return service.RegisterBatchOutput("strait_bench_kafka_output", out,
		func(conf *service.ParsedConfig, _ *service.Resources) (service.BatchOutput, service.BatchPolicy, int, error) {
			var w kafkaOutput
			var err error
			if w.brokers, err = conf.FieldString("seed_brokers"); err != nil {
				return nil, service.BatchPolicy{}, 0, err
			}
			if w.topic, err = conf.FieldString("topic"); err != nil {
				return nil, service.BatchPolicy{}, 0, err
			}
			// batches as the input made them (one fetch each), several in flight, as Redpanda
			// Connect's kafka_franz output defaults to
			return &w, service.BatchPolicy{}, 64, nil
		})
}

// kafkaInput is the consumer the Kafka source uses: the partition assigned directly at
// offset 0, franz-go's default fetch sizes, no group.
type kafkaInput struct {
	brokers, topic string
	left           int
	cl             *kgo.Client
}

func (r *kafkaInput) Connect(context.Context) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.brokers),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{r.topic: {0: kgo.NewOffset().At(0)}}))
	if err != nil {
		return err
	}
	r.cl = cl
	return nil
}

func (r *kafkaInput) ReadBatch(ctx context.Context) (service.MessageBatch, service.AckFunc, error) {
	if r.left <= 0 {
		return nil, nil, service.ErrEndOfInput
	}
	fs := r.cl.PollFetches(ctx)
	if errs := fs.Errors(); len(errs) > 0 {
		if errors.Is(errs[0].Err, context.Canceled) {
			return nil, nil, errs[0].Err
		}
		return nil, nil, fmt.Errorf("fetch %s: %w", r.topic, errs[0].Err)
	}
	batch := make(service.MessageBatch, 0, fs.NumRecords())
	fs.EachRecord(func(rec *kgo.Record) {
		if r.left > 0 {
			batch = append(batch, service.NewMessage(rec.Value))
			r.left--
		}
	})
	return batch, func(context.Context, error) error { return nil }, nil
}

func (r *kafkaInput) Close(context.Context) error {
	if r.cl != nil {
		r.cl.Close()
	}
	return nil
}

// kafkaOutput has the Kafka sink's producer settings: franz-go's defaults spelt out (linger
// 10 ms, batches up to 1000012 bytes, snappy, acks from all in-sync replicas, idempotent, at
// most 50000 records buffered, the sticky key partitioner).
type kafkaOutput struct {
	brokers, topic string
	cl             *kgo.Client
}

func (w *kafkaOutput) Connect(context.Context) error {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(w.brokers), kgo.DefaultProduceTopic(w.topic), kgo.AllowAutoTopicCreation(),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(10*time.Millisecond), kgo.ProducerBatchMaxBytes(1000012),
		kgo.ProducerBatchCompression(kgo.SnappyCompression(), kgo.NoCompression()),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.MaxBufferedRecords(50000))
	if err != nil {
		return err
	}
	w.cl = cl
	return nil
}

func (w *kafkaOutput) WriteBatch(ctx context.Context, batch service.MessageBatch) error {
	recs := make([]*kgo.Record, len(batch))
	for i, m := range batch {
		b, err := m.AsBytes()
		if err != nil {
			return err
		}
		recs[i] = &kgo.Record{Value: b}
	}
	return w.cl.ProduceSync(ctx, recs...).FirstErr()
}

func (w *kafkaOutput) Close(context.Context) error {
	if w.cl != nil {
		w.cl.Close()
	}
	return nil
}
