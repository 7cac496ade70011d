package kafka

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// defaultRequestTimeout bounds what waits on a broker (Kafka's request.timeout.ms).
const defaultRequestTimeout = 30 * time.Second

// clientConfig is what kafka.config says, read into franz-go's options, and the settings
// the connector uses itself.
type clientConfig struct {
	opts           []kgo.Opt
	requestTimeout time.Duration
	readCommitted  bool
	maxPollRecords int
	resetLatest    bool // auto.offset.reset = latest
}

// ignoredKeys are Java client settings that have no counterpart here and are dropped
// without a word: serializers and the like are the connector's own business.
var ignoredKeys = map[string]bool{
	"key.serializer": true, "value.serializer": true, "key.deserializer": true, "value.deserializer": true,
	"enable.auto.commit": true, "group.id": true, "bootstrap.servers": true, "transactional.id": true,
}

// parseClientConfig reads kafka.config. where names the option for errors.
func parseClientConfig(bootstrap string, kc map[string]string, producer bool) (*clientConfig, error) {
	brokers := splitList(bootstrap)
	if len(brokers) == 0 {
		return nil, fmt.Errorf("bootstrap.servers: no broker given")
	}
	// a group without committed offsets starts at the end, as Kafka's auto.offset.reset does
	c := &clientConfig{requestTimeout: defaultRequestTimeout, resetLatest: true}
	c.opts = append(c.opts, kgo.SeedBrokers(brokers...))
	keys := make([]string, 0, len(kc))
	for k := range kc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sasl saslConfig
	for _, k := range keys {
		v := strings.TrimSpace(kc[k])
		if err := c.apply(k, v, producer, &sasl); err != nil {
			return nil, fmt.Errorf("kafka.config.%s: %w", k, err)
		}
	}
	if err := sasl.apply(c); err != nil {
		return nil, fmt.Errorf("kafka.config: %w", err)
	}
	c.opts = append(c.opts, kgo.DialTimeout(min(c.requestTimeout, 10*time.Second)))
	return c, nil
}

type saslConfig struct {
	protocol, mechanism, jaas string
}

var jaasField = regexp.MustCompile(`(username|password)\s*=\s*"([^"]*)"`)

func (s saslConfig) apply(c *clientConfig) error {
	p := strings.ToUpper(s.protocol)
	if p == "SSL" || p == "SASL_SSL" {
		c.opts = append(c.opts, kgo.DialTLSConfig(&tls.Config{MinVersion: tls.VersionTLS12}))
	}
	if !strings.HasPrefix(p, "SASL_") {
		return nil
	}
	var user, pass string
	for _, m := range jaasField.FindAllStringSubmatch(s.jaas, -1) {
		if m[1] == "username" {
			user = m[2]
		} else {
			pass = m[2]
		}
	}
	switch strings.ToUpper(s.mechanism) {
	case "", "PLAIN":
		c.opts = append(c.opts, kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism()))
	case "SCRAM-SHA-256":
		c.opts = append(c.opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha256Mechanism()))
	case "SCRAM-SHA-512":
		c.opts = append(c.opts, kgo.SASL(scram.Auth{User: user, Pass: pass}.AsSha512Mechanism()))
	default:
		return fmt.Errorf("sasl.mechanism %s is not supported (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 are)", s.mechanism)
	}
	return nil
}

func (c *clientConfig) apply(k, v string, producer bool, sasl *saslConfig) error {
	switch k {
	case "client.id":
		c.opts = append(c.opts, kgo.ClientID(v))
	case "request.timeout.ms", "default.api.timeout.ms":
		d, err := millis(v)
		if err != nil {
			return err
		}
		c.requestTimeout = d
	case "security.protocol":
		sasl.protocol = v
	case "sasl.mechanism":
		sasl.mechanism = v
	case "sasl.jaas.config":
		sasl.jaas = v
	case "isolation.level":
		switch strings.ToLower(v) {
		case "read_committed":
			c.readCommitted = true
		case "read_uncommitted":
			c.readCommitted = false
		default:
			return fmt.Errorf("want read_committed or read_uncommitted, got %q", v)
		}
	case "auto.offset.reset":
		switch strings.ToLower(v) {
		case "earliest", "none":
			c.resetLatest = false
		case "latest":
			c.resetLatest = true
		default:
			return fmt.Errorf("want earliest or latest, got %q", v)
		}
	case "max.poll.records":
		n, err := positive(v)
		if err != nil {
			return err
		}
		c.maxPollRecords = n
	case "fetch.max.bytes":
		return c.withInt(v, func(n int) kgo.Opt { return kgo.FetchMaxBytes(int32(n)) })
	case "max.partition.fetch.bytes":
		return c.withInt(v, func(n int) kgo.Opt { return kgo.FetchMaxPartitionBytes(int32(n)) })
	case "fetch.min.bytes":
		return c.withInt(v, func(n int) kgo.Opt { return kgo.FetchMinBytes(int32(n)) })
	case "fetch.max.wait.ms":
		return c.withMillis(v, func(d time.Duration) kgo.Opt { return kgo.FetchMaxWait(d) })
	case "acks":
		switch strings.ToLower(v) {
		case "0":
			c.opts = append(c.opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
		case "1":
			c.opts = append(c.opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
		case "all", "-1":
			c.opts = append(c.opts, kgo.RequiredAcks(kgo.AllISRAcks()))
		default:
			return fmt.Errorf("want 0, 1 or all, got %q", v)
		}
	case "enable.idempotence":
		if strings.EqualFold(v, "false") {
			c.opts = append(c.opts, kgo.DisableIdempotentWrite())
		}
	case "compression.type":
		codec, err := compression(v)
		if err != nil {
			return err
		}
		c.opts = append(c.opts, kgo.ProducerBatchCompression(codec))
	case "linger.ms":
		return c.withMillis(v, func(d time.Duration) kgo.Opt { return kgo.ProducerLinger(d) })
	case "batch.size", "max.request.size":
		return c.withInt(v, func(n int) kgo.Opt { return kgo.ProducerBatchMaxBytes(int32(n)) })
	case "delivery.timeout.ms":
		return c.withMillis(v, func(d time.Duration) kgo.Opt { return kgo.RecordDeliveryTimeout(d) })
	case "transaction.timeout.ms":
		return c.withMillis(v, func(d time.Duration) kgo.Opt { return kgo.TransactionTimeout(d) })
	default:
		if !ignoredKeys[k] {
			slog.Info("kafka: setting without effect here, ignored", "key", k, "producer", producer)
		}
	}
	return nil
}

func (c *clientConfig) withInt(v string, opt func(int) kgo.Opt) error {
	n, err := positive(v)
	if err != nil {
		return err
	}
	c.opts = append(c.opts, opt(n))
	return nil
}

func (c *clientConfig) withMillis(v string, opt func(time.Duration) kgo.Opt) error {
	d, err := millis(v)
	if err != nil {
		return err
	}
	c.opts = append(c.opts, opt(d))
	return nil
}

func compression(v string) (kgo.CompressionCodec, error) {
	switch strings.ToLower(v) {
	case "none", "":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.NoCompression(), fmt.Errorf("want none, gzip, snappy, lz4 or zstd, got %q", v)
}

func millis(v string) (time.Duration, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want milliseconds, got %q", v)
	}
	return time.Duration(n) * time.Millisecond, nil
}

func positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("want a positive number, got %q", v)
	}
	return n, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
