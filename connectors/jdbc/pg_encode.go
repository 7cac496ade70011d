package jdbc

import (
	"encoding/binary"
	"math"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// paramEnc is how a parameter of a statement is encoded from a row value.
type paramEnc uint8

const (
	encPgx        paramEnc = iota // pgx's binary encoding of the column's type
	encText                       // the value's text, sent in text format for PostgreSQL to parse
	encDoc                        // json and xml: the document's text, which is their binary form
	encJSONB                      // jsonb: a version byte, then the document's text
	encDocArray                   // json[] and xml[]: a binary array of documents
	encJSONBArray                 // jsonb[]: a binary array of jsonb documents
	encTimetz                     // a time written to timetz: the time of day in UTC
	encTextArray                  // an array in PostgreSQL's array syntax, sent in text format
)

// documentEnc is the encoding of the document types (json, jsonb, xml and their arrays),
// encPgx for every other type. pgx would marshal a row value as a Go value: a string would
// become a JSON string literal, or an empty XML element.
func documentEnc(oid uint32) paramEnc {
	switch oid {
	case pgtype.JSONOID, pgtype.XMLOID:
		return encDoc
	case pgtype.JSONBOID:
		return encJSONB
	case pgtype.JSONArrayOID, pgtype.XMLArrayOID:
		return encDocArray
	case pgtype.JSONBArrayOID:
		return encJSONBArray
	}
	return encPgx
}

// paramEncOf picks the encoding of a parameter of type oid bound to input fields of type in:
// documentEnc's, and a time (which SeaTunnel reads from timetz in UTC) written to timetz
// back in UTC rather than in the session's time zone.
func paramEncOf(oid uint32, in types.Kind) paramEnc {
	if oid == pgtype.TimetzOID && in == types.Time {
		return encTimetz
	}
	return documentEnc(oid)
}

// jsonbVersion is the first byte of jsonb's binary form.
const jsonbVersion = 1

// encode appends the wire form of parameter j's non-null value v to dst.
func (w *writer) encodeParam(j int, v *row.Value, dst []byte) ([]byte, error) {
	switch w.enc[j] {
	case encText:
		return row.AppendText(dst, *v), nil
	case encTextArray:
		if v.T != types.Array {
			return row.AppendText(dst, *v), nil
		}
		return appendArrayText(dst, v.Elems()), nil
	case encDoc:
		return appendDocument(dst, v), nil
	case encJSONB:
		return appendDocument(append(dst, jsonbVersion), v), nil
	case encTimetz:
		if v.T != types.Time {
			return nil, cell{v}.mismatch("time with time zone")
		}
		dst = binary.BigEndian.AppendUint64(dst, uint64(v.I/1000))
		return binary.BigEndian.AppendUint32(dst, 0), nil // the zone: UTC
	case encDocArray, encJSONBArray:
		elem, ok := arrayElemOf[w.oids[j]]
		if !ok || v.T != types.Array {
			return nil, cell{v}.mismatch("array")
		}
		return appendDocumentArray(dst, elem, v.Elems(), w.enc[j] == encJSONBArray), nil
	}
	if out, ok := appendScalar(w.oids[j], v, dst); ok {
		return out, nil
	}
	return w.tm.Encode(w.oids[j], pgtype.BinaryFormatCode, cell{v}, dst)
}

// pgEpochMicros is 2000-01-01T00:00:00Z, PostgreSQL's epoch, in microseconds since Unix's.
const pgEpochMicros = 946684800 * 1000000

// appendScalar appends the binary form of the commonest pairs of value and column type
// itself, as pgx would encode them (TestAppendScalarAsPgx holds it to that), without pgx's
// per-value plan look-up and the boxing of the value; ok is false for the others, which go
// to pgx, and for a value out of the column's range, whose error pgx words.
func appendScalar(oid uint32, v *row.Value, dst []byte) ([]byte, bool) {
	switch oid {
	case pgtype.Int8OID:
		if v.T.IsInteger() {
			return binary.BigEndian.AppendUint64(dst, uint64(v.I)), true
		}
	case pgtype.Int4OID:
		if v.T.IsInteger() && v.I >= math.MinInt32 && v.I <= math.MaxInt32 {
			return binary.BigEndian.AppendUint32(dst, uint32(int32(v.I))), true
		}
	case pgtype.Int2OID:
		if v.T.IsInteger() && v.I >= math.MinInt16 && v.I <= math.MaxInt16 {
			return binary.BigEndian.AppendUint16(dst, uint16(int16(v.I))), true
		}
	case pgtype.Float8OID:
		if v.T == types.Double || v.T == types.Float {
			f, _ := v.AsFloat64()
			return binary.BigEndian.AppendUint64(dst, math.Float64bits(f)), true
		}
	case pgtype.BoolOID:
		if v.T == types.Boolean {
			if v.I != 0 {
				return append(dst, 1), true
			}
			return append(dst, 0), true
		}
	case pgtype.TextOID, pgtype.VarcharOID:
		if v.T == types.String {
			return append(dst, v.S...), true
		}
	case pgtype.TimestamptzOID, pgtype.TimestampOID:
		if v.T == types.Timestamp {
			micros := v.I / 1000
			if v.I%1000 < 0 {
				micros-- // toward the past, as time.Time's seconds and nanoseconds split it
			}
			return binary.BigEndian.AppendUint64(dst, uint64(micros-pgEpochMicros)), true
		}
	}
	return dst, false
}

// arrayElemOf maps the arrays of documents to their element types.
var arrayElemOf = map[uint32]uint32{
	pgtype.JSONArrayOID:  pgtype.JSONOID,
	pgtype.XMLArrayOID:   pgtype.XMLOID,
	pgtype.JSONBArrayOID: pgtype.JSONBOID,
}

// appendDocument appends the text of a document: a string (or bytes) as it is, a map, row
// or array as its JSON, any other value as its text.
func appendDocument(dst []byte, v *row.Value) []byte {
	switch v.T {
	case types.String, types.Bytes:
		return append(dst, v.S...)
	case types.Map, types.Row, types.Array:
		return row.AppendJSON(dst, *v)
	}
	return row.AppendText(dst, *v)
}

// appendDocumentArray appends a one-dimensional array of documents in PostgreSQL's binary
// array format.
func appendDocumentArray(dst []byte, elem uint32, elems []row.Value, jsonb bool) []byte {
	hasNull := uint32(0)
	for i := range elems {
		if elems[i].IsNull() {
			hasNull = 1
		}
	}
	if len(elems) == 0 {
		dst = binary.BigEndian.AppendUint32(dst, 0) // no dimensions
		dst = binary.BigEndian.AppendUint32(dst, 0)
		return binary.BigEndian.AppendUint32(dst, elem)
	}
	dst = binary.BigEndian.AppendUint32(dst, 1)
	dst = binary.BigEndian.AppendUint32(dst, hasNull)
	dst = binary.BigEndian.AppendUint32(dst, elem)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(elems)))
	dst = binary.BigEndian.AppendUint32(dst, 1) // lower bound
	for i := range elems {
		e := &elems[i]
		if e.IsNull() {
			dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		if jsonb {
			dst = append(dst, jsonbVersion)
		}
		dst = appendDocument(dst, e)
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst
}

// appendArrayText appends a one-dimensional array as PostgreSQL's array input reads it:
// {"a","b",NULL}, every element quoted, quotes and backslashes escaped.
func appendArrayText(dst []byte, elems []row.Value) []byte {
	dst = append(dst, '{')
	var text []byte
	for i := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		if elems[i].IsNull() {
			dst = append(dst, "NULL"...)
			continue
		}
		text = row.AppendText(text[:0], elems[i])
		dst = append(dst, '"')
		for _, c := range text {
			if c == '"' || c == '\\' {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
	}
	return append(dst, '}')
}
