package mysqltype

import (
	"reflect"
	"testing"
)

func TestTypeMembers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"enum('a','b')", []string{"a", "b"}},
		{"set('x','y','z')", []string{"x", "y", "z"}},
		{"enum('it''s','back\\\\slash','q\\'uote')", []string{"it's", "back\\slash", "q'uote"}},
		{"enum('a,b','')", []string{"a,b", ""}},
		{"enum('(paren)')", []string{"(paren)"}},
		{"int(11)", nil},
		{"varchar", nil},
		{"enum('unterminated", nil},
	} {
		if got := TypeMembers(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{"'a','b'", "'it''s'", "'x\\'y'", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { Members(s) })
}
