package transformtest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	_ "github.com/strait-dev/strait/transform/copy" // the Copy transform of copy_transform.conf
)

// fatalRecorder is a testing.TB whose Fatalf records the message and stops the goroutine,
// so a test can check that a helper fails the test that calls it.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs f with a recorder and returns what it failed with, "" when it did not fail.
func failure(t *testing.T, f func(testing.TB)) string {
	r := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.msg
}

func TestLoadJob(t *testing.T) {
	root := LoadJob(t, "transform/copy_transform.conf")
	if tf := root.Get("transform"); tf == nil || len(tf.Fields) != 2 || tf.Fields[0].Key != "Copy" {
		t.Fatalf("transform section %v", tf)
	}
	vars := map[string]string{"resName": "a20260101", "rowNum": "10", "strTemplate": "[abc,def]", "nameType": "string", "nameVal": "abc", "sourceTableName": "sql"}
	root = LoadJobVars(t, "engine/fake_to_console.variables.conf", vars)
	if got := root.Get("source").Fields[0].Value.Get("result_table_name"); got == nil || got.Str != "a20260101" {
		t.Fatalf("result_table_name %v, want the variable's value", got)
	}
}

// A job file that is not in the repository fails the test; it never skips it.
func TestLoadJobMissingFails(t *testing.T) {
	msg := failure(t, func(tb testing.TB) { LoadJob(tb, "transform/no_such_job.conf") })
	if !strings.Contains(msg, "SeaTunnel job file transform/no_such_job.conf") || !strings.Contains(msg, "no such file") {
		t.Fatalf("failed with %q", msg)
	}
}

func TestBuildJob(t *testing.T) {
	job := BuildJob(t, LoadJob(t, "transform/copy_transform.conf"))
	if len(job.Transforms) != 2 || job.OutputTable != "fake2" || job.Source.Columns[1].Name != "name" {
		t.Fatalf("job %+v", job)
	}
	if msg := failure(t, func(tb testing.TB) { BuildJob(tb, Parse(tb, `source { Console {} }`)) }); msg != "the job's source is Console, not FakeSource" {
		t.Fatalf("failed with %q", msg)
	}
}
