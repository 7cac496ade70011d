package main

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

func TestParseTopic(t *testing.T) {
	cases := []struct {
		in      string
		name    string
		n       int
		wantErr bool
	}{
		{in: "orders", name: "orders", n: 1},
		{in: "orders:3", name: "orders", n: 3},
		{in: "a.b-c:12", name: "a.b-c", n: 12},
		{in: ":3", wantErr: true},
		{in: "orders:0", wantErr: true},
		{in: "orders:x", wantErr: true},
	}
	for _, c := range cases {
		name, n, err := parseTopic(c.in, 1)
		if (err != nil) != c.wantErr {
			t.Errorf("%q: error %v, want error %v", c.in, err, c.wantErr)
			continue
		}
		if err == nil && (name != c.name || n != c.n) {
			t.Errorf("%q: got %s:%d, want %s:%d", c.in, name, n, c.name, c.n)
		}
	}
}

func TestClusterOptionsRejectsNoPartitions(t *testing.T) {
	if _, err := clusterOptions("127.0.0.1", 9092, 0, true, nil); err == nil {
		t.Fatal("-partitions 0 accepted")
	}
	opts, err := clusterOptions("127.0.0.1", 9092, 1, true, []string{"a:2", "b"})
	if err != nil {
		t.Fatal(err)
	}
	// one broker, the port, the default partitions, auto creation and two seeded topics
	if len(opts) != 6 {
		t.Fatalf("got %d options, want 6", len(opts))
	}
}

// A broker on another address listens there and advertises it, so clients on other hosts
// reach it; a host that is no IP address is refused.
func TestClusterOptionsHost(t *testing.T) {
	if _, err := clusterOptions("broker.example", 9092, 1, true, nil); err == nil {
		t.Fatal("-host broker.example accepted")
	}
	opts, err := clusterOptions("127.0.0.2", 0, 1, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addrs := c.ListenAddrs()
	if len(addrs) != 1 || !strings.HasPrefix(addrs[0], "127.0.0.2:") {
		t.Fatalf("listening on %v, want 127.0.0.2", addrs)
	}
}
