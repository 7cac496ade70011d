// Package e2e drives the built strait binary on SeaTunnel's own end-to-end job configs,
// kept unchanged in testdata/seatunnel-e2e, and on copies with an expectation broken.
package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var strait string // the binary under test

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "strait-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	strait = filepath.Join(dir, "strait")
	build := exec.Command("go", "build", "-o", strait, "../cmd/strait")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build strait:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func seatunnel(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata", "seatunnel-e2e"}, parts...)...)
}

// connectorSuite is the path of a file of the SeaTunnel end-to-end suite a connector keeps
// in its testdata/seatunnel.
func connectorSuite(connector string, parts ...string) string {
	return filepath.Join(append([]string{"..", "connectors", connector, "testdata", "seatunnel"}, parts...)...)
}

// testServer is the address of a test server that the environment variable name holds
// (`make test` starts the server and sets it); without it the test fails naming what starts
// the server.
func testServer(t *testing.T, name, startedBy string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: `make test` starts %s and sets it", name, startedBy)
	}
	return v
}

// mappedHost fails the test unless host, the name SeaTunnel's configs reach a test server
// by, resolves (the server's script maps it).
func mappedHost(t *testing.T, host, script string) {
	t.Helper()
	if addrs, err := net.LookupHost(host); err != nil || len(addrs) == 0 {
		t.Fatalf("host %s does not resolve (%s start maps it): %v", host, script, err)
	}
}

// run runs strait with args and returns its exit code and combined output.
func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return runCmd(t, []string{strait}, nil, args...)
}

// runCmd runs strait with args, behind the command prefix (strait itself, or a wrapper
// ending in it) and with env added to the test's environment, for at most 3 minutes, and
// returns its exit code and combined output.
func runCmd(t *testing.T, prefix, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prefix[0], append(prefix[1:len(prefix):len(prefix)], args...)...)
	cmd.Env = append(append(os.Environ(), "TEMPORAL_ADDRESS="), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatalf("strait %v: %v\n%s", args, err, out.String())
	return -1, ""
}

// tail keeps the last n lines of a command's output, and the first lines of a panic in it
// (whose cause is at the top).
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var head []string
	for i, l := range lines {
		if strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "fatal error:") {
			head = lines[i:min(i+12, len(lines))]
			break
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if head != nil && head[0] != lines[0] {
		lines = append(append(head, "..."), lines...)
	}
	return strings.Join(lines, "\n")
}

// The SeaTunnel configs must run unchanged and exit 0.
func TestSeaTunnelConfigs(t *testing.T) {
	cases := []struct {
		file string
		args []string
	}{
		{file: "engine/fakesource_to_console.conf"},
		{file: "engine/batch_fake_multi_table_to_console.conf"},
		{file: "fake/fake_full_types_to_assert.conf"},
		{file: "fake/fake_row_to_assert.conf"},
		{file: "fake/fake_to_assert_with_range.conf"},
		{file: "fake/fake_to_assert_with_template.conf"},
		{file: "fake/fake_to_assert.conf"},
		{file: "fake/fakesource_to_assert.conf"},
		{file: "engine/fake_to_console.variables.conf", args: []string{"-i", "resName=a20260101", "-i", "rowNum=10",
			"-i", "strTemplate=[abc,def]", "-i", "nameType=string", "-i", "nameVal=abc", "-i", "sourceTableName=sql"}},
	}
	transforms, err := filepath.Glob(seatunnel("transform", "*.conf"))
	if err != nil || len(transforms) == 0 {
		t.Fatalf("no transform configs: %v", err)
	}
	for _, f := range transforms {
		cases = append(cases, struct {
			file string
			args []string
		}{file: filepath.Join("transform", filepath.Base(f))})
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			code, out := run(t, append(append([]string{"run"}, c.args...), seatunnel(c.file))...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, tail(out, 30))
			}
			if !strings.Contains(out, "Job Statistic Information") || !strings.Contains(out, "FINISHED") {
				t.Fatalf("no job summary:\n%s", tail(out, 30))
			}
		})
	}
}

// Copies of the configs with one expectation broken must fail, naming the rule.
func TestBrokenExpectationsFail(t *testing.T) {
	cases := []struct {
		file, old, new, want string
	}{
		{"fake/fake_full_types_to_assert.conf", `equals_to = "AAA"`, `equals_to = "AAB"`, "AAB"},
		{"fake/fake_full_types_to_assert.conf", "rule_type = MIN_ROW\n            rule_value = 1", "rule_type = MIN_ROW\n            rule_value = 2", "MIN_ROW"},
		// below int.min, so every random row breaks it (a bound within the range lets all five
		// rows pass now and then)
		{"fake/fake_to_assert_with_range.conf", "rule_value = 29", "rule_value = 19", "MAX"},
		{"fake/fake_to_assert_with_template.conf", "rule_type = MIN_LENGTH\n              rule_value = 4", "rule_type = MIN_LENGTH\n              rule_value = 40", "MIN_LENGTH"},
		{"transform/binary_expression.conf", "{equals_to = 44.74}", "{equals_to = 44.75}", "44.75"},
		{"transform/func_string.conf", "{equals_to = 65}", "{equals_to = 66}", "66"},
		{"transform/sql_transform.conf", "rule_value = 100", "rule_value = 101", "MIN_ROW"},
		{"transform/copy_transform.conf", "rule_value = 100", "rule_value = 101", "MIN_ROW"},
		{"transform/replace_transform.conf", `replacement = "b"`, `replacement = "bb"`, "MAX_LENGTH"},
	}
	for _, c := range cases {
		t.Run(c.file+" "+c.want, func(t *testing.T) {
			runBroken(t, c.file, readSeaTunnel(t, c.file), breakage{c.old, c.new, 1, []string{c.want}})
		})
	}
}

// A config error is reported before anything runs, naming the place, with exit code 2.
func TestConfigErrorsExit2(t *testing.T) {
	b, err := os.ReadFile(seatunnel("fake/fake_full_types_to_assert.conf"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, text, want string }{
		{"unknown field type", strings.Replace(string(b), "field_type = string", `field_type = "strng"`, 1),
			`sink[0] Assert: rules.field_rules[1].field_type: unknown type "strng"`},
		{"syntax", "env {\n  job.mode = \n", "job.conf:"},
		{"unknown plugin", "source { NoSuchSource {} }\nsink { Console {} }", `unknown source plugin "NoSuchSource"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "job.conf")
			if err := os.WriteFile(f, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out := run(t, "run", f)
			if code != 2 || !strings.Contains(out, c.want) {
				t.Fatalf("exit %d, want 2 and %q:\n%s", code, c.want, tail(out, 10))
			}
			if strings.Contains(out, "submitted") {
				t.Fatalf("the job ran despite the config error:\n%s", out)
			}
		})
	}
}

func TestPlanCommand(t *testing.T) {
	code, out := run(t, "plan", seatunnel("engine/batch_fake_multi_table_to_console.conf"))
	if code != 0 || !strings.Contains(out, "Pipelines: 2") || !strings.Contains(out, "(fused)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out = run(t, "plan", "--dot", seatunnel("engine/fakesource_to_console.conf"))
	if code != 0 || !strings.HasPrefix(out, "digraph") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// plan warns of options no plugin reads, as run does
	job := writeJob(t, `
env { job.mode = BATCH }
source { FakeSource { row.num = 1, row_num = 5, schema = { fields { id = bigint } } } }
sink { Console {} }`)
	code, out = run(t, "plan", job)
	if code != 0 || !strings.Contains(out, "warning") || !strings.Contains(out, "row_num") {
		t.Fatalf("plan of a config with an unknown option: exit %d:\n%s", code, out)
	}
}

func TestJSONConfig(t *testing.T) {
	f := filepath.Join(t.TempDir(), "job.json")
	err := os.WriteFile(f, []byte(`{
  "env": {"job.mode": "BATCH", "parallelism": 2},
  "source": [{"plugin_name": "FakeSource", "plugin_output": "fake", "row.num": 7,
              "schema": {"fields": {"id": "bigint", "name": "string"}}}],
  "sink": [{"plugin_name": "Assert", "plugin_input": ["fake"],
            "rules": {"row_rules": [{"rule_type": "MIN_ROW", "rule_value": 14}, {"rule_type": "MAX_ROW", "rule_value": 14}]}}]
}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	code, out := run(t, "run", f)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, tail(out, 20))
	}
}

// The batch checkpoint pair: FakeSource → LocalFile (transactional, checkpoint every second),
// then LocalFile → Assert counting exactly the 100 rows in the sink folder.
func TestSeaTunnelCheckpointBatch(t *testing.T) {
	if err := os.RemoveAll("/tmp/seatunnel/config/checkpoint-batch-enable-test-resources"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"batch_fakesource_to_localfile_checkpoint_enable.conf", "sink_file_text_to_assert.conf"} {
		code, out := run(t, "run", seatunnel("checkpoint", "batch", f))
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", f, code, tail(out, 20))
		}
	}
}

// The examples of SeaTunnel's documentation kept in testdata/seatunnel-docs run unchanged
// (with the env block an example leaves out) and finish.
func TestSeaTunnelDocExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "seatunnel-docs", "*.conf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no documentation examples in testdata/seatunnel-docs: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out := run(t, "run", f)
			if code != 0 || !strings.Contains(out, "FINISHED") {
				t.Fatalf("exit %d\n%s", code, tail(out, 30))
			}
		})
	}
}

// writeFile writes text to a file of that name (its base name, when a path) in a temporary
// folder of the test, readable by its owner alone (a job's config may hold secrets).
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
