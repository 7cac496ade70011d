// Command kfake runs franz-go's kfake, an in-memory implementation of Kafka's wire protocol
// with consumer groups and transactions, as a broker of its own on 127.0.0.1 for the tests
// of the Kafka connector. It is a test tool: the strait binary never links it.
//
//	kfake -port 9092 -topic orders:3 -topic events
//	kfake -ping 127.0.0.1:9092   # exits 0 once a broker answers there
//
// Topics a client asks for and that do not exist are created with -partitions partitions,
// as a Kafka broker with auto.create.topics.enable (its default) does.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

type topicsFlag []string

func (t *topicsFlag) String() string     { return strings.Join(*t, ",") }
func (t *topicsFlag) Set(s string) error { *t = append(*t, s); return nil }

func main() {
	port := flag.Int("port", 9092, "the port to listen on")
	host := flag.String("host", "127.0.0.1", "the address to listen on, which the broker also advertises to clients")
	partitions := flag.Int("partitions", 1, "partitions of topics created on first use")
	autoCreate := flag.Bool("auto-create", true, "create topics clients ask for, as Kafka's auto.create.topics.enable")
	ping := flag.String("ping", "", "check that a broker answers at this address and exit")
	var topics topicsFlag
	flag.Var(&topics, "topic", "a topic to create at start, name[:partitions] (repeatable)")
	flag.Parse()

	if *ping != "" {
		if err := pingBroker(*ping); err != nil {
			fmt.Fprintf(os.Stderr, "kfake: %s: %v\n", *ping, err)
			os.Exit(1)
		}
		return
	}
	opts, err := clusterOptions(*host, *port, *partitions, *autoCreate, topics)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfake: %v\n", err)
		os.Exit(2)
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfake: start on port %d: %v\n", *port, err)
		os.Exit(1)
	}
	slog.Info("kfake listening", "addrs", c.ListenAddrs())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	<-sigs
	c.Close()
}

// clusterOptions turns the flags into kfake's options: one broker on the port, topics
// created on first use when asked, and the seeded topics.
func clusterOptions(host string, port, partitions int, autoCreate bool, topics []string) ([]kfake.Opt, error) {
	if partitions < 1 {
		return nil, fmt.Errorf("-partitions: want at least 1, got %d", partitions)
	}
	if net.ParseIP(host) == nil {
		return nil, fmt.Errorf("-host: want an IP address, got %q", host)
	}
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.DefaultNumPartitions(partitions)}
	if host != "127.0.0.1" {
		// kfake listens on 127.0.0.1 and advertises its listener's address: listening on the
		// host instead makes the broker reachable, and advertised, there
		opts = append(opts, kfake.ListenFn(func(network, address string) (net.Listener, error) {
			_, p, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			return net.Listen(network, net.JoinHostPort(host, p))
		}))
	}
	if autoCreate {
		opts = append(opts, kfake.AllowAutoTopicCreation())
	}
	for _, t := range topics {
		name, n, err := parseTopic(t, partitions)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kfake.SeedTopics(int32(n), name))
	}
	return opts, nil
}

// parseTopic reads name[:partitions].
func parseTopic(s string, partitions int) (string, int, error) {
	name, count, ok := strings.Cut(s, ":")
	if name == "" {
		return "", 0, fmt.Errorf("-topic %q: empty name", s)
	}
	if !ok {
		return name, partitions, nil
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("-topic %q: partitions must be a positive number", s)
	}
	return name, n, nil
}

// pingBroker asks the broker at addr for its API versions.
func pingBroker(addr string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(2*time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return cl.Ping(ctx)
}
