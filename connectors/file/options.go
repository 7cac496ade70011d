package file

import (
	"path/filepath"
	"strings"

	"github.com/strait-dev/strait/config"
)

// fileFormat is one of the file formats Strait reads and writes.
type fileFormat string

const (
	formatText fileFormat = "text"
	formatCSV  fileFormat = "csv"
	formatJSON fileFormat = "json"
	// parquet and excel files are read and written whole-file (record.go), not by line
	formatParquet fileFormat = "parquet"
	formatExcel   fileFormat = "excel"
	// xml files are read as a document and written element by element (format_xml.go);
	// binary files are copied in chunks (format_binary.go)
	formatXML    fileFormat = "xml"
	formatBinary fileFormat = "binary"
)

// suffix is the file name suffix SeaTunnel gives the format.
func (f fileFormat) suffix() string {
	switch f {
	case formatText:
		return ".txt"
	case formatCSV:
		return ".csv"
	case formatJSON:
		return ".json"
	case formatParquet:
		return ".parquet"
	case formatExcel:
		return ".xlsx"
	case formatXML:
		return ".xml"
	}
	return ""
}

// formatOf reads file_format_type, s, in any case; a blank one is def, or missing when
// def is "".
func formatOf(o *config.Options, s, def string) (fileFormat, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch v {
	case "":
		if def == "" {
			return "", o.Errorf("file_format_type", "option is required")
		}
		return fileFormat(def), nil
	case "text", "csv", "json", "parquet", "excel", "xml", "binary":
		return fileFormat(v), nil
	case "orc":
		return "", o.Errorf("file_format_type", "%q cannot be read or written: no Go ORC library is available to Strait yet; use parquet for a columnar format", s)
	}
	return "", o.Errorf("file_format_type", "unknown value %q; expected one of text, csv, json, parquet, excel, xml, binary", s)
}

// layoutOf reads s, the value of one of the fixed date/time layout options.
func layoutOf[T any](o *config.Options, key, s string, layouts map[string]T) (T, error) {
	l, ok := layouts[s]
	if !ok {
		var zero T
		return zero, o.Errorf(key, "unsupported format %q; expected one of %s", s, layoutNames(layouts))
	}
	return l, nil
}

// absPath cleans p and makes it absolute (relative paths resolve against the working
// directory of the process that reads the option). A file:// URI names a local path.
func absPath(p string) string {
	if strings.HasPrefix(p, "file://") {
		p = strings.TrimPrefix(p, "file://")
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or lies below it; both are clean absolute paths.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(p, dir)
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}
