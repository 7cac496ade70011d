package file

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
	"github.com/strait-dev/strait/row"
)

// The files of a job are those its enumerator lists when the job starts. One listed and gone
// when a reader opens it fails the job, naming the file, as SeaTunnel's reader fails on the
// file system's "no such file"; the rows of the files read before it stay as they were read.
func TestFileGoneBetweenListingAndReading(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), `{"id": 1}`)
	writeFile(t, filepath.Join(dir, "b.json"), `{"id": 2}`)
	s := mustSource(t, "path = "+quote(dir)+"\nfile_format_type = json\nschema { fields { id = int } }")
	ctx := context.Background()
	ec := conntest.NewEnumContext(1)
	en, err := s.CreateEnumerator(ec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := en.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	if err := en.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ec.Assigned[0]) != 2 {
		t.Fatalf("%d splits listed, want 2", len(ec.Assigned[0]))
	}
	if err := os.Remove(filepath.Join(dir, "b.json")); err != nil {
		t.Fatal(err)
	}
	r, err := s.CreateReader(connector.ReaderContext{Index: 0, Parallelism: 1, Job: connector.Job{ID: 1}})
	if err != nil {
		t.Fatal(err)
	}
	conntest.StartReader(ctx, t, r, ec.Assigned[0])
	read := 0
	for {
		b := row.NewBatch(row.DefaultBatchSize)
		done, err := r.PollNext(ctx, b)
		read += b.Len()
		b.Release()
		if err != nil {
			if !strings.Contains(err.Error(), "b.json") || !strings.Contains(err.Error(), "no such file") {
				t.Fatalf("error %q does not name the file gone", err)
			}
			if read != 1 {
				t.Fatalf("%d rows read before the error, want a.json's 1", read)
			}
			return
		}
		if done {
			t.Fatalf("read to the end (%d rows) without the file listed", read)
		}
	}
}
