package text

import (
	"testing"

	"github.com/strait-dev/strait/types"
)

// TestLenient: read strictly, a boolean other than true or false and a nested row with too
// few fields are errors; read as SeaTunnel's TextDeserializationSchema reads them, the
// boolean is false and the missing fields null.
func TestLenient(t *testing.T) {
	boolean := types.Of(types.Boolean)
	nested := types.RowOf(&types.RowType{Names: []string{"a", "b"}, Types: []types.DataType{types.Of(types.Int), types.Of(types.String)}})
	strict := &Values{Seps: DefaultSeparators}
	lenient := &Values{Seps: DefaultSeparators, Lenient: true}
	if _, err := strict.Parse([]byte("yes"), &boolean, 0); err == nil {
		t.Error("strict: yes read as a boolean")
	}
	if v, err := lenient.Parse([]byte("yes"), &boolean, 0); err != nil || v.I != 0 {
		t.Errorf("lenient: yes is %v %v, want false", v, err)
	}
	if v, err := lenient.Parse([]byte("TRUE"), &boolean, 0); err != nil || v.I != 1 {
		t.Errorf("lenient: TRUE is %v %v, want true", v, err)
	}
	if _, err := strict.Parse([]byte("7"), &nested, 0); err == nil {
		t.Error("strict: a nested row of one field read as two")
	}
	v, err := lenient.Parse([]byte("7"), &nested, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f := v.Fields(); len(f) != 2 || f[0].I != 7 || !f[1].IsNull() {
		t.Errorf("lenient: nested row %v, want 7 and null", f)
	}
}
