// Package literal turns values written in job configs (FakeSource `rows`, Assert `equals_to`,
// column default values) into typed row values, the way SeaTunnel's JSON-to-row converters
// read them: numbers or numeric strings for numbers, dates, times and timestamps as text in
// several layouts, bytes as base64, arrays as lists, maps as objects and nested rows as
// positional lists.
package literal

import (
	"encoding/base64"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/config/hocon"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// Error is a literal that does not convert to its type. Path locates the offending part
// inside the literal ("[2]", "[1].c_int", `{"2024-01-26"}` for a map key); Pos is where that
// part was written.
type Error struct {
	Path string
	Pos  hocon.Pos
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Converter converts literals. Now gives the instant CURRENT_DATE, CURRENT_TIME and
// CURRENT_TIMESTAMP stand for; nil means time.Now.
type Converter struct {
	Now func() time.Time
}

// Convert turns a config literal into a value of type t with the default Converter.
// A missing or null literal is a null value of any type.
func Convert(v *hocon.Value, t types.DataType) (row.Value, error) {
	var c Converter
	return c.Convert(v, t)
}

// Convert turns a config literal into a value of type t.
func (c *Converter) Convert(v *hocon.Value, t types.DataType) (row.Value, error) {
	out, err := c.conv(v, t)
	if err != nil {
		return row.Value{}, err
	}
	return out, nil
}

func (c *Converter) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func fail(v *hocon.Value, format string, args ...any) *Error {
	e := &Error{Msg: sprintf(format, args...)}
	if v != nil {
		e.Pos = v.Pos
	}
	return e
}

// describe renders what was found, for messages: the text of scalars, the kind otherwise.
func describe(v *hocon.Value) string {
	switch v.Kind {
	case hocon.String:
		return strconv.Quote(v.Str)
	case hocon.Number:
		return v.Str
	case hocon.Bool:
		return strconv.FormatBool(v.Bool)
	case hocon.Object:
		return "an object"
	case hocon.Array:
		return "a list"
	}
	return v.Kind.String()
}

func (e *Error) prefix(p string) *Error {
	if e.Path == "" || e.Path[0] == '[' || e.Path[0] == '{' {
		e.Path = p + e.Path
	} else {
		e.Path = p + "." + e.Path
	}
	return e
}

// scalarText is the text of a number or string literal, as the converters read it.
func scalarText(v *hocon.Value) (string, bool) {
	switch v.Kind {
	case hocon.String, hocon.Number:
		return v.Str, true
	}
	return "", false
}

// A clock is how a date, a time or a timestamp is read: from text, or a keyword for the
// current one.
type clock struct {
	like    string                     // what it is, with an example
	layouts string                     // the layouts read besides the example's, for errors
	now     string                     // the keyword of the current one
	current func(time.Time) row.Value  // the current one, of the time now
	parse   func(string) (int64, bool) // the text's value
	value   func(int64) row.Value      // the typed value of parse's result
}

var clocks = map[types.Kind]clock{
	types.Date: {`a date like "2012-12-21"`, ` (or yyyy/MM/dd, yyyy.MM.dd, yyyyMMdd)`,
		"CURRENT_DATE", row.DateOf, ParseDate, row.DateValue},
	types.Time: {`a time like "12:34:56"`, ` or "12:34:56.789"`,
		"CURRENT_TIME", row.TimeOf, ParseTime, row.TimeValue},
	types.Timestamp: {`a timestamp like "2012-12-21T12:34:56"`, ` (T or space, optional fraction, / or . in the date, or yyyyMMddHHmmss)`,
		"CURRENT_TIMESTAMP", row.TimestampOf, ParseTimestamp, row.TimestampValue},
}

// clock converts v as k reads it.
func (c *Converter) clock(v *hocon.Value, k clock) (row.Value, *Error) {
	s, ok := scalarText(v)
	if !ok {
		return row.Value{}, fail(v, "expected %s, got %s", k.like, describe(v))
	}
	if strings.EqualFold(s, k.now) {
		return k.current(c.now()), nil
	}
	n, ok := k.parse(s)
	if !ok {
		return row.Value{}, fail(v, "expected %s%s, got %s", k.like, k.layouts, describe(v))
	}
	return k.value(n), nil
}

func (c *Converter) conv(v *hocon.Value, t types.DataType) (row.Value, *Error) {
	if v == nil || v.Kind == hocon.Null || t.Kind == types.Null {
		return row.NullValue(), nil
	}
	switch t.Kind {
	case types.String:
		switch v.Kind {
		case hocon.String, hocon.Number:
			return row.StringValue(v.Str), nil
		case hocon.Bool:
			return row.StringValue(strconv.FormatBool(v.Bool)), nil
		default:
			js, err := v.MarshalJSON()
			if err != nil {
				return row.Value{}, fail(v, "%v", err)
			}
			return row.StringValue(string(js)), nil
		}
	case types.Boolean:
		if v.Kind == hocon.Bool {
			return row.BoolValue(v.Bool), nil
		}
		if v.Kind == hocon.String {
			switch strings.ToLower(strings.TrimSpace(v.Str)) {
			case "true":
				return row.BoolValue(true), nil
			case "false":
				return row.BoolValue(false), nil
			}
		}
		return row.Value{}, fail(v, "expected boolean (true or false), got %s", describe(v))
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		s, ok := scalarText(v)
		if !ok {
			return row.Value{}, fail(v, "expected %s, got %s", t.Kind, describe(v))
		}
		lo, hi := t.Kind.IntRange()
		n, err := ParseInteger(s, lo, hi)
		if err != nil {
			return row.Value{}, fail(v, "expected %s (%d..%d), got %s", t.Kind, lo, hi, describe(v))
		}
		return row.Value{T: t.Kind, I: n}, nil
	case types.Float, types.Double:
		s, ok := scalarText(v)
		if !ok {
			return row.Value{}, fail(v, "expected %s, got %s", t.Kind, describe(v))
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return row.Value{}, fail(v, "expected %s, got %s", t.Kind, describe(v))
		}
		if t.Kind == types.Double {
			if err != nil {
				return row.Value{}, fail(v, "%s is out of range for double", s)
			}
			return row.DoubleValue(f), nil
		}
		f32 := float32(f)
		if err != nil || (math.IsInf(float64(f32), 0) && !math.IsInf(f, 0)) {
			return row.Value{}, fail(v, "%s is out of range for float", s)
		}
		return row.FloatValue(f32), nil
	case types.Decimal:
		s, ok := scalarText(v)
		if !ok {
			return row.Value{}, fail(v, "expected %s, got %s", t, describe(v))
		}
		d, err := ParseDecimal(s, t.Precision, t.Scale)
		if err != nil {
			return row.Value{}, fail(v, "%v", err)
		}
		return d, nil
	case types.Bytes:
		if v.Kind != hocon.String {
			return row.Value{}, fail(v, "expected bytes as a base64 string, got %s", describe(v))
		}
		b, err := decodeBase64(v.Str)
		if err != nil {
			return row.Value{}, fail(v, "expected bytes as a base64 string, got %s", describe(v))
		}
		return row.BytesValue(b), nil
	case types.Date, types.Time, types.Timestamp:
		return c.clock(v, clocks[t.Kind])
	case types.Array:
		if v.Kind != hocon.Array {
			return row.Value{}, fail(v, "expected a list for %s, got %s", t, describe(v))
		}
		elems := make([]row.Value, len(v.Elems))
		for i, e := range v.Elems {
			ev, err := c.conv(e, *t.Elem)
			if err != nil {
				return row.Value{}, err.prefix("[" + strconv.Itoa(i) + "]")
			}
			elems[i] = ev
		}
		return row.ArrayValue(elems), nil
	case types.Map:
		obj := v
		if v.Kind == hocon.String {
			// a map written as text: read as an object when it is one; otherwise it is an
			// empty map, as SeaTunnel's JSON converter takes a text node (it has no fields)
			parsed, err := hocon.Parse([]byte(v.Str), hocon.Options{LookupEnv: noEnv})
			if err != nil || parsed.Kind != hocon.Object {
				return row.MapOfValues(&row.MapValue{}), nil
			}
			obj = parsed
		}
		if obj.Kind != hocon.Object {
			return row.Value{}, fail(v, "expected an object for %s, got %s", t, describe(v))
		}
		m := &row.MapValue{Keys: make([]row.Value, 0, len(obj.Fields)), Vals: make([]row.Value, 0, len(obj.Fields))}
		for _, f := range obj.Fields {
			kp := &hocon.Value{Kind: hocon.String, Str: f.Key, Pos: f.Value.Pos}
			k, err := c.conv(kp, *t.Key)
			if err != nil {
				return row.Value{}, err.prefix("{" + strconv.Quote(f.Key) + "}")
			}
			val, err := c.conv(f.Value, *t.Elem)
			if err != nil {
				return row.Value{}, err.prefix(strconv.Quote(f.Key))
			}
			m.Put(k, val)
		}
		return row.MapOfValues(m), nil
	case types.Row:
		fields, err := c.rowFields(v, t.Row)
		if err != nil {
			return row.Value{}, err
		}
		return row.RowValue(fields), nil
	}
	return row.Value{}, fail(v, "unsupported type %s", t)
}

// noEnv keeps a map literal written as a string from reading the environment.
func noEnv(string) (string, bool) { return "", false }

// ConvertFields converts the fields of a row literal: a list read by position or an object
// read by field name. Missing fields are null; extra list elements are ignored, as
// SeaTunnel does.
func (c *Converter) ConvertFields(v *hocon.Value, rt *types.RowType) ([]row.Value, error) {
	f, err := c.rowFields(v, rt)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (c *Converter) rowFields(v *hocon.Value, rt *types.RowType) ([]row.Value, *Error) {
	fields := make([]row.Value, rt.Len())
	switch v.Kind {
	case hocon.Array:
		for i := range fields {
			if i >= len(v.Elems) {
				break
			}
			fv, err := c.conv(v.Elems[i], rt.Types[i])
			if err != nil {
				return nil, err.prefix("[" + strconv.Itoa(i) + "]")
			}
			fields[i] = fv
		}
	case hocon.Object:
		for i, name := range rt.Names {
			fv, err := c.conv(v.Get(name), rt.Types[i])
			if err != nil {
				return nil, err.prefix(name)
			}
			fields[i] = fv
		}
	default:
		return nil, fail(v, "expected a list (by position) or an object (by name) for row %s, got %s", rt, describe(v))
	}
	return fields, nil
}

func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// ParseInteger reads an integer written as an integer or as a number with no fraction
// ("5", " 5 ", "5.0", "1e3") and checks it lies in [lo, hi].
func ParseInteger(s string, lo, hi int64) (int64, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) || f < -9.223372036854775808e18 || f >= 9.223372036854775808e18 {
			return 0, errors.New("not an integer in range")
		}
		n = int64(f)
	}
	if n < lo || n > hi {
		return 0, errors.New("out of range")
	}
	return n, nil
}

// ParseDecimal reads a decimal literal ("12.5", "-1e3") and rescales it to decimal(p, s),
// rounding half up; it fails when the value needs more than p digits.
func ParseDecimal(s string, precision, scale int) (row.Value, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "/ ") {
		return row.Value{}, errorf("expected decimal(%d, %d), got %q", precision, scale, s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return row.Value{}, errorf("expected decimal(%d, %d), got %q", precision, scale, s)
	}
	d, err := row.DecimalFromRat(r, precision, scale)
	if err != nil {
		return row.Value{}, errorf("%s does not fit decimal(%d, %d)", s, precision, scale)
	}
	return d, nil
}
