package redis

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/strait-dev/strait/config"
)

// ConnOptions are how the connector reaches Redis, as SeaTunnel names them.
type ConnOptions struct {
	Host  string   `opt:"host" doc:"the server's host (single mode; in cluster mode, with port, one more node to start from)"`
	Port  int      `opt:"port" default:"6379" doc:"the server's port"`
	User  string   `opt:"user" doc:"the ACL user to log in as (AUTH user auth); without it the password alone is sent"`
	Auth  string   `opt:"auth,secret" doc:"the password"`
	DBNum int      `opt:"db_num" default:"0" doc:"the database index selected (single mode; a cluster has database 0 only)"`
	Mode  string   `opt:"mode" default:"single" enum:"single,cluster" doc:"single: one server at host:port; cluster: a Redis Cluster reached through nodes"`
	Nodes []string `opt:"nodes" doc:"the cluster's nodes as host:port, required in cluster mode"`
}

// the data types, as SeaTunnel names them (string is key's other name)
const (
	typeKey    = "key"
	typeString = "string"
	typeHash   = "hash"
	typeList   = "list"
	typeSet    = "set"
	typeZSet   = "zset"
)

const dataTypes = "key,string,hash,list,set,zset"

// dialTimeout bounds connecting; reads and writes wait for the server as long as a pipeline
// of batch_size commands needs.
const (
	dialTimeout = 10 * time.Second
	ioTimeout   = time.Minute
)

// checkValues checks the options of the values read or written that the source and the
// sink share: batch_size at least 1, and a field_delimiter in format text.
func checkValues(o *config.Options, batchSize int, format, fieldDelimiter string) error {
	if batchSize < 1 {
		return o.Errorf("batch_size", "must be at least 1, got %d", batchSize)
	}
	if format == "text" && fieldDelimiter == "" {
		return o.Errorf("field_delimiter", "must not be empty")
	}
	return nil
}

// check validates the connection options, naming the option at fault.
func (c *ConnOptions) check(o *config.Options) error {
	switch c.Mode {
	case "single":
		if strings.TrimSpace(c.Host) == "" {
			return o.Errorf("host", "option is required in single mode")
		}
		if c.DBNum < 0 {
			return o.Errorf("db_num", "must not be negative, got %d", c.DBNum)
		}
	case "cluster":
		if len(c.Nodes) == 0 && strings.TrimSpace(c.Host) == "" {
			return o.Errorf("nodes", "option is required in cluster mode: the nodes as [\"host1:port1\", \"host2:port2\"]")
		}
		for _, n := range c.Nodes {
			if _, p, err := net.SplitHostPort(strings.TrimSpace(n)); err != nil || p == "" {
				return o.Errorf("nodes", "%q is not host:port", n)
			}
		}
		if c.DBNum != 0 {
			return o.Errorf("db_num", "a Redis Cluster has database 0 only, got %d", c.DBNum)
		}
	}
	if c.Port < 1 || c.Port > 65535 {
		return o.Errorf("port", "must be a port number, got %d", c.Port)
	}
	return nil
}

func (c *ConnOptions) cluster() bool { return c.Mode == "cluster" }

// addrs are the addresses connected to: host:port, then the nodes in cluster mode.
func (c *ConnOptions) addrs() []string {
	var out []string
	if h := strings.TrimSpace(c.Host); h != "" {
		out = append(out, net.JoinHostPort(h, strconv.Itoa(c.Port)))
	}
	if c.cluster() {
		for _, n := range c.Nodes {
			if n = strings.TrimSpace(n); n != "" && (len(out) == 0 || n != out[0]) {
				out = append(out, n)
			}
		}
	}
	return out
}

// client connects: a client of the server, or of the cluster.
func (c *ConnOptions) client() goredis.UniversalClient {
	if c.cluster() {
		return goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: c.addrs(), Username: c.User, Password: c.Auth,
			DialTimeout: dialTimeout, ReadTimeout: ioTimeout, WriteTimeout: ioTimeout,
			DisableIdentity: true,
		})
	}
	return c.nodeClient(c.addrs()[0])
}

// nodeClient connects to one server (a cluster's master, when scanning it).
func (c *ConnOptions) nodeClient(addr string) *goredis.Client {
	db := c.DBNum
	if c.cluster() {
		db = 0
	}
	return goredis.NewClient(&goredis.Options{
		Addr: addr, Username: c.User, Password: c.Auth, DB: db,
		DialTimeout: dialTimeout, ReadTimeout: ioTimeout, WriteTimeout: ioTimeout,
		DisableIdentity: true,
	})
}

// where names the server or cluster in errors.
func (c *ConnOptions) where() string {
	if c.cluster() {
		return "cluster " + strings.Join(c.addrs(), ",")
	}
	return fmt.Sprintf("%s db %d", c.addrs()[0], c.DBNum)
}

// masters lists the addresses of a cluster's masters, or the server's address.
func (c *ConnOptions) masters(ctx context.Context) ([]string, error) {
	if !c.cluster() {
		return c.addrs()[:1], nil
	}
	cl := c.client().(*goredis.ClusterClient)
	defer cl.Close()
	shards, err := cl.ClusterSlots(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("%s: CLUSTER SLOTS: %w", c.where(), err)
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range shards {
		if len(s.Nodes) == 0 {
			continue
		}
		a := s.Nodes[0].Addr
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: the cluster serves no slots", c.where())
	}
	return out, nil
}
