package file

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/conntest"
)

// layout describes what lies at path: "<missing>", "<file>", or the paths below the
// directory, sorted ("" for an empty one; directories end with a slash).
func layout(t *testing.T, path string) string {
	t.Helper()
	info, err := os.Stat(path)
	if os.IsNotExist(err) {
		return "<missing>"
	}
	if err != nil {
		t.Fatal(err)
	}
	if !info.IsDir() {
		return "<file>"
	}
	var out []string
	filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p == path {
			return nil
		}
		rel, _ := filepath.Rel(path, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestSaveModes(t *testing.T) {
	// what lies at path before the job
	prepare := map[string]func(t *testing.T, path string){
		"missing": func(*testing.T, string) {},
		"empty":   func(t *testing.T, path string) { os.MkdirAll(path, 0o777) },
		"files": func(t *testing.T, path string) {
			writeFile(t, filepath.Join(path, "a.txt"), "1")
			writeFile(t, filepath.Join(path, "k=v", "b.txt"), "2")
		},
		"partitions only": func(t *testing.T, path string) { writeFile(t, filepath.Join(path, "k=v", "b.txt"), "2") },
		"a file":          func(t *testing.T, path string) { writeFile(t, path, "1") },
	}
	cases := []struct {
		schema, data, before string
		after                string // layout afterwards
		fails                string // or the error
	}{
		{recreateSchema, appendData, "files", "", ""},
		{recreateSchema, appendData, "missing", "", ""},
		{recreateSchema, appendData, "a file", "", ""},
		{recreateSchema, errorWhenDataExists, "files", "", ""},
		{createSchemaWhenMissing, appendData, "files", "a.txt k=v/ k=v/b.txt", ""},
		{createSchemaWhenMissing, appendData, "missing", "", ""},
		{errorWhenSchemaMissing, appendData, "missing", "<missing>", "schema_save_mode ERROR_WHEN_SCHEMA_NOT_EXIST: the path does not exist"},
		{errorWhenSchemaMissing, appendData, "files", "a.txt k=v/ k=v/b.txt", ""},
		{ignoreSchema, appendData, "missing", "<missing>", ""},
		{ignoreSchema, dropData, "files", "", ""},
		{ignoreSchema, dropData, "missing", "<missing>", ""},
		{createSchemaWhenMissing, dropData, "partitions only", "", ""},
		{createSchemaWhenMissing, errorWhenDataExists, "files", "a.txt k=v/ k=v/b.txt", "data_save_mode ERROR_WHEN_DATA_EXISTS: the path already holds files"},
		{createSchemaWhenMissing, errorWhenDataExists, "partitions only", "k=v/ k=v/b.txt", ""},
		{createSchemaWhenMissing, errorWhenDataExists, "empty", "", ""},
		{ignoreSchema, errorWhenDataExists, "missing", "<missing>", ""},
		{ignoreSchema, errorWhenDataExists, "a file", "<file>", "the path already holds files"},
	}
	tbl := table("db.t", "id", "int")
	f, _, ok := connector.LookupSink("LocalFile")
	if !ok {
		t.Fatal("LocalFile sink not registered")
	}
	for _, c := range cases {
		t.Run(c.schema+"/"+c.data+"/"+c.before, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out")
			prepare[c.before](t, path)
			conf := sinkConf(dir, "schema_save_mode = "+c.schema+"\ndata_save_mode = "+c.data)
			s, err := f(&connector.SinkContext{Options: conntest.Options(t, conf, "sink[0] LocalFile"), Job: connector.Job{ID: 7}, Inputs: []*catalog.Table{tbl}})
			if err != nil {
				t.Fatal(err)
			}
			su, ok := s.(connector.SinkSetup)
			if !ok {
				t.Fatal("the LocalFile sink has no setup")
			}
			err = su.Setup(context.Background())
			switch {
			case c.fails == "" && err != nil:
				t.Fatalf("setup: %v", err)
			case c.fails != "" && (err == nil || !strings.Contains(err.Error(), c.fails)):
				t.Fatalf("setup: %v, want %q", err, c.fails)
			case c.fails != "":
				if !connector.IsPermanent(err) || !strings.Contains(err.Error(), "sink[0] LocalFile: path "+path+": ") {
					t.Errorf("error %q: not permanent or names neither the plugin nor the path", err)
				}
			}
			if got := layout(t, path); got != c.after {
				t.Errorf("afterwards %q, want %q", got, c.after)
			}
		})
	}
}

func TestSaveModeOptions(t *testing.T) {
	dir := t.TempDir()
	tbl := table("db.t", "id", "int")
	s := mustSink(t, sinkConf(dir, ""), tbl)
	if s.cfg.schemaSave != createSchemaWhenMissing || s.cfg.dataSave != appendData {
		t.Errorf("defaults %s, %s", s.cfg.schemaSave, s.cfg.dataSave)
	}
	s = mustSink(t, sinkConf(dir, `"schema_save_mode"="recreate_schema"`+"\n"+`"data_save_mode"="drop_data"`), tbl)
	if s.cfg.schemaSave != recreateSchema || s.cfg.dataSave != dropData {
		t.Errorf("spelled in lower case: %s, %s", s.cfg.schemaSave, s.cfg.dataSave)
	}
	for conf, want := range map[string]string{
		"data_save_mode = CUSTOM_PROCESSING": `data_save_mode: unknown value "CUSTOM_PROCESSING"; expected one of DROP_DATA, APPEND_DATA, ERROR_WHEN_DATA_EXISTS`,
		"schema_save_mode = DROP":            `schema_save_mode: unknown value "DROP"`,
	} {
		if _, err := newTestSink(t, sinkConf(dir, conf), tbl); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", conf, err, want)
		}
	}
}
