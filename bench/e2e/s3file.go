package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The S3File comparison: S3File json → S3File json (transactional: staged, then committed by
// copies in the bucket) on the same JSON lines as the LocalFile comparison, in the test S3
// server, beside the LocalFile job and the bare Go loop of the same run.

// s3FileOptions are an S3File plugin's options on the test server (STRAIT_TEST_S3 and its
// identity, the bucket scripts/s3.sh creates).
func s3FileOptions(path string) string {
	return fmt.Sprintf(`bucket = "s3a://strait-test", path = %q, fs.s3a.endpoint = %q,
  fs.s3a.aws.credentials.provider = "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
  access_key = %q, secret_key = %q`, path, os.Getenv("STRAIT_TEST_S3"), os.Getenv("STRAIT_TEST_S3_ACCESS_KEY"), os.Getenv("STRAIT_TEST_S3_SECRET_KEY"))
}

const fileSchema = `schema = { fields { id = bigint, name = string, city = string, score = double, active = boolean, note = string } }`

func s3FileJobs(bin, dir string, rows, procs int) {
	if os.Getenv("STRAIT_TEST_S3") == "" {
		fmt.Println("S3File: not measured (STRAIT_TEST_S3 is not set; make bench starts SeaweedFS)")
		return
	}
	in := filepath.Join(dir, "s3in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		fail(err)
	}
	writeJSONLines(filepath.Join(in, "data.json"), rows)
	prefix := fmt.Sprintf("/bench-s3file-%d", time.Now().UnixNano())
	// the input goes up through a job of its own: LocalFile → S3File
	upload := filepath.Join(dir, "s3-upload.conf")
	writeFile(upload, fmt.Sprintf(`env { job.mode = "BATCH", parallelism = 1 }
source { LocalFile { path = %q, file_format_type = json, %s } }
sink { S3File { %s, file_format_type = json } }
`, in, fileSchema, s3FileOptions(prefix+"/in")))
	if r := runJob(bin, upload, procs); r.jobSecs == 0 {
		fail(fmt.Errorf("S3File: the upload job did not run"))
	}
	var s3T, localT, anchorT []float64
	var s3RSS int64
	for run := range 3 {
		job := filepath.Join(dir, "s3file.conf")
		writeFile(job, fmt.Sprintf(`env { job.mode = "BATCH", parallelism = 1 }
source { S3File { %s, file_format_type = json, %s } }
sink { S3File { %s, file_format_type = json } }
`, s3FileOptions(prefix+"/in"), fileSchema, s3FileOptions(fmt.Sprintf("%s/out-%d", prefix, run))))
		r := runJob(bin, job, procs)
		s3T, s3RSS = append(s3T, r.jobSecs), max(s3RSS, r.maxRSSKB/1024)
		localT = append(localT, runJob(bin, fileJobConf(dir, in, ""), procs).jobSecs)
		s, _ := runAnchor("json", procs, filepath.Join(in, "data.json"), filepath.Join(dir, "anchor.json"))
		anchorT = append(anchorT, s)
	}
	results.add(comparison{Section: "files", Name: "S3File json -> S3File json (transactional)", Rows: rows, Secs: median(s3T), PeakRSSMB: s3RSS,
		Anchor: "LocalFile json -> json", AnchorSecs: median(localT), Runs: 3,
		Note: fmt.Sprintf("job time; the Go encoding/json loop took %.2f s; SeaweedFS on the same 2 cores", median(anchorT))})
}
