// Package localfile is the LocalFile connector, registered as a source and as a sink: the
// file core (connectors/file) on a file system the process can see. Every option, format
// and guarantee is the core's; see that package.
package localfile

import "github.com/strait-dev/strait/connectors/file"

func init() {
	file.Register("LocalFile", sourceDoc, sinkDoc, file.NewSource, file.NewSink)
}

const (
	sourceDoc = "Reads text, csv, json, parquet, excel and xml files, and files as they are (binary), " +
		"from a file or a directory on a file system the process can see, with SeaTunnel's options, " +
		"value formats, partition directories, codecs, archives and several tables (tables_configs)."
	sinkDoc = "Writes text, csv, json, parquet, excel and xml files, and files as a binary source read them, " +
		"into a directory with SeaTunnel's file layout: staged per checkpoint and moved into place when " +
		"the checkpoint completes, one directory per table through the table placeholders of path."
)
