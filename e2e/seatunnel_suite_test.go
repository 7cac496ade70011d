package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// suiteCase is one config of SeaTunnel's end-to-end suite, run as the SeaTunnel test named in
// it runs the config: the same variables, the same expected exit code, the same checks.
type suiteCase struct {
	file string   // under testdata/seatunnel-e2e
	it   string   // the SeaTunnel test (class.method) that runs it
	args []string // strait run flags before the file: -i variables, -slots, -n
	code int      // 0 FINISHED, 1 FAILED
	want []string // text the output must hold (an error's cause, a job name, counts)
}

// The SeaTunnel engine's test cluster gives a job as many slots as it asks for; the slot
// tests fix the number: slot-num 3 (not enough for parallelism 4) and 10.
var suiteCases = []suiteCase{
	// seatunnel-transforms-v2-e2e
	{file: "transform-v2/filter_row_kind_exclude_insert.conf", it: "TestFilterRowKindIT.testFilterRowKind"},
	{file: "transform-v2/filter_row_kind_include_insert.conf", it: "TestFilterRowKindIT.testFilterRowKind"},
	{file: "transform-v2/rowkind_extractor_transform_case1.conf", it: "TestRowKindExtractorTransformIT.testRowKindExtractorTransform"},
	{file: "transform-v2/rowkind_extractor_transform_case2.conf", it: "TestRowKindExtractorTransformIT.testRowKindExtractorTransform"},
	{file: "transform-v2/spark_date_time_transform.conf", it: "TestSparkDateTimeTransformIT.testSparkDateTimeTransform"},
	{file: "transform-v2/json_path_transform/json_path_basic_type_test.conf", it: "TestJsonPathTransformIT.testBasicType"},
	{file: "transform-v2/json_path_transform/array_test.conf", it: "TestJsonPathTransformIT.testArray"},
	{file: "transform-v2/json_path_transform/nested_row_test.conf", it: "TestJsonPathTransformIT.testNestedRow"},
	{file: "transform-v2/json_path_transform/json_path_with_error_handle_way.conf", it: "TestJsonPathTransformIT.testErrorHandleWay"},
	{file: "transform-v2/sql_transform/func_numeric.conf", it: "TestSQLIT.testSQLTransform"},
	{file: "transform-v2/sql_transform/func_datetime.conf", it: "TestSQLIT.testSQLTransform"},
	{file: "transform-v2/sql_transform/func_system.conf", it: "TestSQLIT.testSQLTransform"},
	{file: "transform-v2/sql_transform/func_from_unixtime.conf", it: "TestSQLIT.testSQLTransform"},
	{file: "transform-v2/sql_transform/sql_all_columns.conf", it: "TestSQLIT.testSQLTransform"},
	{file: "transform-v2/sql_transform/inner_query.conf", it: "TestSQLIT.testInnerQuery"},

	// connector-fake-e2e
	{file: "fake/fake_generic_row_type_to_assert.conf", it: "FakeIT.testFakeConnector"},
	{file: "fake/fake_to_assert_with_catalogtable.conf", it: "FakeWithSchemaTT.testFakeConnector"},
	{file: "fake/fake_to_assert_with_tablenames.conf", it: "FakeWithTableNamesTT.testFakeConnector"},
	{file: "fake/fake_to_console_with_multitable_mode.conf", it: "FakeWithMultiTableTT.testFakeConnector"},
	{file: "fake/fake_to_assert_with_multitable_exception.conf", it: "FakeWithMultiTableTT.testFakeConnector", code: 1,
		want: []string{"fields=[3, C, 200]", "field score = 200 breaks rule_type MAX with rule_value 100.0"}},
	// SeaTunnel reads these counts from Flink's REST API; strait run prints them
	{file: "fake/fake_to_assert_verify_flink_metrics.conf", it: "FlinkMetricsIT.testFlinkMetrics",
		want: []string{"Total Read Count : 5", "Total Write Count : 5"}},

	// connector-assert-e2e
	{file: "assert/fakesource_to_multi_table_assert.conf", it: "FakeSourceToAssertIT.testFakeSourceToMultiAssertSink"},

	// seatunnel-engine-e2e
	{file: "console/fakesource_to_console.conf", it: "FakeSourceToConsoleIT.testFakeSourceToConsoleSink"},
	{file: "engine/fake_to_console_with_default_value.variables.conf", it: "UserVariableIT.userVariableWithDefaultValueTest",
		args: []string{"-i", "strTemplate=[abc,def]", "-i", "ageType=int", "-i", "nameVal=abc", "-i", "sourceTableName=sql"},
		want: []string{"Job Name : fake_to_console_with_default_value"}},
	{file: "engine/batch_fakesource_to_file.conf", it: "JobExecutionIT.testExecuteJob", args: []string{"-n", "fake_to_file"},
		want: []string{"Job Name : fake_to_file"}},
	{file: "engine/batch_fakesource_to_console_error.conf", it: "JobExecutionIT.testGetErrorInfo", code: 1,
		want: []string{"evaluating CAST(name AS int): cannot cast"}},
	{file: "engine/valid_job_name.conf", it: "JobExecutionIT.testValidJobNameInJobConfig",
		want: []string{"Job Name : valid_job_name"}},
	{file: "engine/batch_slot_not_enough.conf", it: "SeaTunnelSlotIT.testSlotNotEnough, JobClientJobProxyIT.testJobFailedWillThrowException",
		args: []string{"-slots", "3"}, code: 1, want: []string{"not enough resources", "4 slots"}},
	{file: "engine/batch_slot_not_enough.conf", it: "SeaTunnelSlotIT.testSlotEnough", args: []string{"-slots", "10"}},
	// no SeaTunnel test runs it; it is a batch job like its neighbours and finishes
	{file: "engine/batch_fakesource_to_file_complex.conf"},
}

// TestSeaTunnelSuite runs the configs of SeaTunnel's suite that one strait run checks.
func TestSeaTunnelSuite(t *testing.T) {
	for _, dir := range []string{"/tmp/hive/warehouse/test1", "/tmp/hive/warehouse/test2"} {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range suiteCases {
		name := c.file
		if len(c.args) > 0 {
			name += " " + strings.Join(c.args, " ")
		}
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(seatunnel(c.file)); err != nil {
				t.Fatalf("%s (run by %s): %v", c.file, c.it, err)
			}
			code, out := run(t, append(append([]string{"run"}, c.args...), seatunnel(c.file))...)
			checkRun(t, c.it, code, out, c.code, c.want...)
		})
	}
}

// checkRun checks a strait run's exit code, its job summary and the text it must print.
func checkRun(t *testing.T, it string, code int, out string, wantCode int, want ...string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("%s: exit %d, want %d\n%s", it, code, wantCode, tail(out, 30))
	}
	state := "FINISHED"
	if wantCode != 0 {
		state = "FAILED"
	}
	if !strings.Contains(out, "Job Statistic Information") || !regexp.MustCompile(`Job State\s+:\s+`+state).MatchString(out) {
		t.Fatalf("%s: no job summary with state %s:\n%s", it, state, tail(out, 30))
	}
	for _, w := range want {
		if !holds(out, w) {
			t.Errorf("%s: the output does not hold %q:\n%s", it, w, tail(out, 30))
		}
	}
}

var spaces = regexp.MustCompile(`\s+`)

// holds reports whether the output has the text, or a line that is the text once runs of
// spaces are one space (the job summary pads its columns: "Job Name : valid_job_name").
func holds(out, text string) bool {
	if strings.Contains(out, text) {
		return true
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(spaces.ReplaceAllString(line, " ")) == text {
			return true
		}
	}
	return false
}

// fromTemplate writes a config made from one of SeaTunnel's templates as its tests do
// (TestUtils.createTestConfigFileFromTemplate): each ${key} of the map replaced by its
// value, every other ${...} left as it is.
func fromTemplate(t *testing.T, template string, values map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(seatunnel(template))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for k, v := range values {
		text = strings.ReplaceAll(text, "${"+k+"}", v)
	}
	return writeFile(t, strings.ReplaceAll(filepath.Base(template), "template", "job"), text)
}

// TestSeaTunnelSuiteTextHeader is TextHeaderIT: the header template with text and csv, the
// header written or not; the first line of every file in /tmp/text is the header exactly when
// it is written.
func TestSeaTunnelSuiteTextHeader(t *testing.T) {
	const dir = "/tmp/text"
	cases := []struct{ format, write, header string }{
		{"text", "true", "name\x01age"},
		{"text", "false", "name\x01age"},
		{"csv", "true", "name,age"},
		{"csv", "false", "name,age"},
	}
	for _, c := range cases {
		t.Run(c.format+" "+c.write, func(t *testing.T) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			job := fromTemplate(t, "engine/batch_fakesource_to_file_header.conf",
				map[string]string{"file_format_type": c.format, "enable_header_write": c.write})
			code, out := run(t, "run", "-n", c.write, job)
			checkRun(t, "TextHeaderIT.testEnableWriteHeader", code, out, 0)
			files, err := os.ReadDir(dir)
			if err != nil || len(files) == 0 {
				t.Fatalf("no files in %s: %v", dir, err)
			}
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(dir, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				first, _, _ := strings.Cut(string(b), "\n")
				if (first == c.header) != (c.write == "true") {
					t.Errorf("%s: first line %q, header %q, enable_header_write %s", f.Name(), first, c.header, c.write)
				}
			}
		})
	}
}

// TestSeaTunnelSuiteBatchCheckpointDisabled is the checkpoint-disabled half of
// CheckpointEnableIT.testZetaBatchCheckpointEnable, in its order: the job without
// checkpoints, the Assert job counting exactly its 100 rows, then the job with a checkpoint
// timeout but no checkpoints. (The enabled half is TestSeaTunnelCheckpointBatch.)
func TestSeaTunnelSuiteBatchCheckpointDisabled(t *testing.T) {
	if err := os.RemoveAll("/tmp/seatunnel/config/checkpoint-batch-disable-test-resources"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		"batch_fakesource_to_localfile_checkpoint_disable.conf",
		"sink_file_text_to_assert.conf",
		"batch_fakesource_to_localfile_checkpoint_disable_withtimeout.conf",
	} {
		code, out := run(t, "run", seatunnel("checkpoint", "batch-disable", f))
		checkRun(t, "CheckpointEnableIT.testZetaBatchCheckpointEnable "+f, code, out, 0)
	}
}

// TestSeaTunnelSuiteStreamingCheckpointInterval is
// CheckpointEnableIT.testZetaStreamingCheckpointInterval: the STREAMING job with a checkpoint
// every 3 s under a fixed id, a savepoint once a checkpoint has committed rows, a restore under
// the same id, then the Assert job counts exactly the 100 rows.
func TestSeaTunnelSuiteStreamingCheckpointInterval(t *testing.T) {
	const sinkDir = "/tmp/seatunnel/config/checkpoint-streaming-enable-test-resources/sinkfile"
	if err := os.RemoveAll(filepath.Dir(sinkDir)); err != nil {
		t.Fatal(err)
	}
	addr := startDev(t)
	job := seatunnel("checkpoint", "streaming", "stream_fakesource_to_localfile_interval.conf")
	const id = "20260102"
	if code, out := run(t, "job", "submit", "--address", addr, "--job-id", id, job); code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	// 100 rows in 5 splits read 3 s apart: the first checkpoints commit some, not all
	eventually(t, 60*time.Second, "a checkpoint commits rows", func() bool { return countLines(sinkDir) > 0 })
	code, out := run(t, "job", "savepoint", "--address", addr, id)
	if code != 0 || !strings.Contains(out, "SAVEPOINT_DONE") {
		t.Fatalf("savepoint: exit %d\n%s", code, out)
	}
	if n := countLines(sinkDir); n >= 100 {
		t.Logf("every row was committed before the savepoint (%d lines): the restore has nothing left to read", n)
	}
	if code, out := run(t, "job", "restore", "--address", addr, id, job); code != 0 {
		t.Fatalf("restore: exit %d\n%s", code, out)
	}
	eventually(t, 90*time.Second, "100 rows committed", func() bool { return countLines(sinkDir) >= 100 })
	if code, out := run(t, "job", "cancel", "--address", addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, out)
	}
	code, out = run(t, "run", seatunnel("checkpoint", "streaming", "sink_file_text_to_assert.conf"))
	if code != 0 {
		t.Fatalf("assert: exit %d (%d lines)\n%s", code, countLines(sinkDir), tail(out, 20))
	}
}

// TestSeaTunnelSuiteCluster runs the engine tests that need a cluster on one of separate
// processes: Temporal, a worker and two runners tagged as SeaTunnel's test members are
// (group=platform, team=team1 in its hazelcast.yaml).
func TestSeaTunnelSuiteCluster(t *testing.T) {
	c := startCluster(t, t.TempDir())
	for _, id := range []string{"r1", "r2"} {
		start(t, id, "runner", "--address", c.addr, "--id", id, "--slots", "6", "--listen", "127.0.0.1:0",
			"--checkpoint-dir", c.ckpt, "--tag", "group=platform", "--tag", "team=team1")
	}
	eventually(t, 60*time.Second, "two runners registered", func() bool {
		cs := clusterStatus(t, c.addr)
		return cs["r1"].State == "ALIVE" && cs["r2"].State == "ALIVE"
	})

	t.Run("ResourceIsolationIT", func(t *testing.T) {
		code, out := run(t, "run", "--address", c.addr, seatunnel("engine", "resource-isolation", "fakesource_to_console.conf"))
		checkRun(t, "ResourceIsolationIT.testTagMatch", code, out, 0)
		code, out = run(t, "run", "--address", c.addr, seatunnel("engine", "resource-isolation", "fakesource_to_console_tag_not_match.conf"))
		checkRun(t, "ResourceIsolationIT.testTagNotMatch", code, out, 1, "not enough resources", "group=error_tag, team=error_tag")
	})

	t.Run("JobExecutionIT.cancelJobTest", func(t *testing.T) {
		if err := os.RemoveAll("/tmp/hive/warehouse/test3"); err != nil {
			t.Fatal(err)
		}
		id := submit(t, c.addr, seatunnel("engine", "streaming_fakesource_to_file_complex.conf"))
		eventually(t, 60*time.Second, "job RUNNING", func() bool { return c.status(t, id).State == "RUNNING" })
		if code, out := run(t, "job", "cancel", "--address", c.addr, id); code != 0 {
			t.Fatalf("cancel: exit %d\n%s", code, out)
		}
		eventually(t, 20*time.Second, "job CANCELED", func() bool { return c.status(t, id).State == "CANCELED" })
	})

	// ClusterFaultToleranceIT and ClusterFaultToleranceTwoPipelineIT, the runs without a node
	// going down: 1000 rows for each of 6 readers (twice with two pipelines) land in the sink
	// folder, exactly.
	for _, tc := range []struct {
		it, template string
		pipelines    int
	}{
		{"ClusterFaultToleranceIT.testBatchJobRunOkIn2Node", "cluster_batch_fake_to_localfile_template.conf", 1},
		{"ClusterFaultToleranceIT.testStreamJobRunOkIn2Node", "cluster_batch_fake_to_localfile_template.conf", 1},
		{"ClusterFaultToleranceTwoPipelineIT.testTwoPipelineBatchJobRunOkIn2Node", "cluster_batch_fake_to_localfile_two_pipeline_template.conf", 2},
		{"ClusterFaultToleranceTwoPipelineIT.testTwoPipelineStreamJobRunOkIn2Node", "cluster_batch_fake_to_localfile_two_pipeline_template.conf", 2},
	} {
		t.Run(tc.it, func(t *testing.T) {
			name := tc.it[strings.IndexByte(tc.it, '.')+1:]
			mode := "BATCH"
			if strings.Contains(name, "Stream") {
				mode = "STREAMING"
			}
			dir := "/tmp/hive/warehouse/" + name
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			const rows, parallelism = 1000, 6
			want := rows * parallelism * tc.pipelines
			job := fromTemplate(t, "engine/"+tc.template, map[string]string{
				"dynamic_test_case_name":               name,
				"dynamic_job_mode":                     mode,
				"dynamic_test_row_num_per_parallelism": strconv.Itoa(rows),
				"dynamic_test_parallelism":             strconv.Itoa(parallelism),
			})
			id := submit(t, c.addr, job)
			if mode == "BATCH" {
				awaitFinished(t, c.addr, id)
			} else {
				eventually(t, 2*time.Minute, fmt.Sprintf("%d rows committed", want), func() bool {
					return c.status(t, id).State == "RUNNING" && countLines(dir) == want
				})
				if code, out := run(t, "job", "cancel", "--address", c.addr, id); code != 0 {
					t.Fatalf("cancel: exit %d\n%s", code, out)
				}
				eventually(t, time.Minute, "job CANCELED", func() bool { return c.status(t, id).State == "CANCELED" })
			}
			if n := countLines(dir); n != want {
				t.Fatalf("%d lines in %s, want %d", n, dir, want)
			}
		})
	}
}

// Copies of the suite's configs with one expectation broken fail, naming it: the Assert rules
// in them are checked, and decimals are compared as written, never rounded to the column.
func TestSeaTunnelSuiteBrokenExpectations(t *testing.T) {
	cases := []struct {
		file, old, new, want string
	}{
		{"fake/fake_full_types_to_assert.conf", "equals_to = 99999.99999999", "equals_to = 99999.999999993", "is not equal to equals_to 99999.999999993"},
		{"transform-v2/json_path_transform/json_path_basic_type_test.conf", "equals_to = 10.55", "equals_to = 10.553", "is not equal to equals_to 10.553"},
		{"transform-v2/sql_transform/func_system.conf", `{equals_to = "12.40"}`, `{equals_to = "12.4"}`, "written with its scale"},
		{"assert/fakesource_to_multi_table_assert.conf", "rule_type = MIN_ROW\n                rule_value = 16", "rule_type = MIN_ROW\n                rule_value = 17", "MIN_ROW"},
		{"transform-v2/rowkind_extractor_transform_case2.conf", "rule_type = MAX_ROW\n          rule_value = 10", "rule_type = MAX_ROW\n          rule_value = 9", "MAX_ROW"},
	}
	for _, c := range cases {
		t.Run(c.file+" "+c.want, func(t *testing.T) {
			runBroken(t, c.file, readSeaTunnel(t, c.file), breakage{c.old, c.new, 1, []string{c.want}})
		})
	}
}
