package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
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
	if err := applySaveModes(c.fs, c.path, c.schemaSave, c.dataSave); err != nil {
		return fmt.Errorf("%s: path %s: %w", c.where, c.path, err)
	}
	return nil
}

func applySaveModes(fsys FileSystem, path, schema, data string) error {
	if err := applySchemaSaveMode(fsys, path, schema); err != nil {
		return fmt.Errorf("schema_save_mode %s: %w", schema, err)
	}
	if err := applyDataSaveMode(fsys, path, data); err != nil {
		return fmt.Errorf("data_save_mode %s: %w", data, err)
	}
	return nil
}

func applySchemaSaveMode(fsys FileSystem, path, mode string) error {
	exists, err := pathExists(fsys, path)
	if err != nil {
		return err
	}
	switch mode {
	case recreateSchema:
		if exists {
			if err := removePath(fsys, path); err != nil {
				return err
			}
		}
		return makePath(fsys, path)
	case createSchemaWhenMissing:
		if !exists {
			return makePath(fsys, path)
		}
	case errorWhenSchemaMissing:
		if !exists {
			return connector.Permanent(errors.New("the path does not exist"))
		}
	}
	return nil
}

func applyDataSaveMode(fsys FileSystem, path, mode string) error {
	switch mode {
	case dropData:
		exists, err := pathExists(fsys, path)
		if err != nil || !exists {
			return err
		}
		if err := removePath(fsys, path); err != nil {
			return err
		}
		return makePath(fsys, path)
	case errorWhenDataExists:
		has, err := holdsFiles(fsys, path)
		if err != nil {
			return err
		}
		if has {
			return connector.Permanent(errors.New("the path already holds files"))
		}
	}
	return nil
}

func pathExists(fsys FileSystem, path string) (bool, error) {
	_, err := fsys.Stat(path)
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
func removePath(fsys FileSystem, path string) error {
	if filepath.Dir(path) == path {
		return connector.Permanent(fmt.Errorf("refusing to delete the file system root %s", path))
	}
	slog.Info("file sink: deleting the sink path before the job, as its save mode says", "path", path)
	if err := fsys.RemoveAll(path); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

func makePath(fsys FileSystem, path string) error {
	if err := mkdirAll(fsys, path); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	return nil
}

// holdsFiles reports whether path is a file or a directory with a file (anything but a
// directory) directly in it.
func holdsFiles(fsys FileSystem, path string) (bool, error) {
	info, err := fsys.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case !info.Dir:
		return true, nil
	}
	entries, err := fsys.ReadDir(path)
	if err != nil {
		return false, fmt.Errorf("list: %w", err)
	}
	for _, e := range entries {
		if !e.Dir {
			return true, nil
		}
	}
	return false, nil
}
