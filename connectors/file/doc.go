// Package file is the core of the file connectors, LocalFile and S3File: their source and
// sink, options, formats, save modes and exactly-once committer, written against a
// FileSystem (fs.go), so that each connector is the file system it reads and writes and
// the name it registers the core under (Register). Local, the process's own file system,
// is here; a bucket is in connectors/s3file. It reads and writes text, csv, json, parquet,
// excel and xml files, and copies files as they are (binary), with SeaTunnel 2.3's option
// names, defaults, file layout and value formats, so that SeaTunnel job configs run
// unchanged.
//
// # Sink
//
// The sink is transactional, as SeaTunnel's file sinks are. Each writer stages its rows in
// a directory per transaction,
//
//	<tmp_path>/seatunnel/<jobId>/<uuidPrefix>/T_<jobId>_<uuidPrefix>_<subtask>_<checkpointId>/<partition dir or NON_PARTITION>/<file>
//
// where uuidPrefix is ten random hex digits per writer (kept across restores). The first
// transaction has checkpoint id 1. PrepareCommit(checkpointID) flushes, syncs and closes
// the transaction's files and returns a JSON commit info listing the moves (staged file ->
// file under path); the next transaction takes the next checkpoint id (never one already
// used, whatever id the engine passes). The Committer, built from the same options in any
// process that sees both directories, creates the target directories, moves the files
// (replacing files of the same name; across file systems it copies into a hidden file
// beside the target, syncs it and renames it into place), syncs the target directories and
// then deletes the staging directory. Commit is idempotent: a move whose staged file is
// gone while its target exists was done before, and a transaction whose staging directory
// is gone (it goes last) is complete if its targets exist; a staged file that is missing
// with no target is a permanent error. Abort deletes the staging directory. A writer's
// snapshot keeps its uuid prefix and the prepared transactions not yet committed; a
// restored writer commits those and deletes every other transaction it had staged.
// Close deletes the transaction that was never prepared.
//
// Files are named <file_name_expression expanded>_<partIndex><suffix> with the suffix
// .txt, .csv, .json, .xml..., after the codec's (.gz, .zstd, .lz4). The expression (default ${transactionId}, which it must contain)
// knows ${transactionId}, ${now} and ${<filename_time_format>} (the time as
// filename_time_format, a java.time pattern, default yyyy.MM.dd) and ${uuid} (a random
// UUID per file); unknown variables stay as written. partIndex counts the files a writer
// starts: batch_size rows (default 1000000) fill a file, then all open files close and the
// next rows go to new ones.
//
// The sink writes several input tables as SeaTunnel's multi-table sink does: one sink per
// table (connector/multitable), built from the options with the table placeholders
// replaced for that table, so path = "/data/${database_name}/${table_name}" gives each
// table a directory of its own; tables whose path is the same share the directory, each
// writer with its own files. A placeholder left in path after that is a config error.
//
// Sink options: path (required; file:// accepted), tmp_path (/tmp/seatunnel),
// file_format_type (text, csv, json, parquet, excel, xml, binary in any case; text when
// absent, as SeaTunnel's code has it), field_delimiter (\u0001; csv always writes ","), row_delimiter (\n, written
// between rows: a file does not end with one), file_name_expression,
// filename_time_format, batch_size, sink_columns (names in any case; all columns by
// default), partition_by, partition_dir_expression (default k0=v0/k1=v1 with ${kN} the
// field name and ${vN} its value), is_partition_field_write_in_file (false),
// enable_header_write (text and csv: the written column names and a row delimiter),
// date_format (yyyy-MM-dd, yyyy.MM.dd, yyyy/MM/dd), datetime_format (yyyy-MM-dd HH:mm:ss
// and SeaTunnel's other eight layouts), time_format (HH:mm:ss, HH:mm:ss.SSS), encoding
// and compress_codec (below), xml_root_tag, xml_row_tag and xml_use_attr_format (xml),
// max_rows_in_memory (excel), is_enable_transaction (false only lifts the rule that
// file_name_expression names ${transactionId}: files are staged all the same, as in
// SeaTunnel 2.3), schema_save_mode and data_save_mode (below), and custom_filename,
// have_partition and multi_table_sink_replica, accepted without effect (SeaTunnel's code
// ignores the first two; each writer here writes every table it receives). Of later
// SeaTunnel versions, single_file_mode and create_empty_file_when_no_data are refused when
// true.
//
// The options of both are declared as data (config.go: SourceConfig, SinkConfig), with
// their types, SeaTunnel's defaults and docs; the registry decodes a plugin block into them
// and the planner warns about any option they do not know, with the nearest known name. The
// sink decodes its options again for each input table, from the options with the table
// placeholders replaced.
//
// The save modes run once per job, before anything is written (Sink.Setup), as SeaTunnel's
// file catalog applies them to path: schema_save_mode RECREATE_SCHEMA deletes path and
// creates it empty, CREATE_SCHEMA_WHEN_NOT_EXIST (the default) creates it when missing,
// ERROR_WHEN_SCHEMA_NOT_EXIST fails the job when it is missing, IGNORE does nothing; then
// data_save_mode APPEND_DATA (the default) keeps what is there, DROP_DATA deletes and
// recreates an existing path, and ERROR_WHEN_DATA_EXISTS fails the job when files lie
// directly in path.
//
// Text and csv values are written as SeaTunnel's TextSerializationSchema writes them:
// null as an empty field, numbers as Java prints them (decimals as BigDecimal.toString,
// so 1E-8), booleans as true/false, bytes as their raw content, dates, times and
// timestamps in the configured layouts (a timestamp is yyyy-MM-dd HH:mm:ss by default: the
// fraction is dropped), and arrays, maps and nested rows with the nested separators
// \u0002, \u0003...: the elements of an array and the entries of a map one level down,
// a map's key and value two levels down. Csv is text with a comma and no quoting. Json
// writes one object per line with the column names as keys, as SeaTunnel's Jackson-based
// JsonSerializationSchema does: dates yyyy-MM-dd, times and timestamps in ISO form with
// the fraction digits they need, bytes in base64, NaN and infinities as strings, nested
// rows as objects and map keys as strings. Row kinds are not written.
//
// # Source
//
// path is a file or a directory read recursively; empty files, _SUCCESS and names starting
// with a dot are skipped, file_filter_pattern (a Java regular expression) must match the
// whole file name, read_partitions keeps the paths containing one of its strings. The
// enumerator lists the files once, in path order, and gives file i to reader i mod
// parallelism, one split per file; a split records the bytes and lines read, so a restored
// reader resumes where its snapshot was taken.
//
// Source options: path, file_format_type (required), schema (any of SeaTunnel's forms, see
// catalog.ParseSchema; without it text and csv yield one string column content, json and
// xml are an error),
// field_delimiter or delimiter (\u0001, "," for csv: see below),
// skip_header_row_number (text and csv), read_columns (a projection of the schema, in the
// given order; it needs a schema), parse_partition_from_path (true: the k=v directory
// names of the first file become string columns after the others, and each file fills
// them from its own directories), date_format, datetime_format and time_format (checked;
// values are read in any of the layouts SeaTunnel detects), encoding, compress_codec and
// archive_compress_codec (below), xml_row_tag and xml_use_attr_format (xml), sheet_name
// (excel), tables_configs (below), and, of later SeaTunnel versions, csv_use_header_line
// (refused when true) and null_format (refused unless blank: a blank field is null).
//
// The text delimiter is a Java regular expression: a line splits as Java's
// line.split(delimiter, -1) splits it, at every match, keeping empty fields (trailing ones
// too). The pattern is rewritten into Go's syntax with Java's meaning (internal/jregex); what
// Go's engine cannot express, and a pattern that matches the empty string, are config
// errors. A delimiter that matches only itself is looked for as plain text, without a
// regular expression. Csv takes the first character of the delimiter, as SeaTunnel's
// commons-csv reader does.
//
// Text lines split at the delimiter; fields beyond the schema are ignored and a line with
// fewer fields is an error; a blank field is null; nested values use the separators the
// sink writes. Csv fields may be quoted ("" is a quote) but cannot span lines. A json line
// is one object: missing keys are null, unknown keys are ignored, numbers and booleans may
// be strings, a string column takes any value as its JSON text, a nested row is an object
// or an array. Lines end with \n or \r\n; empty lines are skipped. A value that does not
// read as its column's type fails the job with the file, the line and the column.
//
// # Encodings, codecs, archives, xml, binary and several tables
//
// encoding (charset.go) transcodes text, csv, json and xml files from and to any character
// set golang.org/x/text has, by Java's names; compress_codec (codec.go) compresses them
// with gzip, zstd or lz4 (lzo is refused: no Go library); archive_compress_codec
// (archive.go) reads the files of zip, tar and tar_gz archives and gz files one after the
// other (input.go), each as a file of its own named <archive>!<file>. A split records the
// archived file it is in and the bytes of its text read, so a restored reader reads up to
// there again. Formats are written against io.Reader, io.ReaderAt and io.Writer, never a
// path, and each is a package of its own under connectors/internal/format: text and csv
// (format/text) and json (format/json) decode lines the core reads and encode values the
// core writes (format.LineDecoder); parquet, excel and xml (format/parquet, format/excel,
// format/xml) read and write whole files (format.Source, format.Sink). The binary format
// (format_binary.go, 1024-byte chunks with their relative path) is the core's own, as it
// copies files rather than reading rows. tables_configs (source_tables.go) reads several tables, each
// entry a source config of its own, decoded with the options of one table (SourceTable);
// the options beside it are not read, and a warning names them. A split records its table.
//
// # Differences from SeaTunnel
//
//   - orc and .xls are refused (no Go library), and so is lzo; gzip, zstd and lz4 compress
//     text, csv, json and xml files (SeaTunnel writes them uncompressed under the codec's
//     name). A binary file whose chunks span a checkpoint is completed in a later
//     transaction (SeaTunnel fails it). Xml values are read strictly, keep their whitespace,
//     and times and timestamps are written with their seconds.
//   - The header lists the written columns (SeaTunnel lists all input columns).
//   - Reading is stricter: a boolean must be true or false (SeaTunnel reads anything else as
//     false), a text or csv line with too few fields and a malformed csv or json line are
//     errors (SeaTunnel fills nulls or drops the values), a decimal is rescaled to the
//     column's scale (rounding half up) and must fit its precision, and a json integer
//     column rejects fractions. Empty lines are skipped (SeaTunnel fails on them).
//   - read_columns also projects json files (SeaTunnel ignores it there), and only the
//     read columns of a text line are converted.
//   - Partition columns come from the directories only, not the file name, take the text
//     after the first "=" as the value, and a directory named like a schema column does not
//     add a second column of that name.
//   - In a text delimiter, ^ and $ see only \n as a line break and (?i) folds non-ASCII
//     letters too (Java only with (?u)).
//   - A partition value of null is written as the directory value "null".
//   - A transaction with no rows yields no commit info; batch_size counts the rows of a
//     transaction's current files (SeaTunnel counts across checkpoints).
package file
