package jsonscan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

var strict = &Rules{MaxDepth: 10000}

func TestCheck(t *testing.T) {
	for _, s := range []string{
		`1`, `-0`, `0.5e-3`, `1E+10`, `"a\"b\\c\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, `true`, `false`, `null`,
		` {"a": [1, 2, {"b": null}], "c": "d"} `, `[]`, `{}`, `[[[]]]`, "\"é\"", `{"":""}`,
	} {
		if err := Check(s, strict); err != nil {
			t.Errorf("%s: %v", s, err)
		}
		if err := Check([]byte(s), strict); err != nil {
			t.Errorf("%s as bytes: %v", s, err)
		}
	}
}

func TestCheckErrors(t *testing.T) {
	for _, c := range []struct {
		text string
		off  int
		msg  string
	}{
		{``, 0, "no value"},
		{`  `, 2, "no value"},
		{`{"a": 1`, 7, "expected ',' or '}', found end of text"},
		{`{"a":1,}`, 7, "expected a key, found '}'"},
		{`{"a" 1}`, 5, "expected ':', found '1'"},
		{`[1 2]`, 3, "expected ',' or ']', found '2'"},
		{`[1,]`, 3, "expected a value, found ']'"},
		{`{"a": 1} x`, 9, "unexpected 'x' after the value"},
		{`01`, 1, "unexpected '1' after the value"},
		{`-`, 1, "expected a digit, found end of text"},
		{`1.`, 2, "expected a digit, found end of text"},
		{`1e+`, 3, "expected a digit, found end of text"},
		{`+1`, 0, "expected a value, found '+'"},
		{`.5`, 0, "expected a value, found '.'"},
		{`NaN`, 0, "expected a value, found 'N'"},
		{`tru`, 0, "expected a value, found 't'"},
		{`"abc`, 0, "unterminated string"},
		{`"ab\`, 3, "unterminated string"},
		{`"\x"`, 1, `bad escape \x`},
		{`"\u12g4"`, 1, `bad \u escape`},
		{"\"a\tb\"", 2, `control character '\t' in a string`},
		{`{'a': 1}`, 1, `expected a key, found '\''`},
		{`é`, 0, "expected a value, found 'é'"},
	} {
		err := Check(c.text, strict)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset != c.off || se.Msg != c.msg {
			t.Errorf("%q: %v, want %q at offset %d", c.text, err, c.msg, c.off)
		}
	}
	if err := Check(`{"a": 1} x`, strict); err == nil || err.Error() != "invalid JSON: unexpected 'x' after the value at offset 9" {
		t.Errorf("message: %v", err)
	}
}

func TestRules(t *testing.T) {
	loose := &Rules{MaxDepth: 3, ControlChars: true}
	if err := Check("\"a\tb\x01\"", loose); err != nil {
		t.Errorf("control characters refused: %v", err)
	}
	if err := Check(`[[[1]]]`, loose); err != nil {
		t.Errorf("three levels refused: %v", err)
	}
	err := Check(`[[[[1]]]]`, loose)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 3 || se.Msg != "nested deeper than 3 levels" {
		t.Errorf("four levels: %v", err)
	}
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if err := Check(deep, strict); err == nil || !strings.Contains(err.Error(), "nested deeper than 10000 levels") {
		t.Errorf("20000 levels: %v", err)
	}
}

func TestValueAndString(t *testing.T) {
	s := `{"a":"x\ny", "b":[1,{"c":2}],"d":-1.5e3} tail`
	end, err := Value(s, 0, 0, strict)
	if err != nil || s[end:] != " tail" {
		t.Fatalf("Value end %d (%v)", end, err)
	}
	if end, escaped, err := String(s, 5, strict); err != nil || !escaped || s[5:end] != `"x\ny"` {
		t.Errorf("String = %q %v %v", s[5:end], escaped, err)
	}
	if end, escaped, err := String([]byte(`"plain" x`), 0, strict); err != nil || escaped || end != 7 {
		t.Errorf("plain String = %d %v %v", end, escaped, err)
	}
	num := strings.Index(s, "-1.5")
	if end, err := Number(s, num); err != nil || s[num:end] != "-1.5e3" {
		t.Errorf("Number = %q %v", s[num:end], err)
	}
	arr := strings.Index(s, "[")
	if Skip(s, 0) != end || s[arr:Skip(s, arr)] != `[1,{"c":2}]` || s[num:Skip(s, num)] != "-1.5e3" || SkipString(s, 5) != 11 {
		t.Errorf("Skip: %d %q %q %d", Skip(s, 0), s[arr:Skip(s, arr)], s[num:Skip(s, num)], SkipString(s, 5))
	}
}

func TestUnescape(t *testing.T) {
	for raw, want := range map[string]string{
		`plain`:              "plain",
		`a\"b\\c\/d`:         `a"b\c/d`,
		`\b\f\n\r\t`:         "\b\f\n\r\t",
		`\u00e9\u4e2d`:       "é中",
		`\uD83D\uDE00`:       "\U0001F600",
		`\uD83D`:             "\uFFFD",
		`\uDE00\uD83D`:       "\uFFFD\uFFFD",
		`\uD83Dx`:            "\uFFFDx",
		`\uD83D\u0041`:       "\uFFFDA",
		"raw\x01control\xff": "raw\x01control\xff",
	} {
		if got := Unescape(raw); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", raw, got, want)
		}
		if got := string(AppendUnescaped([]byte(">"), []byte(raw))); got != ">"+want {
			t.Errorf("AppendUnescaped(%q) = %q", raw, got)
		}
	}
}

func TestWalk(t *testing.T) {
	s := `{ "a" : 1 , "b\"c" : [ 1 , "x]" , { } ] , "d" : { "e" : null } }`
	var names []string
	var values []string
	EachMember(s, 0, func(name string, v int) bool {
		names = append(names, name)
		values = append(values, s[v:Skip(s, v)])
		return true
	})
	if strings.Join(names, "|") != `a|b\"c|d` || strings.Join(values, "|") != `1|[ 1 , "x]" , { } ]|{ "e" : null }` {
		t.Errorf("members %q = %q", names, values)
	}
	var elems []string
	arr := strings.Index(s, "[")
	EachElem(s, arr, func(v int) bool { elems = append(elems, s[v:Skip(s, v)]); return len(elems) < 2 })
	if strings.Join(elems, "|") != `1|"x]"` {
		t.Errorf("elements %q", elems)
	}
	EachMember(`{}`, 0, func(string, int) bool { t.Error("a member in {}"); return true })
	EachElem(`[ ]`, 0, func(int) bool { t.Error("an element in [ ]"); return true })
}

// FuzzCheck: Check accepts what encoding/json accepts, as a string and as bytes (and more
// only with ControlChars); on what it accepts, Value ends where Skip does, strings decode as
// encoding/json decodes them, and the members and elements of the top value are those
// encoding/json reads.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"a": [1, 2.5e-3, {"b": null}], "c": "d\u00e9\uD83D\uDE00"}`, `[true,false,"x\"y"]`, `"\uDE00"`,
		`-0.0`, `{"a":1,}`, `[01]`, "\"a\tb\"", `{"a" "b"}`, `[[[[]]]]`, `  "x"  `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := Check(s, strict)
		if valid := json.Valid([]byte(s)); (err == nil) != valid {
			t.Fatalf("%q: Check %v, encoding/json valid %v", s, err, valid)
		}
		if berr := Check([]byte(s), strict); (berr == nil) != (err == nil) {
			t.Fatalf("%q: Check of the string %v, of its bytes %v", s, err, berr)
		}
		if err == nil && Check(s, &Rules{MaxDepth: 10000, ControlChars: true}) != nil {
			t.Fatalf("%q: refused when control characters are allowed", s)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("%q: error %v", s, err)
			}
			return
		}
		i := SkipSpace(s, 0)
		end, _ := Value(s, i, 0, strict)
		if got := Skip(s, i); got != end {
			t.Fatalf("%q: Skip ends at %d, Value at %d", s, got, end)
		}
		switch s[i] {
		case '"':
			var want string
			if json.Unmarshal([]byte(s), &want) == nil && utf8.ValidString(s) {
				if got := Unescape(s[i+1 : end-1]); got != want {
					t.Fatalf("%q: Unescape %q, encoding/json %q", s, got, want)
				}
			}
		case '[':
			var want []json.RawMessage
			_ = json.Unmarshal([]byte(s), &want)
			n := 0
			EachElem(s, i, func(v int) bool {
				if n >= len(want) || string(want[n]) != s[v:Skip(s, v)] {
					t.Fatalf("%q: element %d is %q", s, n, s[v:Skip(s, v)])
				}
				n++
				return true
			})
			if n != len(want) {
				t.Fatalf("%q: %d elements, encoding/json %d", s, n, len(want))
			}
		case '{':
			n := 0
			EachMember(s, i, func(name string, v int) bool { n++; return true })
			dec := json.NewDecoder(strings.NewReader(s))
			want := 0
			if _, err := dec.Token(); err == nil {
				for dec.More() {
					var val json.RawMessage
					if _, err := dec.Token(); err != nil || dec.Decode(&val) != nil {
						break
					}
					want++
				}
			}
			if n != want {
				t.Fatalf("%q: %d members, encoding/json %d", s, n, want)
			}
		}
	})
}

func TestExponentEndAndHex4(t *testing.T) {
	for _, tc := range []struct {
		s    string
		i    int
		want int
	}{
		{"1e5", 1, 3}, {"1E+10,", 1, 5}, {"2e-3x", 1, 4}, {"1e", 1, 1}, {"1e+", 1, 1}, {"1ex", 1, 1}, {"12", 2, 2}, {"1.5", 1, 1},
	} {
		if got := ExponentEnd(tc.s, tc.i); got != tc.want {
			t.Errorf("ExponentEnd(%q, %d) = %d, want %d", tc.s, tc.i, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s  string
		r  rune
		ok bool
	}{
		{"00e9", 0xe9, true}, {"D83D", 0xd83d, true}, {"abcF", 0xabcf, true}, {"12g4", 0, false}, {"123", 0, false},
	} {
		if r, ok := Hex4(tc.s, 0); r != tc.r || ok != tc.ok {
			t.Errorf("Hex4(%q) = %x %v, want %x %v", tc.s, r, ok, tc.r, tc.ok)
		}
	}
}
