package file

import (
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connector/multitable"
)

// Register registers a file connector under name: its source, built by newSource, and its
// sink, whose options are decoded once as written (so a bad value is reported without a
// table's name) and then again for each input table from the options with that table's
// placeholders replaced, which is what each table's sink is built from. partition_by names
// the sink's partition directories, not an exchange. LocalFile registers the core on the
// process's file system; S3File on a bucket.
func Register[S, K any](name, sourceDoc, sinkDoc string,
	newSource func(*connector.SourceContext, *S) (connector.Source, error),
	newSink func(*connector.SinkContext, *K) (connector.Sink, error)) {
	connector.RegisterSource(name, sourceDoc, newSource)
	multitable.RegisterSink(name, sinkDoc, newSink)
	connector.OwnsPartitionBy("sink", name)
}

// SourceConfig is the LocalFile source's options: those of one table, or tables_configs, a
// list of tables each with the options of one (the options of one table beside it are then
// not read).
type SourceConfig struct {
	SourceTable
	Tables []SourceTable `opt:"tables_configs" doc:"several tables from one source: each entry is a complete LocalFile source config (path, file_format_type, a schema with its own table name...); the options beside it are not read"`
}

// SourceTable is the options of one table a LocalFile source reads.
type SourceTable struct {
	At *config.Options `opt:"."`

	Path             string       `opt:"path" doc:"the file, or the directory read recursively (file:// accepted); it must exist when the job is built. Required (in each entry of tables_configs when that is set)"`
	Format           string       `opt:"file_format_type" doc:"the files' format: text, csv, json, parquet, excel, xml or binary, in any case (orc is refused: no Go ORC library is available). Required (in each entry of tables_configs when that is set)"`
	Schema           *hocon.Value `opt:"schema" doc:"the columns of the files, in any of SeaTunnel's schema forms, and the table name. Required for json, excel and xml; without it text and csv read one string column content (the whole line) and parquet the first file's columns; binary takes only the table name"`
	FieldDelimiter   string       `opt:"field_delimiter" fallback:"delimiter" doc:"text: what separates the fields, a Java regular expression as String.split reads it (default \\u0001); csv: its first character, which must not be a quote or line break (default ,)"`
	SkipHeader       int64        `opt:"skip_header_row_number" default:"0" doc:"text, csv and excel: the lines (rows) skipped at the start of each file"`
	ReadColumns      []string     `opt:"read_columns" doc:"the schema's columns to emit, in this order (it needs a schema; binary rows are always whole); all of them by default"`
	FileFilter       string       `opt:"file_filter_pattern" doc:"a Java regular expression the whole file name must match for the file to be read"`
	ReadPartitions   []string     `opt:"read_partitions" doc:"read only the files whose path contains one of these strings (such as age=20)"`
	ParsePartitions  bool         `opt:"parse_partition_from_path" default:"true" doc:"the k=v directory names in the path become string columns after the file's own (not for binary)"`
	DateFormat       string       `opt:"date_format" default:"yyyy-MM-dd" doc:"yyyy-MM-dd, yyyy.MM.dd or yyyy/MM/dd; checked only: dates are read in any layout SeaTunnel detects"`
	DateTimeFormat   string       `opt:"datetime_format" default:"yyyy-MM-dd HH:mm:ss" doc:"one of SeaTunnel's timestamp layouts (yyyy-MM-dd HH:mm:ss, yyyy.MM.dd HH:mm:ss, yyyy/MM/dd HH:mm:ss, yyyyMMddHHmmss...); checked only: timestamps are read in any layout SeaTunnel detects"`
	TimeFormat       string       `opt:"time_format" default:"HH:mm:ss" doc:"HH:mm:ss or HH:mm:ss.SSS; checked only: times are read with or without a fraction"`
	Encoding         string       `opt:"encoding" default:"UTF-8" doc:"text, csv, json and xml: the files' character set, by any name Java's Charset.forName knows (UTF-8, GBK, GB18030, ISO-8859-1...)"`
	CompressCodec    string       `opt:"compress_codec" default:"none" doc:"text, csv, json and xml: how each file is compressed, none, gzip, zstd or lz4 (lzo is refused: no Go library); parquet files name their own codec; binary files are read as they are"`
	ArchiveCodec     string       `opt:"archive_compress_codec" default:"none" doc:"text, csv, json, xml and excel: the files are archives holding the files to read, none, zip, tar, tar_gz or gz"`
	SheetName        string       `opt:"sheet_name" doc:"excel: the sheet to read; the first one by default"`
	XMLRowTag        string       `opt:"xml_row_tag" doc:"xml: the name of the elements that hold the rows; required for xml"`
	XMLUseAttr       *bool        `opt:"xml_use_attr_format" doc:"xml: true reads the columns from the attributes of the row elements, false from their child elements; required for xml"`
	CSVUseHeaderLine bool         `opt:"csv_use_header_line" default:"false" doc:"csv: read the first line of each file as its header (SeaTunnel 2.3.9). Not supported yet, so true is refused: declare the columns in schema and skip the line with skip_header_row_number = 1"`
	NullFormat       string       `opt:"null_format" doc:"text: the field text read as null (SeaTunnel 2.3.10). A blank field is null, and no other text is supported yet, so any other value is refused"`
}

// SinkConfig is the LocalFile sink's options, decoded per input table from the options
// with that table's placeholders replaced.
type SinkConfig struct {
	Path              string   `opt:"path,required" doc:"the target directory (file:// accepted); table placeholders such as ${table_name} are replaced for each table"`
	TmpPath           string   `opt:"tmp_path" default:"/tmp/seatunnel" doc:"files are staged under <tmp_path>/seatunnel and moved into path when their checkpoint completes"`
	Format            string   `opt:"file_format_type" default:"text" doc:"text, csv, json, parquet, excel, xml or binary, in any case (orc is refused: no Go ORC library is available). Blank or absent is text, as SeaTunnel's code has it (its docs say csv)"`
	FieldDelimiter    string   `opt:"field_delimiter" default:"\u0001" doc:"text: written between the fields as it is (the source reads it as a regular expression, as SeaTunnel does; blank is the default); csv always writes a comma; excel and xml join a nested row's fields with it"`
	RowDelimiter      string   `opt:"row_delimiter" default:"\n" doc:"text, csv and json: written between rows, so a file does not end with one"`
	FileNameExpr      string   `opt:"file_name_expression" default:"${transactionId}" doc:"the file names, before _<part index> and the suffix: ${transactionId}, ${now} (as filename_time_format), ${uuid} and ${<filename_time_format>} are replaced; it must contain ${transactionId} unless is_enable_transaction is false, and no / or \\"`
	FileNameTimeFmt   string   `opt:"filename_time_format" default:"yyyy.MM.dd" doc:"the java.time pattern ${now} is written in"`
	CustomFilename    bool     `opt:"custom_filename,noeffect" default:"false" doc:"SeaTunnel documents it as the switch of file_name_expression and filename_time_format, but its code never reads it: they always apply, here too"`
	Transaction       bool     `opt:"is_enable_transaction" default:"true" doc:"false only lifts the rule that file_name_expression contains ${transactionId}: files are staged and committed all the same, as in SeaTunnel 2.3, and files of the same name (of other writers, of later checkpoints) replace each other"`
	BatchSize         int64    `opt:"batch_size" default:"1000000" doc:"rows a writer puts in its current files before it closes them and starts new ones (the part index goes up); at least 1"`
	SinkColumns       []string `opt:"sink_columns" doc:"the columns to write, in this order, by name in any case; all of them by default"`
	HavePartition     bool     `opt:"have_partition,noeffect" default:"false" doc:"SeaTunnel documents it as the switch of partition_by, but its code never reads it: partition_by alone decides, here too"`
	PartitionBy       []string `opt:"partition_by" doc:"fields, in any case, whose values name the directories rows are written in (k0=v0/k1=v1); each must be a written column. The sink's own option: the planner does not hash-partition by it"`
	PartitionDirExpr  string   `opt:"partition_dir_expression" doc:"the partition directory, with ${kN} the N-th partition field's name and ${vN} its value; k0=v0/k1=v1/... when blank"`
	PartitionInFile   bool     `opt:"is_partition_field_write_in_file" default:"false" doc:"also write the partition fields in the files"`
	EnableHeaderWrite *bool    `opt:"enable_header_write" doc:"text and csv: a first line with the written column names (default false); excel writes its header row unless this is false"`
	DateFormat        string   `opt:"date_format" default:"yyyy-MM-dd" doc:"text and csv: how dates are written, yyyy-MM-dd, yyyy.MM.dd or yyyy/MM/dd"`
	DateTimeFormat    string   `opt:"datetime_format" default:"yyyy-MM-dd HH:mm:ss" doc:"text and csv: how timestamps are written, one of SeaTunnel's layouts (yyyy-MM-dd HH:mm:ss, yyyy-MM-dd HH:mm:ss.SSSSSS, yyyy.MM.dd HH:mm:ss, yyyy/MM/dd HH:mm:ss, yyyyMMddHHmmss, yyyy-MM-dd'T'HH:mm:ss with or without .SSS, .SSSSSS or .SSSSSSSSS)"`
	TimeFormat        string   `opt:"time_format" default:"HH:mm:ss" doc:"text and csv: how times are written, HH:mm:ss or HH:mm:ss.SSS"`
	Encoding          string   `opt:"encoding" default:"UTF-8" doc:"text, csv, json and xml: the character set written, by any name Java's Charset.forName knows; a character it cannot hold is written as ?"`
	CompressCodec     string   `opt:"compress_codec" default:"none" doc:"text, csv, json and xml: none, gzip, zstd or lz4, and the file name gets .gz, .zstd or .lz4 before the format's suffix (lzo is refused: no Go library); parquet: none, snappy, gzip, zstd, lz4, brotli or zlib; binary files are written as they are"`
	MaxRowsInMemory   *int64   `opt:"max_rows_in_memory,noeffect" doc:"excel: SeaTunnel's window of rows kept in memory. Checked to be at least 1, without effect: the workbook is streamed to a temporary file"`
	SheetName         string   `opt:"sheet_name" doc:"excel: the name of the sheet written (at most 31 characters, none of : \\ / ? * [ ]); Sheet1 by default"`
	XMLRootTag        string   `opt:"xml_root_tag" default:"RECORDS" doc:"xml: the name of the root element"`
	XMLRowTag         string   `opt:"xml_row_tag" default:"RECORD" doc:"xml: the name of the element of each row"`
	XMLUseAttr        *bool    `opt:"xml_use_attr_format" doc:"xml: true writes the columns as attributes of the row elements, false as child elements; required for xml"`
	ParquetTSAsInt96  bool     `opt:"parquet_avro_write_timestamp_as_int96" default:"false" doc:"parquet: write every timestamp as INT96 (nanoseconds kept)"`
	ParquetFixedInt96 []string `opt:"parquet_avro_write_fixed_as_int96" doc:"parquet: columns (any case) written as INT96: timestamps, or bytes of exactly 12 bytes"`
	SchemaSaveMode    string   `opt:"schema_save_mode" default:"CREATE_SCHEMA_WHEN_NOT_EXIST" enum:"RECREATE_SCHEMA,CREATE_SCHEMA_WHEN_NOT_EXIST,ERROR_WHEN_SCHEMA_NOT_EXIST,IGNORE" doc:"what is done to path once, before the job writes: RECREATE_SCHEMA deletes and recreates it, CREATE_SCHEMA_WHEN_NOT_EXIST creates it when missing, ERROR_WHEN_SCHEMA_NOT_EXIST fails the job when it is missing, IGNORE does nothing"`
	DataSaveMode      string   `opt:"data_save_mode" default:"APPEND_DATA" enum:"DROP_DATA,APPEND_DATA,ERROR_WHEN_DATA_EXISTS" doc:"what is done to the files in path once, before the job writes (after schema_save_mode): APPEND_DATA keeps them, DROP_DATA deletes and recreates an existing path, ERROR_WHEN_DATA_EXISTS fails the job when files lie directly in path"`
	SingleFileMode    bool     `opt:"single_file_mode" default:"false" doc:"one file per writer and transaction whatever batch_size says, named without the part index (SeaTunnel 2.3.10). Not supported yet, so true is refused"`
	EmptyFileNoData   bool     `opt:"create_empty_file_when_no_data" default:"false" doc:"write an empty file when there are no rows (SeaTunnel 2.3.10). Not supported yet, so true is refused: a transaction without rows publishes no file"`
	Replicas          int64    `opt:"multi_table_sink_replica,noeffect" default:"1" doc:"SeaTunnel's writers per table of a multi-table sink. Without effect: each writer writes every table it receives, and the sink's parallelism sets the writers"`
}

// checkNotYetSupported refuses the source options of later SeaTunnel versions that Strait
// does not implement, when they ask for more than what Strait does anyway.
func checkNotYetSupported(o *config.Options, opts *SourceTable) error {
	if opts.CSVUseHeaderLine {
		return o.Errorf("csv_use_header_line", "true is not supported yet: declare the columns in schema and skip the header with skip_header_row_number = 1")
	}
	if opts.NullFormat != "" {
		return o.Errorf("null_format", "%q is not supported yet: a blank field is read as null, and no other text", opts.NullFormat)
	}
	return nil
}

// checkSinkNotYetSupported refuses the sink options of later SeaTunnel versions that Strait
// does not implement, when they are set to more than their defaults.
func checkSinkNotYetSupported(o *config.Options, opts *SinkConfig) error {
	if opts.SingleFileMode {
		return o.Errorf("single_file_mode", "true is not supported yet: a writer starts a new file after batch_size rows and at each checkpoint")
	}
	if opts.EmptyFileNoData {
		return o.Errorf("create_empty_file_when_no_data", "true is not supported yet: a transaction without rows publishes no file")
	}
	return nil
}
