package json

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/connectors/internal/format"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// decodeJSONLine decodes line with a json source whose schema is the given columns.
func decodeJSONLine(t *testing.T, line string, cols ...string) ([]row.Value, error) {
	t.Helper()
	var fcols []format.Column
	for i := 0; i+1 < len(cols); i += 2 {
		fcols = append(fcols, format.Column{Name: cols[i], Type: types.MustParse(cols[i+1]), Out: len(fcols)})
	}
	fields := make([]row.Value, len(fcols))
	err := NewLines(fcols).Decode([]byte(line), fields)
	return fields, err
}

// A line is read as SeaTunnel's Jackson reader reads it: JSON as RFC 8259 writes it, with
// control characters allowed in strings (ALLOW_UNESCAPED_CONTROL_CHARS).
func TestDecodeJSONLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want string
	}{
		{`{"a": 1, "s": "x"}`, "1|x"},
		{"{\"a\": -0, \"s\": \"tab\there\x01\"}", "0|tab\there\x01"},
		{`{"s": "\u00e9\uD83D\uDE00\"\\\/", "a": 7}`, "7|é\U0001F600\"\\/"},
		{`{"s": "\uDE00x"}`, "null|\uFFFDx"},
		{`{"s": 1.5e3, "a": "12"}`, "12|1.5e3"},
		{`{"s": {"k": [1, "]"]}}`, `null|{"k": [1, "]"]}`},
		{`{"x": {"deep": [[[]]], "y": "\u0022"}, "a": 3}`, "3|null"},
		{`{}`, "null|null"},
	} {
		fields, err := decodeJSONLine(t, c.line, "a", "int", "s", "string")
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if got := fields[0].String() + "|" + fields[1].String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.line, got, c.want)
		}
	}
}

// What Jackson refuses is an error naming the byte, never a value read from half a token.
func TestDecodeJSONLineErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"a": 01}`, "bad JSON at byte 8: expected ',' or '}', found '1'"},
		{`{"a": +1}`, "bad JSON at byte 7: expected a value, found '+'"},
		{`{"a": 1.}`, "bad JSON at byte 9: expected a digit, found '}'"},
		{`{"a": 1, "s": .5}`, "bad JSON at byte 15: expected a value, found '.'"},
		{`{"s": NaN}`, "bad JSON at byte 7: expected a value, found 'N'"},
		{`{"s": "x\q"}`, `bad JSON at byte 9: bad escape \q`},
		{`{"s": "\u12"}`, `bad JSON at byte 8: bad \u escape`},
		{`{"x": [1 2]}`, "bad JSON at byte 10: expected ',' or ']', found '2'"},
		{`{"x": {"k" 1}}`, "bad JSON at byte 12: expected ':', found '1'"},
		{`{"x": "abc`, "bad JSON at byte 7: unterminated string"},
		{`{"x": ` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`, "nested deeper than 512 levels"},
		{`{"a": 1} x`, "bad JSON at byte 10: unexpected 'x' after the object"},
	} {
		_, err := decodeJSONLine(t, c.line, "a", "int", "s", "string")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.line, err, c.want)
		}
	}
}
