package plugindoc

import (
	"testing"

	"github.com/strait-dev/strait/config"
)

type delimiterOptions struct {
	Field string `opt:"field_delimiter" default:"\u0001" doc:"between fields"`
	Row   string `opt:"row_delimiter" default:"\r\n" doc:"between rows"`
	Tab   string `opt:"tab" default:"a\tb" doc:"a tab"`
	Plain string `opt:"plain" default:"${transactionId}" doc:"as written"`
}

// TestControlCharactersInDefaults: a default holding control characters (a delimiter's) is
// shown with escapes, so a table row stays one line and the character can be read.
func TestControlCharactersInDefaults(t *testing.T) {
	want := map[string]string{"field_delimiter": `\u0001`, "row_delimiter": `\r\n`, "tab": `a\tb`, "plain": "${transactionId}"}
	rows := Rows(config.SpecOf[delimiterOptions]())
	if len(rows) != len(want) {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if r.Default != want[r.Name] {
			t.Errorf("%s: default %q, want %q", r.Name, r.Default, want[r.Name])
		}
	}
}
