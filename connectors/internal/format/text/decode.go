package text

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/connectors/internal/format"

	"github.com/strait-dev/strait/literal"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Lines reads the lines of a text or csv file into rows, as SeaTunnel's text and csv
// readers do. Its errors name the column a value of which does not read
// (format.ColumnError); the caller adds the file and the line.
type Lines struct {
	Values
	// Columns are the schema's columns in the file's order.
	Columns []format.Column
	// Whole reads each line whole into the one string column `content`: text and csv
	// without a schema.
	Whole bool
	// Delim is the text format's field delimiter.
	Delim Delimiter
	// CSV is the csv format's delimiter character; nil reads text.
	CSV []byte
}

// Decode reads one line into fields, the row's fields, zeroed.
func (d *Lines) Decode(line []byte, fields []row.Value) error {
	if d.Whole {
		fields[0] = row.StringValue(d.Arena.Keep(line))
		return nil
	}
	if d.CSV != nil {
		return d.decodeCSV(line, fields)
	}
	return d.decodeText(line, fields)
}

// decodeText reads a text line: fields split at the delimiter, converted by position.
// Fields past the schema are ignored and a line with fewer fields than the schema is an
// error. A delimiter that matches only itself is looked for without a regular expression.
func (d *Lines) decodeText(line []byte, fields []row.Value) error {
	if d.Delim.re != nil {
		return d.decodeTextPattern(line, fields)
	}
	delim := d.Delim.literal
	pos, col := 0, 0
	for col < len(d.Columns) {
		var end int
		if len(delim) == 1 {
			end = bytes.IndexByte(line[pos:], delim[0])
		} else {
			end = bytes.Index(line[pos:], delim)
		}
		field := line[pos:]
		if end >= 0 {
			field = line[pos : pos+end]
		}
		if err := d.textField(fields, col, field); err != nil {
			return err
		}
		col++
		if end < 0 {
			break
		}
		pos += end + len(delim)
	}
	return d.fieldCount(col)
}

// decodeTextPattern splits a text line where the delimiter's regular expression matches,
// as Java's String.split(delimiter, -1) does (the delimiter cannot match the empty string).
func (d *Lines) decodeTextPattern(line []byte, fields []row.Value) error {
	n := len(d.Columns)
	matches := d.Delim.re.FindAllIndex(line, n)
	pos, col := 0, 0
	for col < n {
		end := len(line)
		if col < len(matches) {
			end = matches[col][0]
		}
		if err := d.textField(fields, col, line[pos:end]); err != nil {
			return err
		}
		if col >= len(matches) {
			col++
			break
		}
		pos = matches[col][1]
		col++
	}
	return d.fieldCount(col)
}

// textField converts field number col of a text line when it is read.
func (d *Lines) textField(fields []row.Value, col int, field []byte) error {
	spec := &d.Columns[col]
	if spec.Out < 0 {
		return nil
	}
	v, err := d.Parse(field, &spec.Type, 0)
	if err != nil {
		return &format.ColumnError{Column: spec.Name, Err: err}
	}
	fields[spec.Out] = v
	return nil
}

// fieldCount fails a line that had fewer fields than the schema has columns.
func (d *Lines) fieldCount(fields int) error {
	if cols := d.Columns; fields < len(cols) {
		return fmt.Errorf("%d fields, the schema has %d columns (missing %q)", fields, len(cols), cols[fields].Name)
	}
	return nil
}

// decodeCSV reads a csv line as commons-csv's default format does, with the configured
// delimiter character: a field may be quoted with ", and "" inside quotes is a quote. A
// field cannot span lines.
func (d *Lines) decodeCSV(line []byte, fields []row.Value) error {
	pos, col := 0, 0
	for col < len(d.Columns) {
		field, next, err := csvField(line, pos, d.CSV)
		if err != nil {
			return fmt.Errorf("field %d: %v", col+1, err)
		}
		if err := d.textField(fields, col, field); err != nil {
			return err
		}
		col++
		if next < 0 {
			break
		}
		pos = next
	}
	return d.fieldCount(col)
}

// csvField reads the field starting at pos; next is where the following field starts, or
// -1 at the end of the line.
func csvField(s []byte, pos int, delim []byte) (field []byte, next int, err error) {
	if pos < len(s) && s[pos] == '"' {
		var b []byte
		start := pos + 1
		i := start
		for {
			q := bytes.IndexByte(s[i:], '"')
			if q < 0 {
				return nil, -1, errors.New("quoted field is not closed on its line")
			}
			i += q
			if i+1 < len(s) && s[i+1] == '"' {
				b = append(b, s[start:i+1]...)
				i += 2
				start = i
				continue
			}
			break
		}
		if b != nil {
			field = append(b, s[start:i]...)
		} else {
			field = s[start:i]
		}
		i++
		switch {
		case i == len(s):
			return field, -1, nil
		case bytes.HasPrefix(s[i:], delim):
			return field, i + len(delim), nil
		}
		return nil, -1, fmt.Errorf("unexpected %q after a quoted field", s[i])
	}
	end := bytes.Index(s[pos:], delim)
	if end < 0 {
		return s[pos:], -1, nil
	}
	return s[pos : pos+end], pos + end + len(delim), nil
}

// IsBlank reports whether s is empty or only whitespace, as Java's StringUtils.isBlank
// (ASCII whitespace, including the separators \u001C-\u001F).
func IsBlank(s []byte) bool {
	for _, c := range s {
		switch {
		case c == ' ', c >= '\t' && c <= '\r', c >= 0x1c && c <= 0x1f:
		default:
			return false
		}
	}
	return true
}

// SplitJava splits s at sep as Java's String.split does without a limit: trailing empty
// pieces are dropped.
func SplitJava(s []byte, sep string) [][]byte {
	parts := bytes.Split(s, []byte(sep))
	n := len(parts)
	for n > 1 && len(parts[n-1]) == 0 {
		n--
	}
	if n == 1 && len(parts[0]) == 0 && len(s) > 0 {
		return nil
	}
	return parts[:n]
}

// Values reads values from text as SeaTunnel's TextDeserializationSchema does: the
// fields of text and csv lines, and the text of excel cells and xml elements. The strings
// it returns are copied into Arena, so they outlive the buffer the text was in.
type Values struct {
	// Seps are the separators by nesting level: the field delimiter, then those of nested
	// values (DefaultSeparators).
	Seps  [7]string
	Arena row.Arena
	// Lenient reads as SeaTunnel's TextDeserializationSchema does to the letter: a boolean
	// is true when it says true in any case and false otherwise (Boolean.parseBoolean), and
	// a nested row's missing fields are null. Without it those are errors, as the file
	// connectors have them.
	Lenient bool
}

// Parse converts one text field to type t as SeaTunnel's TextDeserializationSchema
// does; level is the nesting level (0 for a top-level field), which picks the separators
// of nested values. A blank field is null.
func (d *Values) Parse(s []byte, t *types.DataType, level int) (row.Value, error) {
	if IsBlank(s) {
		return row.NullValue(), nil
	}
	c := d
	switch t.Kind {
	case types.Array:
		parts := SplitJava(s, c.sep(level+1))
		elems := make([]row.Value, len(parts))
		for i, p := range parts {
			v, err := d.Parse(p, t.Elem, level+1)
			if err != nil {
				return row.Value{}, fmt.Errorf("element %d: %w", i, err)
			}
			elems[i] = v
		}
		return row.ArrayValue(elems), nil
	case types.Map:
		entries := SplitJava(s, c.sep(level+1))
		m := &row.MapValue{Keys: make([]row.Value, 0, len(entries)), Vals: make([]row.Value, 0, len(entries))}
		for _, e := range entries {
			kv := SplitJava(e, c.sep(level+2))
			if len(kv) == 0 {
				kv = [][]byte{nil}
			}
			k, err := d.Parse(kv[0], t.Key, level+1)
			if err != nil {
				return row.Value{}, fmt.Errorf("map key %s: %w", Quote(kv[0]), err)
			}
			v := row.NullValue()
			if len(kv) > 1 {
				if v, err = d.Parse(kv[1], t.Elem, level+1); err != nil {
					return row.Value{}, fmt.Errorf("map value of %s: %w", Quote(kv[0]), err)
				}
			}
			m.Keys = append(m.Keys, k)
			m.Vals = append(m.Vals, v)
		}
		return row.MapOfValues(m), nil
	case types.Row:
		parts := bytes.Split(s, []byte(c.sep(level+1)))
		rt := t.Row
		if len(parts) < rt.Len() && !d.Lenient {
			return row.Value{}, fmt.Errorf("nested row has %d fields, its type %s has %d", len(parts), t, rt.Len())
		}
		fields := make([]row.Value, rt.Len())
		for i := range fields[:min(len(fields), len(parts))] {
			v, err := d.Parse(parts[i], &rt.Types[i], level+1)
			if err != nil {
				return row.Value{}, fmt.Errorf("field %s: %w", rt.Names[i], err)
			}
			fields[i] = v
		}
		return row.RowValue(fields), nil
	}
	return d.Scalar(s, t)
}

func (d *Values) sep(level int) string {
	if level > MaxLevel {
		level = MaxLevel
	}
	return d.Seps[level]
}

// Quote renders a bad value for a message, shortened.
func Quote(b []byte) string {
	s := string(b)
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strconv.Quote(s)
}

var intBits = [...]int{types.TinyInt: 8, types.SmallInt: 16, types.Int: 32, types.BigInt: 64}

// ParseInt reads an optionally signed decimal integer of the integer kind k, as Java's
// Integer.parseInt and friends do.
func ParseInt(b []byte, k types.Kind) (int64, bool) {
	return parseInt(b, intBits[k])
}

func parseInt(b []byte, bits int) (int64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if i == len(b) || len(b)-i > 19 {
		if len(b)-i > 19 {
			// leading zeros may make a long literal fit
			n, err := strconv.ParseInt(string(b), 10, bits)
			return n, err == nil
		}
		return 0, false
	}
	var u uint64
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		u = u*10 + uint64(c)
	}
	limit := uint64(1) << (bits - 1)
	if neg {
		if u > limit {
			return 0, false
		}
		return -int64(u), true
	}
	if u >= limit {
		return 0, false
	}
	return int64(u), true
}

// Scalar converts text to a scalar of type t: numbers as Java parses them, booleans
// as true or false in any case, dates, times and timestamps in the layouts SeaTunnel
// detects, bytes as the text's UTF-8 bytes.
func (d *Values) Scalar(s []byte, t *types.DataType) (row.Value, error) {
	switch t.Kind {
	case types.String:
		return row.StringValue(d.Arena.Keep(s)), nil
	case types.Null:
		return row.NullValue(), nil
	case types.Boolean:
		switch {
		case bytes.EqualFold(s, []byte("true")):
			return row.BoolValue(true), nil
		case bytes.EqualFold(s, []byte("false")) || d.Lenient:
			return row.BoolValue(false), nil
		}
		return row.Value{}, fmt.Errorf("%s is not a boolean (true or false)", Quote(s))
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		n, ok := parseInt(s, intBits[t.Kind])
		if !ok {
			return row.Value{}, fmt.Errorf("%s is not a %s", Quote(s), t.Kind)
		}
		return row.Value{T: t.Kind, I: n}, nil
	case types.Float:
		f, err := parseJavaFloat(string(s), 32)
		if err != nil {
			return row.Value{}, fmt.Errorf("%s is not a float", Quote(s))
		}
		return row.FloatValue(float32(f)), nil
	case types.Double:
		f, err := parseJavaFloat(string(s), 64)
		if err != nil {
			return row.Value{}, fmt.Errorf("%s is not a double", Quote(s))
		}
		return row.DoubleValue(f), nil
	case types.Decimal:
		return ParseDecimal(s, t.Precision, t.Scale)
	case types.Bytes:
		return row.Value{T: types.Bytes, S: d.Arena.Keep(s)}, nil
	case types.Date:
		days, ok := literal.ParseDate(string(s))
		if !ok {
			return row.Value{}, fmt.Errorf("%s is not a date (yyyy-MM-dd, yyyy/MM/dd, yyyy.MM.dd, yyyyMMdd)", Quote(s))
		}
		return row.DateValue(days), nil
	case types.Time:
		nanos, ok := literal.ParseTime(string(s))
		if !ok {
			return row.Value{}, fmt.Errorf("%s is not a time (HH:mm:ss[.fraction])", Quote(s))
		}
		return row.TimeValue(nanos), nil
	case types.Timestamp:
		nanos, ok := literal.ParseTimestamp(string(s))
		if !ok {
			return row.Value{}, fmt.Errorf("%s is not a timestamp (yyyy-MM-dd HH:mm:ss[.fraction], yyyy-MM-ddTHH:mm:ss, yyyyMMddHHmmss...)", Quote(s))
		}
		return row.TimestampValue(nanos), nil
	}
	return row.Value{}, fmt.Errorf("type %s cannot be read from text", t)
}

// parseJavaFloat reads a float as Java's Float/Double.parseFloat: surrounding whitespace
// and a trailing f, F, d or D are allowed.
func parseJavaFloat(s string, bits int) (float64, error) {
	s = strings.TrimSpace(s)
	f, err := strconv.ParseFloat(s, bits)
	if err == nil {
		return f, nil
	}
	if n := len(s); n > 1 {
		switch s[n-1] {
		case 'f', 'F', 'd', 'D':
			if c := s[n-2]; c >= '0' && c <= '9' || c == '.' {
				return strconv.ParseFloat(s[:n-1], bits)
			}
		}
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
		return f, nil // Java rounds to infinity or zero
	}
	return 0, err
}

var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// ParseDecimal reads a decimal and rescales it to decimal(precision, scale), rounding half
// up; plain literals of up to 18 digits take a fast path.
func ParseDecimal(s []byte, precision, scale int) (row.Value, error) {
	if v, ok := fastDecimal(s, precision, scale); ok {
		return v, nil
	}
	if !bytes.Equal(s, bytes.TrimSpace(s)) {
		return row.Value{}, fmt.Errorf("%s is not a decimal", Quote(s))
	}
	v, err := literal.ParseDecimal(string(s), precision, scale)
	if err != nil {
		return row.Value{}, err
	}
	return v, nil
}

func fastDecimal(s []byte, precision, scale int) (row.Value, bool) {
	if scale < 0 || scale > 18 {
		return row.Value{}, false
	}
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var n int64
	digits, frac := 0, 0
	seenDigit, seenPoint := false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
			if n == 0 && c == '0' && !seenPoint {
				continue // leading zeros
			}
			if digits == 18 {
				return row.Value{}, false
			}
			n = n*10 + int64(c-'0')
			digits++
		case c == '.' && !seenPoint:
			seenPoint = true
		default:
			return row.Value{}, false
		}
	}
	if !seenDigit {
		return row.Value{}, false
	}
	// leading zeros after the point still count as fraction digits
	if seenPoint {
		frac = len(s) - bytes.IndexByte(s, '.') - 1
		if frac > 18 {
			return row.Value{}, false
		}
	}
	switch {
	case frac < scale:
		mul := pow10[scale-frac]
		if n > math.MaxInt64/mul {
			return row.Value{}, false
		}
		n *= mul
	case frac > scale:
		div := pow10[frac-scale]
		q, r := n/div, n%div
		if r*2 >= div {
			q++
		}
		n = q
	}
	if precision > 0 {
		if precision < 19 && n >= pow10[precision] {
			return row.Value{}, false // let the slow path say why
		}
	}
	if neg {
		n = -n
	}
	return row.DecimalValue(big.NewInt(n), scale), true
}

// DecodeBase64 reads standard base64 with or without padding.
func DecodeBase64(s []byte) ([]byte, error) {
	out := make([]byte, max(base64.StdEncoding.DecodedLen(len(s)), base64.RawStdEncoding.DecodedLen(len(s))))
	if n, err := base64.StdEncoding.Decode(out, s); err == nil {
		return out[:n], nil
	}
	n, err := base64.RawStdEncoding.Decode(out, bytes.TrimRight(s, "="))
	return out[:n], err
}
