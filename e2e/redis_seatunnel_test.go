package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// SeaTunnel's Redis end-to-end configs (connectors/redis/testdata/seatunnel), run unchanged by
// strait run with the checks of its RedisTestCaseTemplateIT. They reach the server as
// redis-e2e:6379 with password SeaTunnel (base64-shaded in the configs), as scripts/redis.sh
// starts it and maps the host name.

func redisSuite(name string) string { return connectorSuite("redis", name) }

// redisDB is a client of the test server's database db.
func redisDB(t *testing.T, db int) *goredis.Client {
	t.Helper()
	u := testServer(t, "STRAIT_TEST_REDIS", "Redis (scripts/redis.sh)")
	mappedHost(t, "redis-e2e", "scripts/redis.sh")
	o, err := goredis.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	if o.Password != "SeaTunnel" || !strings.HasSuffix(o.Addr, ":6379") {
		t.Fatalf("SeaTunnel's configs need the server on port 6379 with password SeaTunnel; STRAIT_TEST_REDIS is %s", u)
	}
	o.DB = db
	c := goredis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s does not answer: %v (make redis starts it)", o.Addr, err)
	}
	return c
}

// redisSeed writes the IT's source data, once per run: the JSON of 100 rows as key_test0..99
// in databases 0 and 1.
func redisSeed(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var values []string
	for i := 0; i < 100; i++ {
		b, _ := json.Marshal(map[string]any{"id": i, "c_map": map[string]int{"key": 1}, "c_array": []int{1}, "c_string": "string",
			"c_boolean": false, "c_tinyint": 1, "c_smallint": 1, "c_int": 1, "c_bigint": 1, "c_float": 1.1, "c_double": 1.1,
			"c_decimal": 1.1, "c_bytes": "dGVzdA==", "c_date": time.Now().Format("2006-01-02"), "c_timestamp": time.Now().Format("2006-01-02T15:04:05")})
		values = append(values, string(b))
	}
	for _, db := range []int{0, 1} {
		c := redisDB(t, db)
		for i, v := range values {
			if err := c.Set(ctx, fmt.Sprintf("key_test%d", i), v, 0).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return values
}

// redisKeys deletes keys: what an earlier run left, and what the test wrote.
func redisDel(t *testing.T, c *goredis.Client, keys ...string) {
	t.Helper()
	if err := c.Del(context.Background(), keys...).Err(); err != nil {
		t.Fatal(err)
	}
}

func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestSeaTunnelRedis(t *testing.T) {
	ctx := context.Background()
	values := redisSeed(t)
	db0 := redisDB(t, 0)
	for _, tc := range []struct {
		it, config string
		db         int    // the database of the list written
		list       string // the list written
		seed       func(c *goredis.Client) (cleanup []string)
		want       []string // the list's elements, in any order; the rows the source read, {"content": value}, unless raw
		raw        bool
		check      func(t *testing.T, c *goredis.Client)
	}{
		{it: "testRedis", config: "redis-to-redis.conf", list: "key_list", want: values},
		{it: "testRedisWithExpire", config: "redis-to-redis-expire.conf", list: "key_list", want: values,
			check: func(t *testing.T, c *goredis.Client) {
				// the IT waits a minute for the list to go; its time to live is what makes it go
				if ttl := c.TTL(ctx, "key_list").Val(); ttl <= 0 || ttl > 30*time.Second {
					t.Errorf("key_list: time to live %v, want 30s at most", ttl)
				}
			}},
		{it: "testRedisDbNum", config: "redis-to-redis-by-db-num.conf", db: 2, list: "db_test", want: values,
			check: func(t *testing.T, _ *goredis.Client) {
				if n := db0.Exists(ctx, "db_test").Val(); n != 0 {
					t.Error("db_test is in database 0 too")
				}
			}},
		{it: "testScanStringTypeWriteRedis", config: "scan-string-to-redis.conf", list: "string_test_list",
			seed: func(c *goredis.Client) []string {
				keys := numbered("string_test", 1000)
				p := c.Pipeline()
				for _, k := range keys {
					p.Set(ctx, k, "val", 0)
				}
				_, _ = p.Exec(ctx)
				return keys
			}, want: strings.Split(strings.Repeat("val,", 1000), ",")[:1000]},
		{it: "testScanListTypeWriteRedis", config: "scan-list-test-read-to-redis-list-test-check.conf", list: "list-test-check",
			seed: func(c *goredis.Client) []string {
				keys := numbered("list-test-read", 100)
				for _, k := range keys {
					for j := 0; j < 10; j++ {
						c.LPush(ctx, k, fmt.Sprintf("val%d", j))
					}
				}
				return keys
			}, want: repeated(100, numbered("val", 10))},
		{it: "testScanSetTypeWriteRedis", config: "scan-set-to-redis-list-set-check.conf", list: "list-set-check",
			seed: func(c *goredis.Client) []string {
				keys := numbered("key-test-set", 100)
				for _, k := range keys {
					for j := 0; j < 10; j++ {
						c.SAdd(ctx, k, fmt.Sprint(j))
					}
				}
				return keys
			}, want: repeated(100, numbered("", 10))},
		{it: "testScanHashTypeWriteRedis", config: "scan-hash-to-redis-list-hash-check.conf", list: "list-hash-check",
			seed: func(c *goredis.Client) []string {
				keys := numbered("key-test-hash", 100)
				for _, k := range keys {
					c.HSet(ctx, k, "name", "fuyoujie")
				}
				return keys
			}, want: strings.Split(strings.Repeat(`{"name":"fuyoujie"};`, 100), ";")[:100]},
		{it: "testScanZsetTypeWriteRedis", config: "scan-zset-to-redis-list-zset-check.conf", list: "list-zset-check",
			seed: func(c *goredis.Client) []string {
				keys := numbered("key-test-zset", 100)
				for _, k := range keys {
					for j := 0; j < 10; j++ {
						c.ZAdd(ctx, k, goredis.Z{Score: 1, Member: fmt.Sprint(j)})
					}
				}
				return keys
			}, want: repeated(100, numbered("", 10))},
		{it: "testMultipletableRedisSink", config: "fake-to-multipletableredissink.conf", db: 3, list: "key_multi_list", raw: true,
			want: []string{
				`{"id":1,"val_bool":true,"val_int8":1,"val_int16":2,"val_int32":3,"val_int64":4,"val_float":4.3,"val_double":5.3,"val_decimal":6.3,"val_string":"lzl","val_unixtime_micros":"2020-02-02T02:02:02"}`,
				`{"id":2,"val_bool":true,"val_int8":1,"val_int16":2,"val_int32":3,"val_int64":4,"val_float":4.3,"val_double":5.3,"val_decimal":6.3,"val_string":"lzl","val_unixtime_micros":"2020-02-02T02:02:02"}`,
			}},
	} {
		t.Run(tc.config, func(t *testing.T) {
			out := redisDB(t, tc.db)
			redisDel(t, out, tc.list)
			var seeded []string
			if tc.seed != nil {
				seeded = tc.seed(db0)
				t.Cleanup(func() { redisDel(t, db0, seeded...) })
			}
			t.Cleanup(func() { redisDel(t, out, tc.list) })
			code, output := run(t, "run", redisSuite(tc.config))
			checkRun(t, tc.it, code, output, 0)
			got := out.LRange(ctx, tc.list, 0, -1).Val()
			if len(got) != len(tc.want) {
				t.Fatalf("%s: %s holds %d elements, want %d", tc.it, tc.list, len(got), len(tc.want))
			}
			want := tc.want
			if !tc.raw {
				// the source's rows are one content field, which the sink writes as JSON
				want = make([]string, len(tc.want))
				for i, v := range tc.want {
					b, _ := json.Marshal(map[string]string{"content": v})
					want[i] = string(b)
				}
			}
			g, w := sortedCopy(got), sortedCopy(want)
			for i := range g {
				if g[i] != w[i] {
					t.Fatalf("%s: %s, sorted element %d:\n got %s\nwant %s", tc.it, tc.list, i, g[i], w[i])
				}
			}
			if tc.check != nil {
				tc.check(t, out)
			}
		})
	}
}

// repeated is n copies of xs, one after another.
func repeated(n int, xs []string) []string {
	out := make([]string, 0, n*len(xs))
	for range n {
		out = append(out, xs...)
	}
	return out
}
