package jsonpath

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/strait-dev/strait/internal/jsonscan"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

const doc = `{
  "store": {
    "book": [
      {"category": "reference", "author": "Nigel Rees", "title": "Sayings", "price": 8.95},
      {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword", "price": 12.99, "isbn": "0-553"},
      {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "price": 8.99}
    ],
    "bicycle": {"color": "red", "price": 19.95},
    "my key": "spaced",
    "it's": 1,
    "nothing": null,
    "esc\u0061ped": true
  },
  "expensive": 10
}`

// selected evaluates a path and renders the result as a string column would hold it.
func selected(t *testing.T, path, d string) (string, error) {
	t.Helper()
	p, err := Compile(path)
	if err != nil {
		t.Fatalf("compile %q: %v", path, err)
	}
	if err := Check(d); err != nil {
		return "", err
	}
	spans, err := p.Eval(d, nil, nil)
	if err != nil {
		return "", err
	}
	var c converter
	if p.Definite() {
		v, err := c.convert(d, spans[0].start, types.Of(types.String))
		if err != nil {
			return "", err
		}
		if v.IsNull() {
			return "<null>", nil
		}
		return v.S, nil
	}
	list := "["
	for i, s := range spans {
		if i > 0 {
			list += ","
		}
		list += d[s.start:s.end]
	}
	list += "]"
	v, err := c.convert(list, 0, types.Of(types.String))
	return v.S, err
}

func TestEval(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"$", `{"store":{"book":[{"category":"reference","author":"Nigel Rees","title":"Sayings","price":8.95},{"category":"fiction","author":"Evelyn Waugh","title":"Sword","price":12.99,"isbn":"0-553"},{"category":"fiction","author":"Herman Melville","title":"Moby Dick","price":8.99}],"bicycle":{"color":"red","price":19.95},"my key":"spaced","it's":1,"nothing":null,"escaped":true},"expensive":10}`},
		{"$.expensive", "10"},
		{"expensive", "10"},
		{"$.store.bicycle.color", "red"},
		{"$['store']['bicycle']['color']", "red"},
		{`$["store"].bicycle["color"]`, "red"},
		{"$.store['my key']", "spaced"},
		{`$.store['it\'s']`, "1"},
		{"$.store.escaped", "true"},
		{"$.store.nothing", "<null>"},
		{"$.store.book[0].author", "Nigel Rees"},
		{"$.store.book[-1].title", "Moby Dick"},
		{"$.store.book[2].price", "8.99"},
		{"$.store.bicycle", `{"color":"red","price":19.95}`},
		{"$.store.book[*].author", `["Nigel Rees","Evelyn Waugh","Herman Melville"]`},
		{"$.store.book[0,2].title", `["Sayings","Moby Dick"]`},
		{"$.store.book[1:].title", `["Sword","Moby Dick"]`},
		{"$.store.book[:2].title", `["Sayings","Sword"]`},
		{"$.store.book[-2:].title", `["Sword","Moby Dick"]`},
		{"$.store.book[*].isbn", `["0-553"]`},
		{"$..price", `[8.95,12.99,8.99,19.95]`},
		{"$..book[1].author", `["Evelyn Waugh"]`},
		{"$.store.bicycle.*", `["red",19.95]`},
		{"$.store.bicycle[*]", `["red",19.95]`},
		{"$.store.book[*].missing", `[]`},
		{"$.expensive[*]", `[]`},
		{"$..*.color", `["red"]`},
	} {
		got, err := selected(t, c.path, doc)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %s, want %s", c.path, got, c.want)
		}
	}
}

func TestEvalDeepScanOrder(t *testing.T) {
	got, err := selected(t, "$..b", `{"a":{"b":1},"b":2,"c":[{"b":{"b":3}}]}`)
	if err != nil || got != `[2,1,{"b":3},3]` {
		t.Fatalf("got %s %v", got, err)
	}
	got, err = selected(t, "$..*", `{"a":{"b":1},"c":2}`)
	if err != nil || got != `[{"b":1},2,1]` {
		t.Fatalf("got %s %v", got, err)
	}
}

func TestEvalErrors(t *testing.T) {
	for _, c := range []struct{ path, doc, msg string }{
		{"$.f1", `{"f2": 1}`, "No results for path: $['f1']"},
		{"$.a.b", `{"a": {}}`, "No results for path: $['a']['b']"},
		{"$.a.b.c", `{"a": {}}`, "Missing property in path $['a']['b']"},
		{"$.a.b", `{"a": "x"}`, "Expected to find an object with property ['b'] in path $['a'] but found a string"},
		{"$.a[0]", `{"a": {"x": 1}}`, "Filter: [0] can only be applied to arrays"},
		{"$.a[0]", `{"a": null}`, "The path $['a'] is null"},
		{"$.a[3]", `{"a": [1]}`, "No results for path: $['a'][3]"},
		{"$.a[*]", `{}`, "Missing property in path $['a']"},
		{"$[0]", `{"a": 1}`, "can only be applied to arrays"},
		{"$.a", `{"a": 1`, "invalid JSON"},
		{"$.a", `{"a": 01}`, "invalid JSON"},
		{"$.a", `{'a': 1}`, "invalid JSON"},
		{"$.a", `{"a": 1} x`, "invalid JSON: unexpected 'x' after the value"},
		{"$.a", ` `, "invalid JSON: no value"},
		{"$.a", "{\"a\": \"\x01\"}", "control character"},
	} {
		_, err := selected(t, c.path, c.doc)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s on %s: error %v, want %q", c.path, c.doc, err, c.msg)
		}
		var de *dataError
		if err != nil && !strings.Contains(err.Error(), "invalid JSON") && !errors.As(err, &de) {
			t.Errorf("%s: %T is not a data error", c.path, err)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct{ path, msg string }{
		{"", "the path is empty"},
		{"$.", "must not end with '.'"},
		{"$..", "must not end with '.'"},
		{"$.a..", "must not end with '.'"},
		{"$.a b", "bracket notation"},
		{"$.a.length()", "functions such as length() are not supported"},
		{"$[?(@.a > 1)]", "filters"},
		{"@.a", "only for filters"},
		{"$['a','b']", "several members"},
		{"$[1:2:3]", "step"},
		{"$[x]", "unexpected"},
		{"$[1", "unclosed"},
		{"$['a", "unclosed quote"},
		{"$[a1]", "unexpected"},
		{"$[1,x]", "bad array index"},
		{"$x", "unexpected"},
	} {
		_, err := Compile(c.path)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want %q", c.path, err, c.msg)
		}
	}
}

func TestDefinite(t *testing.T) {
	for path, def := range map[string]bool{
		"$": true, "$.a.b[0]": true, "$['a'][-1]": true,
		"$.a[*]": false, "$..a": false, "$.a[0,1]": false, "$.a[1:]": false, "$.*": false,
	} {
		p, err := Compile(path)
		if err != nil || p.Definite() != def {
			t.Errorf("%s: definite %v, want %v (%v)", path, p != nil && p.Definite(), def, err)
		}
	}
}

func TestConvert(t *testing.T) {
	for _, c := range []struct {
		json, typ, want string
	}{
		{`"this is a string"`, "string", "this is a string"},
		{`42`, "string", "42"},
		{`-0`, "string", "0"},
		{`3.10`, "string", "3.1"},
		{`1e3`, "string", "1000.0"},
		{`1.5e-7`, "string", "1.5E-7"},
		{`0.1234567890123456789`, "string", "0.1234567890123456789"},
		{`12345678901234567890e-30`, "string", "1.2345678901234567890E-11"},
		{`true`, "string", "true"},
		{`{"a": [1, 2.50, "x\"\n\u00e9\u0001"], "b": null}`, "string", `{"a":[1,2.5,"x\"\né\u0001"],"b":null}`},
		{`"true"`, "boolean", "true"},
		{`"TRUE "`, "boolean", "true"},
		{`"yes"`, "boolean", "false"},
		{`1`, "boolean", "false"},
		{`false`, "boolean", "false"},
		{`"42"`, "int", "42"},
		{`" 42 "`, "int", "42"},
		{`42`, "int", "42"},
		{`3.99`, "int", "3"},
		{`-3.99`, "int", "-3"},
		{`2147483648`, "bigint", "2147483648"},
		{`"9223372036854775807"`, "bigint", "9223372036854775807"},
		{`"12"`, "tinyint", "12"},
		{`-300`, "smallint", "-300"},
		{`"3.14"`, "float", "3.14"},
		{`3.14`, "double", "3.14"},
		{`42`, "double", "42.0"},
		{`"NaN"`, "double", "NaN"},
		{`"1.5f"`, "double", "1.5"},
		{`"10.55"`, "decimal(4, 2)", "10.55"},
		{`10.55`, "decimal(4, 2)", "10.55"},
		{`10.555`, "decimal(5, 2)", "10.56"},
		{`7`, "decimal(10, 3)", "7.000"},
		{`"2023-10-29"`, "date", "2023-10-29"},
		{`"2023/02/30"`, "date", "2023-02-28"},
		{`"2023.10.29"`, "date", "2023-10-29"},
		{`20231029`, "date", "2023-10-29"},
		{`"2023年10月29日"`, "date", "2023-10-29"},
		{`"16:12:43.459"`, "time", "16:12:43.459"},
		{`"16:12:43"`, "time", "16:12:43"},
		{`"2023-10-29 16:12:43"`, "timestamp", "2023-10-29T16:12:43"},
		{`"2023-10-29T16:12:43.123456"`, "timestamp", "2023-10-29T16:12:43.123456"},
		{`"2023-10-29 16:12:43.5"`, "timestamp", "2023-10-29T16:12:43.500"},
		{`"2023/10/29 16:12:43"`, "timestamp", "2023-10-29T16:12:43"},
		{`"20231029161243"`, "timestamp", "2023-10-29T16:12:43"},
		{`"2023年10月29日 16时12分43秒"`, "timestamp", "2023-10-29T16:12:43"},
		{`"aGVsbG8="`, "bytes", "[104, 101, 108, 108, 111]"},
		{`12`, "bytes", "null"},
		{`["item1", "item2", null]`, "array<string>", "[item1, item2, null]"},
		{`[1, "2", 3.7]`, "array<int>", "[1, 2, 3]"},
		{`{"a": 1, "b": 2}`, "array<int>", "[null, null]"},
		{`"x"`, "array<int>", "[]"},
		{`{"a": 1, "b": null}`, "map<string, int>", `{"a":1,"b":null}`},
		{`{"1": "x", "2": "y"}`, "map<int, string>", `{"1":"x","2":"y"}`},
		{`[1]`, "map<string, int>", `{}`},
		{`{"b": "x", "a": "1", "c": 3}`, "{a = int, b = string}", "[1, x]"},
		{`[1, "x", "extra"]`, "{a = int, b = string}", "[1, x]"},
		{`[1]`, "{a = int, b = string}", "[1, null]"},
		{`"x"`, "{a = int, b = string}", "[null, null]"},
		{`null`, "int", "null"},
		{`"anything"`, "null", "null"},
	} {
		typ, err := types.Parse(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(c.json); err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		var conv converter
		v, err := conv.convert(c.json, jsonscan.SkipSpace(c.json, 0), typ)
		if err != nil {
			t.Errorf("%s as %s: %v", c.json, c.typ, err)
			continue
		}
		if got := row.AppendText(nil, v); string(got) != c.want {
			t.Errorf("%s as %s = %s, want %s", c.json, c.typ, got, c.want)
		}
		if !v.IsNull() && v.T != typ.Kind {
			t.Errorf("%s as %s: value of type %s", c.json, c.typ, v.T)
		}
	}
}

func TestConvertErrors(t *testing.T) {
	for _, c := range []struct{ json, typ, msg string }{
		{`"abc"`, "int", `"abc" is not an int`},
		{`2147483648`, "int", `"2147483648" is not an int`},
		{`true`, "int", `"true" is not an int`},
		{`{"a":1}`, "int", `"" is not an int`},
		{`3.0`, "tinyint", `"3.0" is not a tinyint`},
		{`300`, "tinyint", `"300" is not a tinyint`},
		{`"x"`, "double", `"x" is not a double`},
		{`"inf"`, "double", `"inf" is not a double`},
		{`"1,5"`, "decimal(4, 2)", "is not a decimal"},
		{`123.4`, "decimal(4, 2)", "does not fit decimal(4, 2)"},
		{`"2023-02-30"`, "date", "is not a date"},
		{`"29/10/2023"`, "date", "is not a date"},
		{`"16:12"`, "time", "is not a time"},
		{`"24:00:00"`, "time", "is not a time"},
		{`"2023-10-29"`, "timestamp", "is not a timestamp"},
		{`"2023-02-30T10:00:00.1"`, "timestamp", "is not a timestamp"},
		{`"@@"`, "bytes", "not base64"},
		{`["x"]`, "array<int>", `"x" is not an int`},
		{`{"a": "x"}`, "{a = int}", `field a: "x" is not an int`},
		{`{"k": 1}`, "map<int, int>", `"k" is not an int`},
	} {
		typ, err := types.Parse(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		var conv converter
		_, err = conv.convert(c.json, 0, typ)
		var ce *conversionError
		if err == nil || !strings.Contains(err.Error(), c.msg) || !errors.As(err, &ce) {
			t.Errorf("%s as %s: error %v, want %q", c.json, c.typ, err, c.msg)
		}
	}
}

var fuzzTypes = []types.DataType{
	types.Of(types.String), types.Of(types.Int), types.Of(types.Double), types.Of(types.Boolean),
	types.MustParse("array<string>"), types.MustParse("map<string, string>"), types.MustParse("{a = string}"),
	types.Of(types.Timestamp), types.Of(types.Date), types.MustParse("decimal(10, 2)"), types.Of(types.Bytes),
}

// FuzzCheckAndEval feeds documents to the checker, the evaluator and the converters: nothing
// may panic, and every selected span must itself be valid JSON.
func FuzzCheckAndEval(f *testing.F) {
	for _, s := range []string{doc, `[1,[2,[3]]]`, `{"a":"\u00e9"}`, `"x"`, `{"a":{"b":[{"c":1}]}}`, `[`, `{"a":1,}`} {
		f.Add(s)
	}
	paths := []*Path{}
	for _, p := range []string{"$", "$.a", "$..c", "$.a.b[0].c", "$[*][-1]", "$.*[1:3]", "$..*"} {
		c, err := Compile(p)
		if err != nil {
			f.Fatal(err)
		}
		paths = append(paths, c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Compile(s) // any text is tried as a path too
		if Check(s) != nil {
			return
		}
		var conv converter
		var m memo
		for _, p := range paths {
			spans, err := p.Eval(s, nil, nil)
			spans2, err2 := p.Eval(s, nil, &m)
			if (err == nil) != (err2 == nil) || len(spans) != len(spans2) {
				t.Fatalf("%s on %q: the memo changes the result", p, s)
			}
			if err != nil {
				continue
			}
			for _, sp := range spans {
				if err := Check(s[sp.start:sp.end]); err != nil {
					t.Fatalf("%s on %q selected %q: %v", p, s, s[sp.start:sp.end], err)
				}
				for _, typ := range fuzzTypes {
					_, _ = conv.convert(s, sp.start, typ)
				}
			}
		}
	})
}

func TestHugeExponents(t *testing.T) {
	var conv converter
	for _, c := range []struct{ json, typ string }{
		{`1e999999999`, "decimal(10, 2)"},
		{`"1e999999999"`, "decimal(10, 2)"},
		{`1.0000000000000000000e999999999999`, "int"},
		{`1.0000000000000000000e999999999999`, "bigint"},
	} {
		_, err := conv.convert(c.json, 0, types.MustParse(c.typ))
		if err == nil {
			t.Errorf("%s as %s passed", c.json, c.typ)
		}
	}
	v, err := conv.convert(`1e-5`, 0, types.MustParse("decimal(10, 2)"))
	if err != nil || v.String() != "0.00" {
		t.Errorf("1e-5: %v %v", v, err)
	}
}

// FuzzCompile: no path text may panic the compiler, and a compiled path evaluates safely.
func FuzzCompile(f *testing.F) {
	for _, p := range []string{"$.a.b", "$['a']['b c']", "$..x[0]", "$[1:2]", "$[-1,2]", "$.*", "a.b", "$[\"q\\\"\"]", "$['", "$[", "$..", "$[?(@.a)]"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Compile(text)
		if err != nil {
			return
		}
		_ = p.String()
		if _, err := p.Eval(doc, nil, nil); err != nil {
			var de *dataError
			if !errors.As(err, &de) {
				t.Fatalf("%q: %T %v", text, err, err)
			}
		}
	})
}

func TestAppendValue(t *testing.T) {
	m := &row.MapValue{Keys: []row.Value{row.StringValue("k\n"), row.IntValue(2)}, Vals: []row.Value{row.DoubleValue(1e10), row.NullValue()}}
	v := row.RowValue([]row.Value{
		row.StringValue("a\x01\"é"), row.BoolValue(true), row.FloatValue(1.5), row.DoubleValue(math.NaN()),
		row.BytesValue([]byte("hi")), row.DateValue(19659), row.MapOfValues(m),
		row.ArrayValue([]row.Value{row.BigIntValue(-3), row.NullValue()}),
	})
	got := string(appendValue(nil, v))
	want := `["a\u0001\"é",true,1.5,"NaN","aGk=","2023-10-29",{"k\n":1.0E10,"2":null},[-3,null]]`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if err := Check(got); err != nil {
		t.Fatal(err)
	}
}
