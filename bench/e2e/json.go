package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The LocalFile comparison: json → json jobs on JSON lines of about 100 bytes made here,
// against a bare Go loop decoding each line into typed fields and encoding it again.

const fileJob = `env { job.mode = "BATCH", parallelism = 1 }
source { LocalFile { path = "%s", file_format_type = json, plugin_output = "t",
  schema = { fields { id = bigint, name = string, city = string, score = double, active = boolean, note = string } } } }
%s
sink { LocalFile { path = "%s", tmp_path = "%s", file_format_type = json } }
`

// fileJobs measures LocalFile json → LocalFile json (transactional) against the bare loop,
// and the same job with a Sql transform between.
func fileJobs(bin, dir string, rows, procs int) {
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		fail(err)
	}
	input := filepath.Join(in, "data.json")
	writeJSONLines(input, rows)
	fmt.Printf("LocalFile json, %d lines of ~100 bytes, GOMAXPROCS=%d (median of 3 runs):\n", rows, procs)
	var anchorT, plainT, sqlT []float64
	var anchorRSS, plainRSS int64
	for range 3 {
		s, rss := runAnchor("json", procs, input, filepath.Join(dir, "anchor.json"))
		anchorT, anchorRSS = append(anchorT, s), max(anchorRSS, rss)
		r := runJob(bin, fileJobConf(dir, in, ""), procs)
		plainT, plainRSS = append(plainT, r.jobSecs), max(plainRSS, r.maxRSSKB/1024)
		sqlT = append(sqlT, runJob(bin, fileJobConf(dir, in, `transform { Sql { plugin_input = "t", plugin_output = "u", query = "select *, 'even' as tag from t where id % 2 = 0" } }`), procs).jobSecs)
	}
	results.add(comparison{Section: "files", Name: "LocalFile json -> json (transactional)", Rows: rows, Secs: median(plainT), PeakRSSMB: plainRSS,
		Anchor: "Go encoding/json decode+encode loop", AnchorSecs: median(anchorT), AnchorPeakRSSMB: anchorRSS, Runs: 3, Note: "job time"})
	results.add(comparison{Section: "files", Name: "LocalFile json -> Sql -> json", Rows: rows, Secs: median(sqlT),
		Anchor: "Go encoding/json decode+encode loop", AnchorSecs: median(anchorT), Runs: 3, Note: "job time; half the rows are written"})
}

func writeJSONLines(path string, rows int) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < rows; i++ {
		fmt.Fprintf(w, `{"id":%d,"name":"name-%07d","city":"Lisbon","score":%d.5,"active":%t,"note":"benchmark row"}`+"\n", i, i, i%1000, i%2 == 0)
	}
	if err := w.Flush(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

// fileJobConf writes the json → json job (with transform between, when given) and returns
// its path; every run writes to a folder of its own.
func fileJobConf(dir, in, transform string) string {
	out := filepath.Join(dir, "out-"+fmt.Sprint(time.Now().UnixNano()))
	text := fmt.Sprintf(fileJob, in, transform, out, filepath.Join(dir, "tmp"))
	if transform != "" {
		text = strings.Replace(text, `file_format_type = json } }
`, `file_format_type = json, plugin_input = "u" } }
`, 1)
	}
	job := filepath.Join(dir, "file.conf")
	writeFile(job, text)
	return job
}
