package redis

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// server is the test's Redis: STRAIT_TEST_REDIS (redis://:password@host:port/db), which
// `make redis` starts (scripts/redis.sh). A test without it fails.
func server(t *testing.T) *goredis.Options {
	t.Helper()
	u := os.Getenv("STRAIT_TEST_REDIS")
	if u == "" {
		t.Fatal("STRAIT_TEST_REDIS is not set: run the tests with make (make redis starts the server)")
	}
	o, err := goredis.ParseURL(u)
	if err != nil {
		t.Fatalf("STRAIT_TEST_REDIS: %v", err)
	}
	c := goredis.NewClient(o)
	defer c.Close()
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("the Redis of STRAIT_TEST_REDIS (%s) does not answer: %v (make redis starts it)", o.Addr, err)
	}
	return o
}

// clusterNodes is the test's Redis Cluster: STRAIT_TEST_REDIS_CLUSTER, its nodes as
// host:port,host:port, which `make redis` starts.
func clusterNodes(t *testing.T) []string {
	t.Helper()
	v := os.Getenv("STRAIT_TEST_REDIS_CLUSTER")
	if v == "" {
		t.Fatal("STRAIT_TEST_REDIS_CLUSTER is not set: run the tests with make (make redis starts the cluster)")
	}
	return strings.Split(v, ",")
}

// client reaches the test server's database db.
func client(t *testing.T, db int) *goredis.Client {
	o := *server(t)
	o.DB = db
	c := goredis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	return c
}

// conn is the connection options of the test server for a job's block.
func conn(t *testing.T) string {
	o := server(t)
	host, port, _ := strings.Cut(o.Addr, ":")
	return fmt.Sprintf("host = %q\nport = %s\nauth = %q\n", host, port, o.Password)
}

var seq atomic.Int64

// prefix names the keys of a test, and deletes them (in every database used) when it ends.
func prefix(t *testing.T, dbs ...int) string {
	p := fmt.Sprintf("strait-test:%s:%d-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano()%1e9, seq.Add(1))
	t.Cleanup(func() {
		for _, db := range append(dbs, 0) {
			deleteKeys(client(t, db), p+"*")
		}
	})
	return p
}

func deleteKeys(c goredis.Cmdable, pattern string) {
	ctx := context.Background()
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, pattern, 500).Result()
		if err != nil {
			return
		}
		for _, k := range keys {
			c.Del(ctx, k)
		}
		if cursor = next; cursor == 0 {
			return
		}
	}
}

// rowText is a row's fields as SeaTunnel prints them, for comparing and sorting.
func rowText(fields []row.Value) string {
	var b []byte
	for i, v := range fields {
		if i > 0 {
			b = append(b, " | "...)
		}
		b = row.AppendText(b, v)
	}
	return string(b)
}

func sortedTexts(rows []row.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = rowText(r.Fields)
	}
	sort.Strings(out)
	return out
}

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d:\n got %q\nwant %q", what, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s[%d]:\n got %q\nwant %q", what, i, got[i], want[i])
		}
	}
}

// people is the sink tests' input: ids 1..3, a null score in the third.
var peopleTable = conntest.Table("people", "id", "bigint", "k", "string", "name", "string", "ok", "boolean", "score", "double", "day", "date", "ts", "timestamp")

func people(k string) *row.Batch {
	b := row.NewBatch(8)
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"ann", "bob", "cid"} {
		r := b.Add(row.Insert, peopleTable.ID(), 7)
		r.Fields[0] = row.BigIntValue(int64(i + 1))
		r.Fields[1] = row.StringValue(fmt.Sprintf("%s:row%d", k, i+1))
		r.Fields[2] = row.StringValue(name)
		r.Fields[3] = row.BoolValue(i%2 == 0)
		if i < 2 {
			r.Fields[4] = row.DoubleValue(float64(i) + 0.5)
		}
		r.Fields[5] = row.DateOf(day.AddDate(0, 0, i))
		r.Fields[6] = row.TimestampOf(day.Add(time.Duration(i)*time.Hour + 4*time.Minute + 5*time.Second))
	}
	return b
}

// the JSON SeaTunnel's json format makes of the people rows
var peopleJSON = []string{
	`{"id":1,"k":"%s:row1","name":"ann","ok":true,"score":0.5,"day":"2024-01-02","ts":"2024-01-02T00:04:05"}`,
	`{"id":2,"k":"%s:row2","name":"bob","ok":false,"score":1.5,"day":"2024-01-03","ts":"2024-01-02T01:04:05"}`,
	`{"id":3,"k":"%s:row3","name":"cid","ok":true,"score":null,"day":"2024-01-04","ts":"2024-01-02T02:04:05"}`,
}

func peopleJSONOf(k string, i int) string { return fmt.Sprintf(peopleJSON[i], k) }

// Each data type written through the sink, read back with go-redis and compared value by
// value.
func TestSinkDataTypes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// conf is the sink's options after the connection's; %[1]s is the test's key prefix
		conf string
		db   int
		// check reads what was written
		check func(t *testing.T, c *goredis.Client, p string)
	}{
		{"key from a field's name", `key = "k"
			data_type = key`, 0, func(t *testing.T, c *goredis.Client, p string) {
			for i := 0; i < 3; i++ {
				got, err := c.Get(ctx, fmt.Sprintf("%s:row%d", p, i+1)).Result()
				if err != nil || got != peopleJSONOf(p, i) {
					t.Errorf("row %d: got %q (%v), want %q", i+1, got, err, peopleJSONOf(p, i))
				}
			}
		}},
		{"string with ${field} keys and expire", `key = "%[1]s:user:${id}:${name}"
			support_custom_key = true
			data_type = string
			expire = 100`, 0, func(t *testing.T, c *goredis.Client, p string) {
			for i, n := range []string{"ann", "bob", "cid"} {
				k := fmt.Sprintf("%s:user:%d:%s", p, i+1, n)
				got, err := c.Get(ctx, k).Result()
				if err != nil || got != peopleJSONOf(p, i) {
					t.Errorf("%s: got %q (%v), want %q", k, got, err, peopleJSONOf(p, i))
				}
				ttl := c.TTL(ctx, k).Val()
				if ttl <= 0 || ttl > 100*time.Second {
					t.Errorf("%s: time to live %v, want 100s at most", k, ttl)
				}
			}
		}},
		{"key without expire keeps the key", `key = "%[1]s:one"
			data_type = key
			format = text
			field_delimiter = "|"`, 0, func(t *testing.T, c *goredis.Client, p string) {
			// the last row wins
			want := "3|" + p + ":row3|cid|true||2024-01-04|2024-01-02 02:04:05"
			if got := c.Get(ctx, p+":one").Val(); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
			if ttl := c.TTL(ctx, p+":one").Val(); ttl != -1 {
				t.Errorf("time to live %v, want none (-1)", ttl)
			}
		}},
		{"hash of the fields, {field} keys", `key = "%[1]s:h:{id}"
			support_custom_key = true
			data_type = hash
			batch_size = 2`, 0, func(t *testing.T, c *goredis.Client, p string) {
			want := []map[string]string{
				{"id": "1", "k": p + ":row1", "name": "ann", "ok": "true", "score": "0.5", "day": "2024-01-02", "ts": "2024-01-02T00:04:05"},
				{"id": "2", "k": p + ":row2", "name": "bob", "ok": "false", "score": "1.5", "day": "2024-01-03", "ts": "2024-01-02T01:04:05"},
				{"id": "3", "k": p + ":row3", "name": "cid", "ok": "true", "day": "2024-01-04", "ts": "2024-01-02T02:04:05"},
			}
			for i, w := range want {
				k := fmt.Sprintf("%s:h:%d", p, i+1)
				if got := c.HGetAll(ctx, k).Val(); fmt.Sprint(got) != fmt.Sprint(w) {
					t.Errorf("%s:\n got %v\nwant %v", k, got, w)
				}
			}
		}},
		{"hash of hash_key_field and hash_value_field, expire", `key = "%[1]s:scores"
			data_type = hash
			hash_key_field = name
			hash_value_field = score
			expire = 50`, 0, func(t *testing.T, c *goredis.Client, p string) {
			want := map[string]string{"ann": "0.5", "bob": "1.5", "cid": ""}
			if got := c.HGetAll(ctx, p+":scores").Val(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %v, want %v", got, want)
			}
			if ttl := c.TTL(ctx, p+":scores").Val(); ttl <= 0 || ttl > 50*time.Second {
				t.Errorf("time to live %v, want 50s at most", ttl)
			}
		}},
		{"hash of hash_key_field and the row", `key = "%[1]s:byname"
			data_type = hash
			hash_key_field = name`, 0, func(t *testing.T, c *goredis.Client, p string) {
			want := map[string]string{"ann": peopleJSONOf(p, 0), "bob": peopleJSONOf(p, 1), "cid": peopleJSONOf(p, 2)}
			if got := c.HGetAll(ctx, p+":byname").Val(); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %v, want %v", got, want)
			}
		}},
		{"list pushed at the head, db_num", `key = "%[1]s:list"
			data_type = list
			db_num = 5
			batch_size = 2`, 5, func(t *testing.T, c *goredis.Client, p string) {
			want := []string{peopleJSONOf(p, 2), peopleJSONOf(p, 1), peopleJSONOf(p, 0)}
			equalStrings(t, "LRANGE", c.LRange(ctx, p+":list", 0, -1).Val(), want)
			if n := client(t, 0).Exists(ctx, p+":list").Val(); n != 0 {
				t.Errorf("the list is in database 0 too")
			}
		}},
		{"list of value_field, expire", `key = "%[1]s:names"
			data_type = list
			value_field = name
			expire = 30`, 0, func(t *testing.T, c *goredis.Client, p string) {
			equalStrings(t, "LRANGE", c.LRange(ctx, p+":names", 0, -1).Val(), []string{"cid", "bob", "ann"})
			if ttl := c.TTL(ctx, p+":names").Val(); ttl <= 0 || ttl > 30*time.Second {
				t.Errorf("time to live %v, want 30s at most", ttl)
			}
		}},
		{"set of value_field", `key = "%[1]s:set"
			data_type = set
			value_field = day`, 0, func(t *testing.T, c *goredis.Client, p string) {
			got := c.SMembers(ctx, p+":set").Val()
			sort.Strings(got)
			equalStrings(t, "SMEMBERS", got, []string{"2024-01-02", "2024-01-03", "2024-01-04"})
		}},
		{"set of rows", `key = "%[1]s:rowset"
			data_type = set`, 0, func(t *testing.T, c *goredis.Client, p string) {
			got := c.SMembers(ctx, p+":rowset").Val()
			sort.Strings(got)
			equalStrings(t, "SMEMBERS", got, []string{peopleJSONOf(p, 0), peopleJSONOf(p, 1), peopleJSONOf(p, 2)})
		}},
		{"zset with score 1", `key = "%[1]s:zset"
			data_type = zset
			value_field = name
			expire = 20`, 0, func(t *testing.T, c *goredis.Client, p string) {
			got := c.ZRangeWithScores(ctx, p+":zset", 0, -1).Val()
			want := []goredis.Z{{Score: 1, Member: "ann"}, {Score: 1, Member: "bob"}, {Score: 1, Member: "cid"}}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %v, want %v", got, want)
			}
			if ttl := c.TTL(ctx, p+":zset").Val(); ttl <= 0 || ttl > 20*time.Second {
				t.Errorf("time to live %v, want 20s at most", ttl)
			}
		}},
		{"value_field naming no field is written as it is", `key = "%[1]s:lit"
			data_type = list
			value_field = "constant"`, 0, func(t *testing.T, c *goredis.Client, p string) {
			equalStrings(t, "LRANGE", c.LRange(ctx, p+":lit", 0, -1).Val(), []string{"constant", "constant", "constant"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := prefix(t, tc.db)
			conf := conn(t) + strings.ReplaceAll(tc.conf, "%[1]s", p)
			s, err := conntest.BuildSink(t, "Redis", conf, peopleTable)
			if err != nil {
				t.Fatal(err)
			}
			// two batches, a checkpoint after each: the first two rows, then the third
			all := people(p)
			first, second := row.NewBatch(4), row.NewBatch(4)
			first.AddRow(&all.Rows[0])
			first.AddRow(&all.Rows[1])
			second.AddRow(&all.Rows[2])
			if err := conntest.Write(t, s, first, second); err != nil {
				t.Fatal(err)
			}
			tc.check(t, client(t, tc.db), p)
		})
	}
}

// A write the server refuses names the key and the data type; a key field that is null
// names the option; bad options name theirs.
func TestSinkErrors(t *testing.T) {
	ctx := context.Background()
	p := prefix(t)
	c := client(t, 0)
	c.Set(ctx, p+":taken", "a string", 0)
	s, err := conntest.BuildSink(t, "Redis", conn(t)+fmt.Sprintf("key = %q\ndata_type = list\n", p+":taken"), peopleTable)
	if err != nil {
		t.Fatal(err)
	}
	err = conntest.Write(t, s, people(p))
	if err == nil || !strings.Contains(err.Error(), p+":taken") || !strings.Contains(err.Error(), "data_type list") ||
		!strings.Contains(err.Error(), "WRONGTYPE") || !connector.IsPermanent(err) {
		t.Errorf("writing a list to a string key: %v", err)
	}

	nulls := people(p)
	nulls.Rows[1].Fields[4] = row.NullValue()
	s, err = conntest.BuildSink(t, "Redis", conn(t)+fmt.Sprintf("key = %q\nsupport_custom_key = true\ndata_type = key\n", p+":${score}"), peopleTable)
	if err != nil {
		t.Fatal(err)
	}
	if err := conntest.Write(t, s, nulls); err == nil || !strings.Contains(err.Error(), "option key") || !strings.Contains(err.Error(), "field score") {
		t.Errorf("a null key field: %v", err)
	}

	for _, tc := range []struct{ conf, option string }{
		{"data_type = list", "key"},
		{"key = a\ndata_type = list\nbatch_size = 0", "batch_size"},
		{"key = a\ndata_type = stream", "data_type"},
		{"key = a\ndata_type = hash\nhash_value_field = score", "hash_key_field"},
		{"key = a\ndata_type = list\nhash_key_field = name", "hash_key_field"},
		{"key = a\ndata_type = list\nmode = cluster\nnodes = [\"127.0.0.1:1\"]\ndb_num = 2", "db_num"},
		{"key = a\ndata_type = list\nmode = cluster\nnodes = [\"nohostport\"]", "nodes"},
	} {
		_, err := conntest.BuildSink(t, "Redis", conn(t)+tc.conf, peopleTable)
		if err == nil || !strings.Contains(err.Error(), tc.option) {
			t.Errorf("%q: %v, want an error naming %s", tc.conf, err, tc.option)
		}
	}
	if _, err := conntest.BuildSink(t, "Redis", "key = a\ndata_type = list\n", peopleTable); err == nil || !strings.Contains(err.Error(), "host") {
		t.Errorf("no host: %v", err)
	}
}

// The source reads each data type into rows, compared row by row.
func TestSourceDataTypes(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		seed func(c *goredis.Client, p string)
		conf string // after the connection's; %[1]s is the key prefix
		db   int
		want []string // the rows' texts, sorted; %[1]s is the key prefix
	}{
		{"key as text", func(c *goredis.Client, p string) {
			for i := 0; i < 25; i++ {
				c.Set(ctx, fmt.Sprintf("%s:s%02d", p, i), fmt.Sprintf("value %d", i), 0)
			}
			c.RPush(ctx, p+":notastring", "x") // another type: not read
		}, `keys = "%[1]s:*"
			data_type = key
			batch_size = 4`, 0, func() []string {
			var out []string
			for i := 0; i < 25; i++ {
				out = append(out, fmt.Sprintf("value %d", i))
			}
			return out
		}()},
		{"string by a json schema, db_num, the key read", func(c *goredis.Client, p string) {
			c.Set(ctx, p+":a", `{"id":1,"name":"ann","score":0.5,"day":"2024-01-02","tags":["x","y"]}`, 0)
			c.Set(ctx, p+":b", `{"id":2,"name":"bob","score":null,"day":"2024-01-03","tags":[]}`, 0)
		}, `keys = "%[1]s:*"
			data_type = string
			db_num = 4
			read_key_enabled = true
			key_field_name = rkey
			format = json
			schema { fields { id = bigint, name = string, score = double, day = date, tags = "array<string>" } }`, 4,
			[]string{"%[1]s:a | 1 | ann | 0.5 | 2024-01-02 | [x, y]", "%[1]s:b | 2 | bob | null | 2024-01-03 | []"}},
		{"key by a text schema", func(c *goredis.Client, p string) {
			c.Set(ctx, p+":a", "1|ann|true", 0)
			c.Set(ctx, p+":b", "2||false", 0)
		}, `keys = "%[1]s:*"
			data_type = key
			format = text
			field_delimiter = "|"
			schema { fields { id = int, name = string, ok = boolean } }`, 0,
			[]string{"1 | ann | true", "2 | null | false"}},
		{"key and value without a schema", func(c *goredis.Client, p string) {
			c.Set(ctx, p+":a", "one", 0)
		}, `keys = "%[1]s:*"
			data_type = key
			read_key_enabled = true
			single_field_name = v`, 0, []string{"%[1]s:a | one"}},
		{"hash as JSON text", func(c *goredis.Client, p string) {
			c.HSet(ctx, p+":h1", "name", "ann", "age", "26")
			c.HSet(ctx, p+":h2", "name", "bob")
		}, `keys = "%[1]s:h*"
			data_type = hash`, 0, []string{`{"age":"26","name":"ann"}`, `{"name":"bob"}`}},
		{"hash by a schema, all", func(c *goredis.Client, p string) {
			c.HSet(ctx, p+":h1", "name", "ann", "age", "26", "pet", `{"kind":"cat","legs":4}`)
			c.HSet(ctx, p+":h2", "name", "bob")
		}, `keys = "%[1]s:h*"
			data_type = hash
			schema { fields { name = string, age = int, pet { kind = string, legs = int } } }`, 0,
			[]string{"ann | 26 | [cat, 4]", "bob | null | null"}},
		{"hash by a schema, kv", func(c *goredis.Client, p string) {
			c.HSet(ctx, p+":h1", "001", `{"name":"tyrantlucifer","age":26}`, "002", `{"name":"Zongwen","age":26}`)
		}, `keys = "%[1]s:h*"
			data_type = hash
			hash_key_parse_mode = kv
			schema { fields { hash_key = string, name = string, age = int } }`, 0,
			[]string{"001 | tyrantlucifer | 26", "002 | Zongwen | 26"}},
		{"list, every element", func(c *goredis.Client, p string) {
			for i := 0; i < 12; i++ {
				c.RPush(ctx, fmt.Sprintf("%s:l%d", p, i%3), fmt.Sprintf("v%02d", i))
			}
		}, `keys = "%[1]s:l*"
			data_type = list
			batch_size = 1`, 0, []string{"v00", "v01", "v02", "v03", "v04", "v05", "v06", "v07", "v08", "v09", "v10", "v11"}},
		{"set, the key read", func(c *goredis.Client, p string) {
			c.SAdd(ctx, p+":s1", "a", "b")
			c.SAdd(ctx, p+":s2", "a")
		}, `keys = "%[1]s:s*"
			data_type = set
			read_key_enabled = true`, 0, []string{"%[1]s:s1 | a", "%[1]s:s1 | b", "%[1]s:s2 | a"}},
		{"zset by a json schema", func(c *goredis.Client, p string) {
			c.ZAdd(ctx, p+":z", goredis.Z{Score: 2, Member: `{"id":2}`}, goredis.Z{Score: 1, Member: `{"id":1}`})
		}, `keys = "%[1]s:z*"
			data_type = zset
			schema { fields { id = int } }`, 0, []string{"1", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := prefix(t, tc.db)
			tc.seed(client(t, tc.db), p)
			src := mustSource(t, conn(t)+strings.ReplaceAll(tc.conf, "%[1]s", p))
			var want []string
			for _, w := range tc.want {
				want = append(want, strings.ReplaceAll(w, "%[1]s", p))
			}
			sort.Strings(want)
			rows := conntest.AllRows(t, src, 1)
			equalStrings(t, "rows", sortedTexts(rows), want)
			for _, r := range rows {
				if r.Table != src.Tables()[0].ID() || r.Kind != row.Insert {
					t.Errorf("row %s of table %s, kind %v", rowText(r.Fields), r.Table, r.Kind)
				}
			}
		})
	}
}

// Rows written as JSON by the sink read back by the source with the same schema, value by
// value; a value that is not JSON fails naming its key.
func TestRoundTrip(t *testing.T) {
	p := prefix(t)
	s, err := conntest.BuildSink(t, "Redis", conn(t)+fmt.Sprintf("key = %q\nsupport_custom_key = true\ndata_type = key\n", p+":${id}"), peopleTable)
	if err != nil {
		t.Fatal(err)
	}
	in := people(p)
	if err := conntest.Write(t, s, in); err != nil {
		t.Fatal(err)
	}
	src := mustSource(t, conn(t)+fmt.Sprintf(`keys = %q
		data_type = key
		schema { fields { id = bigint, k = string, name = string, ok = boolean, score = double, day = date, ts = timestamp } }`, p+":*"))
	got := conntest.AllRows(t, src, 1)
	sort.Slice(got, func(i, j int) bool { return got[i].Fields[0].I < got[j].Fields[0].I })
	if len(got) != len(in.Rows) {
		t.Fatalf("%d rows, want %d", len(got), len(in.Rows))
	}
	for i := range got {
		for j, v := range got[i].Fields {
			if !row.Equal(v, in.Rows[i].Fields[j]) {
				t.Errorf("row %d, %s: got %s, want %s", i, peopleTable.Columns[j].Name, row.AppendText(nil, v), row.AppendText(nil, in.Rows[i].Fields[j]))
			}
		}
	}

	client(t, 0).Set(context.Background(), p+":bad", "not json", 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := conntest.Rows(ctx, src, 1); err == nil || !strings.Contains(err.Error(), p+":bad") {
		t.Errorf("a value that is not JSON: %v", err)
	}
}

// A reader's snapshot taken between polls, restored into a new reader, reads the rest: every
// row once.
func TestSourceRestore(t *testing.T) {
	ctx := context.Background()
	p := prefix(t)
	c := client(t, 0)
	for i := 0; i < 40; i++ {
		c.RPush(ctx, fmt.Sprintf("%s:l%02d", p, i), "a", "b", "c")
	}
	src := mustSource(t, conn(t)+fmt.Sprintf("keys = %q\ndata_type = list\nbatch_size = 5\nread_key_enabled = true\n", p+":*"))
	ec := conntest.NewEnumContext(1)
	conntest.RunEnumerator(ctx, t, src, ec, nil)
	seen := map[string]int{}
	r := conntest.OpenReader(t, src, connector.ReaderContext{Parallelism: 1}, ec.Assigned[0])
	out := row.NewBatch(4) // fewer rows than a step holds: a snapshot falls inside a step
	for polls := 0; polls < 7; polls++ {
		out.Reset()
		conntest.Poll(ctx, t, r, out)
		for _, rw := range out.Rows {
			seen[rowText(rw.Fields)]++
		}
	}
	state, err := r.SnapshotState(1)
	if err != nil || len(state) != 1 {
		t.Fatalf("snapshot %v, %v", state, err)
	}
	r.Close()
	r = conntest.OpenReader(t, src, connector.ReaderContext{Parallelism: 1}, state)
	for done := false; !done; {
		out.Reset()
		done = conntest.Poll(ctx, t, r, out)
		for _, rw := range out.Rows {
			seen[rowText(rw.Fields)]++
		}
	}
	r.Close()
	conntest.EachOnce(t, seen, 120)
}

// SCAN returns a key again when the keyspace shrinks during the scan (the server's table
// is resized to fewer buckets and the cursor's buckets are walked anew): the source reads
// each key once all the same. Most of a database's keys are deleted part-way through a read
// with one key a SCAN step, and the read goes on once the server has shrunk its table.
func TestSourceKeyspaceShrinks(t *testing.T) {
	const db, targets, fillers = 7, 64, 8000
	ctx := context.Background()
	p := prefix(t, db)
	c := client(t, db)
	for i := 0; i < fillers; i += 500 {
		kv := make([]any, 0, 1000)
		for j := i; j < i+500; j++ {
			kv = append(kv, fmt.Sprintf("%s:f:%d", p, j), "x")
		}
		if err := c.MSet(ctx, kv...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < targets; i++ {
		c.Set(ctx, fmt.Sprintf("%s:t:%02d", p, i), fmt.Sprintf("v%02d", i), 0)
	}
	mainTable := func() int64 { return hashTableBytes(t, c, db) }
	full := mainTable()
	src := mustSource(t, conn(t)+fmt.Sprintf("db_num = %d\nkeys = %q\ndata_type = key\nbatch_size = 1\n", db, p+":t:*"))
	ec := conntest.NewEnumContext(1)
	conntest.RunEnumerator(ctx, t, src, ec, nil)
	r := conntest.OpenReader(t, src, connector.ReaderContext{Parallelism: 1}, ec.Assigned[0])
	defer r.Close()
	seen := map[string]int{}
	out := row.NewBatch(16)
	poll := func() bool {
		out.Reset()
		done := conntest.Poll(ctx, t, r, out)
		for _, rw := range out.Rows {
			seen[rowText(rw.Fields)]++
		}
		return done
	}
	for len(seen) < targets*3/8 {
		if poll() {
			t.Fatalf("the read ended after %d keys", len(seen))
		}
	}
	pipe := c.Pipeline()
	for i := 0; i < fillers; i++ {
		pipe.Unlink(ctx, fmt.Sprintf("%s:f:%d", p, i))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for mainTable() > full/8 {
		if time.Now().After(deadline) {
			t.Fatalf("the server's table of database %d did not shrink: %d bytes, %d when full", db, mainTable(), full)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for !poll() {
	}
	conntest.EachOnce(t, seen, targets)
}

// hashTableBytes is the size of database db's table of keys (MEMORY STATS
// overhead.hashtable.main), which falls when the server shrinks the table.
func hashTableBytes(t *testing.T, c *goredis.Client, db int) int64 {
	t.Helper()
	stats, err := c.Do(context.Background(), "MEMORY", "STATS").Result()
	if err != nil {
		t.Fatalf("MEMORY STATS: %v", err)
	}
	if n, ok := field(field(stats, fmt.Sprintf("db.%d", db)), "overhead.hashtable.main").(int64); ok {
		return n
	}
	t.Fatalf("MEMORY STATS has no overhead.hashtable.main of db.%d: %v", db, stats)
	return 0
}

// field is the value of name in a reply that is a map (RESP3) or a list of names and
// values (RESP2).
func field(reply any, name string) any {
	switch m := reply.(type) {
	case map[any]any:
		return m[name]
	case []any:
		for i := 0; i+1 < len(m); i += 2 {
			if m[i] == name {
				return m[i+1]
			}
		}
	}
	return nil
}

// Options the source refuses name themselves.
func TestSourceOptions(t *testing.T) {
	for _, tc := range []struct{ conf, option string }{
		{"data_type = key", "keys"},
		{"keys = \"a*\"\ndata_type = key\nformat = json", "schema"},
		{"keys = \"a*\"\ndata_type = key\nbatch_size = 0", "batch_size"},
		{"keys = \"a*\"\ndata_type = queue", "data_type"},
		{"keys = \"a*\"\ndata_type = key\nport = 0", "port"},
	} {
		_, err := buildSource(t, conn(t)+tc.conf)
		if err == nil || !strings.Contains(err.Error(), tc.option) {
			t.Errorf("%q: %v, want an error naming %s", tc.conf, err, tc.option)
		}
	}
	if _, err := buildSource(t, "keys = \"a*\"\ndata_type = key\nmode = cluster"); err == nil || !strings.Contains(err.Error(), "nodes") {
		t.Errorf("cluster mode without nodes: %v", err)
	}
}

// In cluster mode the sink's keys spread over the masters, and the source scans every
// master (a split each) with two readers.
func TestCluster(t *testing.T) {
	ctx := context.Background()
	nodes := clusterNodes(t)
	o := server(t)
	cc := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: nodes, Password: o.Password})
	defer cc.Close()
	if err := cc.Ping(ctx).Err(); err != nil {
		t.Fatalf("the Redis Cluster of STRAIT_TEST_REDIS_CLUSTER does not answer: %v (make redis starts it)", err)
	}
	p := fmt.Sprintf("strait-test:cluster:%d", time.Now().UnixNano())
	t.Cleanup(func() {
		_ = cc.ForEachMaster(ctx, func(ctx context.Context, c *goredis.Client) error { deleteKeys(c, p+"*"); return nil })
	})
	quoted := make([]string, len(nodes))
	for i, n := range nodes {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	connConf := fmt.Sprintf("mode = cluster\nnodes = [%s]\nauth = %q\n", strings.Join(quoted, ", "), o.Password)
	tbl := conntest.Table("t", "id", "int", "name", "string")
	b := row.NewBatch(64)
	for i := 0; i < 50; i++ {
		r := b.Add(row.Insert, tbl.ID(), 2)
		r.Fields[0] = row.IntValue(int32(i))
		r.Fields[1] = row.StringValue(fmt.Sprintf("n%02d", i))
	}
	for _, dt := range []string{"key", "list"} {
		s, err := conntest.BuildSink(t, "Redis", connConf+fmt.Sprintf("key = %q\nsupport_custom_key = true\ndata_type = %s\nbatch_size = 7\nexpire = 600\nvalue_field = name\n", p+":"+dt+":${id}", dt), tbl)
		if err != nil {
			t.Fatal(err)
		}
		if err := conntest.Write(t, s, b); err != nil {
			t.Fatal(err)
		}
	}
	masters := map[string]bool{}
	for i := 0; i < 50; i++ {
		k := fmt.Sprintf("%s:key:%d", p, i)
		if got := cc.Get(ctx, k).Val(); got != fmt.Sprintf("n%02d", i) {
			t.Errorf("%s: %q", k, got)
		}
		if got := cc.LRange(ctx, fmt.Sprintf("%s:list:%d", p, i), 0, -1).Val(); fmt.Sprint(got) != fmt.Sprintf("[n%02d]", i) {
			t.Errorf("list %d: %q", i, got)
		}
		if ttl := cc.TTL(ctx, k).Val(); ttl <= 0 || ttl > 600*time.Second {
			t.Errorf("%s: time to live %v", k, ttl)
		}
		slot := cc.ClusterKeySlot(ctx, k).Val()
		for _, sl := range cc.ClusterSlots(ctx).Val() {
			if int64(sl.Start) <= slot && slot <= int64(sl.End) {
				masters[sl.Nodes[0].Addr] = true
			}
		}
	}
	if len(masters) < 2 {
		t.Errorf("the keys are on %d masters, want them spread", len(masters))
	}

	src := mustSource(t, connConf+fmt.Sprintf("keys = %q\ndata_type = key\nbatch_size = 3\n", p+":key:*"))
	rows := conntest.AllRows(t, src, 2)
	var want []string
	for i := 0; i < 50; i++ {
		want = append(want, fmt.Sprintf("n%02d", i))
	}
	equalStrings(t, "rows", sortedTexts(rows), want)
}

// buildSource builds the Redis source of a batch job with one reader.
// mustSource builds the source of conf for a BATCH job of one reader; an error fails the
// test.
func mustSource(t *testing.T, conf string) connector.Source {
	t.Helper()
	return conntest.MustSource(t, "Redis", conf, connector.Batch, 1)
}

func buildSource(t *testing.T, conf string) (connector.Source, error) {
	return conntest.BuildSource(t, "Redis", conf, connector.Batch, 1)
}
