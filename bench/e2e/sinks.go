package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The sinks of Elasticsearch and Redis beside a bare client loop writing the same documents
// and keys in requests of the same size: FakeSource rows of the comparison's six fields,
// written as JSON, 1,000 a request on both sides (max_batch_size and batch_size; SeaTunnel's
// default of 10 costs a round trip every 10 rows on both alike). The loop formats each
// document with fmt and sends the requests one after another, as the sink does; Strait's time
// is its job's, which also generates the rows.

var sinkRows = flag.Int("sink-rows", 200_000, "rows for the Elasticsearch and Redis sink comparisons (0 skips them)")

func sinkBench(bin, dir string, procs int) {
	rows := *sinkRows
	if rows <= 0 {
		return
	}
	fmt.Printf("sinks against their bare client loops, %d rows of 6 fields, 1,000 a request, GOMAXPROCS=%d, median of 3 runs:\n", rows, procs)
	job := func(sink string) float64 {
		f := fmt.Sprintf("%s/sink-%d.conf", dir, time.Now().UnixNano())
		writeFile(f, fmt.Sprintf(`env { job.mode = BATCH, parallelism = 1 }
source { FakeSource { plugin_output = "t", row.num = %d, string.length = 12, %s } }
sink { %s }
`, rows, kafkaSchema, sink))
		return runJob(bin, f, procs).jobSecs
	}
	measure := func(name, anchor string, bare, strait func() float64) {
		var b, s []float64
		for range 3 {
			b = append(b, bare())
			s = append(s, strait())
		}
		results.add(comparison{Section: "sinks", Name: name, Rows: rows, Secs: median(s), Anchor: anchor,
			AnchorSecs: median(b), Runs: 3, Note: "job time, the rows generated too"})
	}

	if es := os.Getenv("STRAIT_TEST_ELASTICSEARCH"); es == "" {
		fmt.Println("  Elasticsearch: not measured (STRAIT_TEST_ELASTICSEARCH is not set; make zincsearch starts the test server)")
	} else {
		n := 0
		index := func() string { n++; return fmt.Sprintf("bench-%d-%d", time.Now().Unix(), n) }
		measure("FakeSource -> Elasticsearch", "net/http bulk loop",
			func() float64 { return bareBulk(es, index(), rows, procs) },
			func() float64 {
				idx := index()
				defer deleteIndex(es, idx)
				return job(fmt.Sprintf("Elasticsearch { plugin_input = \"t\", hosts = [%q], index = %q, max_batch_size = 1000 }", es, idx))
			})
	}

	if rs := os.Getenv("STRAIT_TEST_REDIS"); rs == "" {
		fmt.Println("  Redis: not measured (STRAIT_TEST_REDIS is not set; make redis starts the test server)")
	} else {
		o, err := redis.ParseURL(rs)
		if err != nil {
			fail(fmt.Errorf("STRAIT_TEST_REDIS: %w", err))
		}
		o.DB = 15 // a database of the benchmark's own, emptied before each run
		cl := redis.NewClient(o)
		defer cl.Close()
		flush := func() {
			if err := cl.FlushDB(context.Background()).Err(); err != nil {
				fail(fmt.Errorf("redis flushdb: %w", err))
			}
		}
		host, port, _ := net.SplitHostPort(o.Addr)
		measure("FakeSource -> Redis (key)", "go-redis pipeline loop",
			func() float64 { flush(); return bareRedis(cl, rows, procs) },
			func() float64 {
				flush()
				return job(fmt.Sprintf(`Redis { plugin_input = "t", host = %q, port = %s, auth = %q, db_num = 15, data_type = key,
  key = "bench:${id}", support_custom_key = true, batch_size = 1000 }`, host, port, o.Password))
			})
		flush()
	}
}

// bareBulk indexes rows documents into index in bulk requests of 1,000, one after another.
func bareBulk(server, index string, rows, procs int) float64 {
	defer deleteIndex(server, index)
	base, user, pass := splitCredentials(server)
	action := fmt.Appendf(nil, `{"index":{"_index":%q}}`+"\n", index)
	var body []byte
	return onCores(procs, func() error {
		for i := 0; i < rows; {
			body = body[:0]
			for end := min(i+1000, rows); i < end; i++ {
				body = append(body, action...)
				body = append(kafkaRecord(body, i), '\n')
			}
			req, err := http.NewRequest(http.MethodPost, base+"/_bulk", bytes.NewReader(body))
			if err != nil {
				return err
			}
			req.Header.Set("Content-Type", "application/x-ndjson")
			req.SetBasicAuth(user, pass)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			var r struct {
				Errors bool `json:"errors"`
			}
			err = json.NewDecoder(resp.Body).Decode(&r)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || r.Errors {
				return fmt.Errorf("bulk request: status %s, errors %t, %v", resp.Status, r.Errors, err)
			}
		}
		return nil
	})
}

func deleteIndex(server, index string) {
	base, user, pass := splitCredentials(server)
	req, _ := http.NewRequest(http.MethodDelete, base+"/"+index, nil)
	req.SetBasicAuth(user, pass)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// splitCredentials takes the user and password out of a URL.
func splitCredentials(server string) (base, user, pass string) {
	u, err := url.Parse(server)
	if err != nil {
		fail(fmt.Errorf("STRAIT_TEST_ELASTICSEARCH: %w", err))
	}
	user = u.User.Username()
	pass, _ = u.User.Password()
	u.User = nil
	return u.String(), user, pass
}

// bareRedis SETs rows keys bench:<id> to their documents in pipelines of 1,000.
func bareRedis(cl *redis.Client, rows, procs int) float64 {
	ctx := context.Background()
	var doc []byte
	return onCores(procs, func() error {
		for i := 0; i < rows; {
			p := cl.Pipeline()
			for end := min(i+1000, rows); i < end; i++ {
				doc = kafkaRecord(doc[:0], i)
				p.Set(ctx, "bench:"+strconv.Itoa(i), string(doc), 0)
			}
			if _, err := p.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
