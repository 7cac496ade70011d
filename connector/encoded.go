package connector

// A source and a sink that speak the same format can move a record without turning it into
// fields and back: when a record read is already, byte for byte, what the sink would write
// for the row it holds, the reader hands the record on as it is (row.Batch.AddEncoded) and
// the writer writes it unchanged. The task runner arranges it only for a reader that feeds a
// writer directly, in one task with no transform between them, and only for the tables
// whose encodings both name alike; every other row, and every other chain, goes by fields.
//
// An encoding is a name both sides compute from the format and the row type, such as
// "json" followed by the columns' names and types: equal names promise equal bytes.

// EncodedReader is a Reader that can hand records on in their encoded form.
type EncodedReader interface {
	// Encodings are the encodings of the tables it reads whose records it can hand on, by
	// table id.
	Encodings() map[string]string
	// EmitEncoded has the reader add a record of table as an encoded row (no fields) when
	// the record is exactly the encoding's form of its row; others it reads into fields, and
	// it checks every record as it would otherwise (a record that does not parse fails or is
	// skipped as before). The runner calls it before the reader opens.
	EmitEncoded(table string)
}

// EncodedWriter is a Writer that writes encoded rows unchanged.
type EncodedWriter interface {
	// Encoding is the encoding it writes the rows of table in, or "" when it cannot write an
	// encoded row of it (its key, topic or partition comes from the fields, say).
	Encoding(table string) string
}
