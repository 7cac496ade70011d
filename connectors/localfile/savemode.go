package localfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/strait-dev/strait/connector"
)

// SeaTunnel's save modes, as its file sinks apply them to the sink's path: the path plays
// the table (it exists or not) and the files directly in it play the rows. File sinks offer
// every schema save mode and all data save modes but CUSTOM_PROCESSING, which needs a
// statement to run (the enum tags of SinkConfig list them).
const (
	recreateSchema          = "RECREATE_SCHEMA"
	createSchemaWhenMissing = "CREATE_SCHEMA_WHEN_NOT_EXIST"
	errorWhenSchemaMissing  = "ERROR_WHEN_SCHEMA_NOT_EXIST"
	ignoreSchema            = "IGNORE"

	dropData            = "DROP_DATA"
	appendData          = "APPEND_DATA"
	errorWhenDataExists = "ERROR_WHEN_DATA_EXISTS"
)

// Setup applies the save modes once, before the job first writes, as SeaTunnel's file
// catalog does: schema_save_mode RECREATE_SCHEMA deletes path (with everything below it)
// and creates it again, CREATE_SCHEMA_WHEN_NOT_EXIST creates it when missing,
// ERROR_WHEN_SCHEMA_NOT_EXIST fails the job when it is missing, IGNORE does nothing; then
// data_save_mode DROP_DATA deletes and recreates an existing path, APPEND_DATA keeps it,
// ERROR_WHEN_DATA_EXISTS fails the job when files lie directly in path (files in
// subdirectories, such as partitions, do not count, as in SeaTunnel).
func (s *Sink) Setup(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := s.cfg
	if err := applySaveModes(c.path, c.schemaSave, c.dataSave); err != nil {
		return fmt.Errorf("%s: path %s: %w", c.where, c.path, err)
	}
	return nil
}

func applySaveModes(path, schema, data string) error {
	if err := applySchemaSaveMode(path, schema); err != nil {
		return fmt.Errorf("schema_save_mode %s: %w", schema, err)
	}
	if err := applyDataSaveMode(path, data); err != nil {
		return fmt.Errorf("data_save_mode %s: %w", data, err)
	}
	return nil
}

func applySchemaSaveMode(path, mode string) error {
	exists, err := pathExists(path)
	if err != nil {
		return err
	}
	switch mode {
	case recreateSchema:
		if exists {
			if err := removePath(path); err != nil {
				return err
			}
		}
		return makePath(path)
	case createSchemaWhenMissing:
		if !exists {
			return makePath(path)
		}
	case errorWhenSchemaMissing:
		if !exists {
			return connector.Permanent(errors.New("the path does not exist"))
		}
	}
	return nil
}

func applyDataSaveMode(path, mode string) error {
	switch mode {
	case dropData:
		exists, err := pathExists(path)
		if err != nil || !exists {
			return err
		}
		if err := removePath(path); err != nil {
			return err
		}
		return makePath(path)
	case errorWhenDataExists:
		has, err := holdsFiles(path)
		if err != nil {
			return err
		}
		if has {
			return connector.Permanent(errors.New("the path already holds files"))
		}
	}
	return nil
}

func pathExists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// removePath deletes path and everything below it. The root of the file system is never
// deleted, whatever the options say.
func removePath(path string) error {
	if filepath.Dir(path) == path {
		return connector.Permanent(fmt.Errorf("refusing to delete the file system root %s", path))
	}
	slog.Info("LocalFile: deleting the sink path before the job, as its save mode says", "path", path)
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

func makePath(path string) error {
	if err := mkdirAll(path); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	return nil
}

// holdsFiles reports whether path is a file or a directory with a file (anything but a
// directory) directly in it.
func holdsFiles(path string) (bool, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !info.IsDir():
		return true, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false, fmt.Errorf("list: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			return true, nil
		}
	}
	return false, nil
}
