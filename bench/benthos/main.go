// Command benthos runs a Benthos v4 stream (the open-source core, github.com/redpanda-data/benthos/v4)
// from a YAML config to its end and prints its seconds, so make bench can put Strait's jobs
// beside the Go peer doing the same work on the same input. It is a module of its own so that
// Benthos and its dependencies never enter Strait's.
//
//	benthos <config.yaml>   prints "benthos-secs <seconds>" once the stream has ended
//
// The core ships no Kafka components (they live in Redpanda Connect, under a licence Strait
// does not take), so this program adds two, written against Benthos's public plugin API with
// franz-go as a Benthos user would: strait_bench_kafka_input reads one partition from its
// start until a given number of records, and strait_bench_kafka_output produces each batch and
// waits for its acknowledgements, with franz-go's producer settings, the same the Kafka sink
// and the bare loop use.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	_ "github.com/redpanda-data/benthos/v4/public/components/io"
	_ "github.com/redpanda-data/benthos/v4/public/components/pure"
	"github.com/redpanda-data/benthos/v4/public/service"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "benthos: want the stream's YAML config")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "benthos:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	conf, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := registerKafka(); err != nil {
		return err
	}
	b := service.NewStreamBuilder()
	if err := b.SetLoggerYAML("level: warn"); err != nil {
		return err
	}
	if err := b.SetYAML(string(conf)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	stream, err := b.Build()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	start := time.Now()
	if err := stream.Run(context.Background()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Printf("benthos-secs %.6f\n", time.Since(start).Seconds())
	return nil
}
