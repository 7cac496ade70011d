package config

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/strait-dev/strait/config/hocon"
)

// A Spec is a plugin's options as data: the name, type, default, whether it is required,
// the values it allows, SeaTunnel's older names for it, what it does, and whether it is a
// secret. A plugin writes its options as a struct whose fields carry the spec in tags, and
// SpecOf reads the spec from the struct; Decode fills such a struct from a plugin's block.
//
//	type Config struct {
//		Path     string   `opt:"path,required" doc:"the folder or file to read"`
//		Format   string   `opt:"file_format_type" default:"csv" enum:"text,csv,json" doc:"..."`
//		Password string   `opt:"password,secret" doc:"..."`
//		Output   string   `opt:"plugin_output" fallback:"result_table_name" doc:"..."`
//		Attempts int      `opt:"max_commit_attempts,noeffect" doc:"..."`
//		Columns  []string `opt:"read_columns" doc:"..."`
//		Limit    *int64   `opt:"limit" doc:"unset means no limit"`
//		Rules    Rules    `opt:"rules" doc:"..."`        // a nested object with a spec of its own
//		Tables   []Table  `opt:"tables" doc:"..."`       // a list of such objects
//		Props    map[string]string `opt:"properties"`   // free-form keys, values as text
//		Schema   *Options `opt:"schema" doc:"..."`       // read by the plugin itself
//	}
//
// The opt tag is the option's name, then flags: required, secret (never logged or shown),
// noeffect (accepted for SeaTunnel's configs, without effect here). The enum tag lists the
// allowed values of a string, matched in any case and returned as written in the tag. The
// fallback tag lists other names the option is read under when it is not set (SeaTunnel's
// renamed options). The default tag is the value when the option is not set, written as in
// a config file. A field without an opt tag is not an option.
//
// Two more forms serve options that several structs share and checks a plugin makes later:
//
//	type Table struct {
//		Schema *hocon.Value `opt:"schema" doc:"..."`
//		At     *Options     `opt:"."` // this object's own options, not an option
//	}
//	type Config struct {
//		Table                            // embedded without a tag: its options are Config's
//		Tables []Table `opt:"tables_configs"`
//	}
//
// A struct embedded without an opt tag contributes its options to the struct that embeds
// it. A field of type *Options tagged opt:"." receives the options of the object the struct
// is decoded from (the plugin's block, or the nested object or list element), so a check the
// plugin makes after decoding fails with Errorf naming the option at its place.
type Spec struct {
	Fields []Field
	typ    reflect.Type
	self   []int // the opt:"." field, if any
}

// Field is one option of a Spec.
type Field struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"` // string, int, bool, float, enum, list, object, list of objects, map, any
	Default   string   `json:"default,omitempty"`
	Required  bool     `json:"required,omitempty"`
	Enum      []string `json:"values,omitempty"`
	Fallbacks []string `json:"fallbacks,omitempty"`
	Doc       string   `json:"description,omitempty"`
	Secret    bool     `json:"secret,omitempty"`
	NoEffect  bool     `json:"noEffect,omitempty"`
	Fields    []Field  `json:"fields,omitempty"` // of an object or a list of objects

	hasDefault bool
	index      []int // the struct field, through embedded structs
	self       []int // of an object or a list of objects: its opt:"." field, if any
	kind       fieldKind
}

type fieldKind uint8

const (
	kString fieldKind = iota
	kBool
	kInt
	kUint
	kFloat
	kStrings
	kMap
	kStruct
	kStructs
	kOptions
	kOptionsList
	kValue
)

var (
	optionsType = reflect.TypeOf((*Options)(nil))
	valueType   = reflect.TypeOf((*hocon.Value)(nil))
)

// SpecOf reads the spec of the options struct C. A tag it cannot read is a mistake in the
// plugin, and SpecOf panics naming the field, so a plugin with one fails at start-up.
func SpecOf[C any]() *Spec {
	return specOf(reflect.TypeOf((*C)(nil)).Elem())
}

func specOf(t reflect.Type) *Spec {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("config: options of %s: want a struct", t))
	}
	s := &Spec{typ: t}
	s.addFields(t, nil, map[string]bool{})
	return s
}

// addFields adds the options of struct t, whose fields are at index below the spec's
// struct (nil for the struct itself, the path through embedded structs otherwise).
func (s *Spec) addFields(t reflect.Type, at []int, seen map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		index := append(append([]int(nil), at...), i)
		tag, ok := sf.Tag.Lookup("opt")
		if !ok {
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				s.addFields(sf.Type, index, seen)
			}
			continue
		}
		if tag == "." {
			if sf.Type != optionsType || s.self != nil {
				panic(fmt.Sprintf(`config: %s.%s: opt:"." needs a field of type *config.Options, one per struct`, t, sf.Name))
			}
			s.self = index
			continue
		}
		parts := strings.Split(tag, ",")
		f := Field{Name: parts[0], Doc: sf.Tag.Get("doc"), index: index}
		if f.Name == "" || seen[f.Name] {
			panic(fmt.Sprintf("config: %s.%s: empty or repeated option name %q", t, sf.Name, f.Name))
		}
		seen[f.Name] = true
		for _, flag := range parts[1:] {
			switch flag {
			case "required":
				f.Required = true
			case "secret":
				f.Secret = true
			case "noeffect":
				f.NoEffect = true
			default:
				panic(fmt.Sprintf("config: %s.%s: unknown flag %q", t, sf.Name, flag))
			}
		}
		if fb := sf.Tag.Get("fallback"); fb != "" {
			f.Fallbacks = strings.Split(fb, ",")
		}
		if en := sf.Tag.Get("enum"); en != "" {
			f.Enum = strings.Split(en, ",")
		}
		f.Default, f.hasDefault = sf.Tag.Lookup("default")
		f.kind, f.Type = kindOf(t, sf)
		if f.Enum != nil {
			if f.kind != kString {
				panic(fmt.Sprintf("config: %s.%s: enum on a %s", t, sf.Name, sf.Type))
			}
			f.Type = "enum"
		}
		elem := sf.Type
		if elem.Kind() == reflect.Slice {
			elem = elem.Elem()
		}
		if f.kind == kStruct || f.kind == kStructs {
			sub := specOf(elem)
			f.Fields, f.self = sub.Fields, sub.self
		}
		if f.hasDefault {
			// the default must decode: a broken one fails at start-up, not in a job
			v := reflect.New(sf.Type).Elem()
			if err := f.decode(&Options{v: &hocon.Value{Kind: hocon.Object}, used: map[string]bool{}}, defaultValue(f), v); err != nil {
				panic(fmt.Sprintf("config: %s.%s: default %q: %v", t, sf.Name, f.Default, err))
			}
		}
		s.Fields = append(s.Fields, f)
	}
}

func kindOf(t reflect.Type, sf reflect.StructField) (fieldKind, string) {
	ft := sf.Type
	switch ft {
	case optionsType:
		return kOptions, "object"
	case reflect.SliceOf(optionsType):
		return kOptionsList, "list of objects"
	case valueType:
		return kValue, "any"
	}
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	switch ft.Kind() {
	case reflect.String:
		return kString, "string"
	case reflect.Bool:
		return kBool, "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kInt, "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kUint, "int"
	case reflect.Float32, reflect.Float64:
		return kFloat, "float"
	case reflect.Struct:
		if sf.Type.Kind() == reflect.Pointer {
			break
		}
		return kStruct, "object"
	case reflect.Map:
		if ft.Key().Kind() == reflect.String && ft.Elem().Kind() == reflect.String && sf.Type.Kind() != reflect.Pointer {
			return kMap, "map"
		}
	case reflect.Slice:
		if sf.Type.Kind() == reflect.Pointer {
			break
		}
		switch ft.Elem().Kind() {
		case reflect.String:
			return kStrings, "list"
		case reflect.Struct:
			return kStructs, "list of objects"
		}
	}
	panic(fmt.Sprintf("config: %s.%s: options of type %s are not supported", t, sf.Name, sf.Type))
}

func defaultValue(f Field) *hocon.Value {
	if !f.hasDefault {
		return nil
	}
	if f.kind == kStrings {
		v := &hocon.Value{Kind: hocon.Array}
		for _, p := range strings.Split(f.Default, ",") {
			if p = strings.TrimSpace(p); p != "" {
				v.Elems = append(v.Elems, &hocon.Value{Kind: hocon.String, Str: p})
			}
		}
		return v
	}
	return &hocon.Value{Kind: hocon.String, Str: f.Default}
}

// Field returns the option of this name, or nil.
func (s *Spec) Field(name string) *Field {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}

// Decode fills dst, a pointer to the struct the spec was read from, from the options, and
// marks every option of the spec as used. It fails with an *Error naming the first option
// that is missing or does not decode, and where it is.
func (s *Spec) Decode(o *Options, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Type() != s.typ {
		panic(fmt.Sprintf("config: Decode of %T with the spec of %s", dst, s.typ))
	}
	return decodeFields(o, s.Fields, s.self, rv.Elem())
}

func decodeFields(o *Options, fields []Field, self []int, dst reflect.Value) error {
	if self != nil {
		dst.FieldByIndex(self).Set(reflect.ValueOf(o))
	}
	for i := range fields {
		f := &fields[i]
		// an object or a list of objects is not used as a whole: the options of its own
		// spec are, so Unknown finds those it does not know
		get := o.Get
		if f.kind == kStruct || f.kind == kStructs {
			get = o.v.Lookup
		}
		key, v := f.Name, get(f.Name)
		for _, fb := range f.Fallbacks {
			if v != nil && v.Kind != hocon.Null {
				break
			}
			if w := get(fb); w != nil {
				key, v = fb, w
			}
		}
		if f.kind == kStruct || f.kind == kStructs {
			o.markContainer(key, v)
		}
		if v == nil || v.Kind == hocon.Null {
			if f.Required {
				return o.Errorf(f.Name, "option is required")
			}
			if v = defaultValue(*f); v == nil {
				continue
			}
		}
		if err := f.decode(o.at(key), v, dst.FieldByIndex(f.index)); err != nil {
			o.MarkUsed(key) // what is inside a broken option is not warned about as well
			return err
		}
	}
	return nil
}

// keyed is an Options whose errors name one option: decode's view of the option it fills.
type keyed struct {
	*Options
	key string
}

func (o *Options) at(key string) keyed { return keyed{o, key} }

func (k keyed) fail(format string, args ...any) error { return k.Errorf(k.key, format, args...) }

func (f *Field) decode(o any, v *hocon.Value, dst reflect.Value) error {
	var k keyed
	switch o := o.(type) {
	case keyed:
		k = o
	case *Options:
		k = o.at(f.Name)
	}
	if dst.Kind() == reflect.Pointer && f.kind <= kFloat {
		p := reflect.New(dst.Type().Elem())
		if err := f.decode(k, v, p.Elem()); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	}
	switch f.kind {
	case kString:
		s, ok := scalarText(v)
		if !ok {
			return k.fail("expected a string, found %s", v.Kind)
		}
		if f.Enum != nil {
			canon, ok := "", false
			for _, a := range f.Enum {
				if strings.EqualFold(strings.TrimSpace(s), a) {
					canon, ok = a, true
					break
				}
			}
			if !ok {
				return k.fail("unknown value %q; expected one of %s", s, strings.Join(f.Enum, ", "))
			}
			s = canon
		}
		dst.SetString(s)
	case kBool:
		b, err := k.boolOf(v)
		if err != nil {
			return err
		}
		dst.SetBool(b)
	case kInt, kUint:
		s, ok := scalarText(v)
		if !ok || v.Kind == hocon.Bool {
			return k.fail("expected an integer, found %s", v.Kind)
		}
		n, err := ParseInt(strings.TrimSpace(s), func(msg string) error { return k.fail("%s", msg) })
		if err != nil {
			return err
		}
		if f.kind == kUint {
			if n < 0 || dst.OverflowUint(uint64(n)) {
				return k.fail("%d is out of range", n)
			}
			dst.SetUint(uint64(n))
		} else {
			if dst.OverflowInt(n) {
				return k.fail("%d is out of range", n)
			}
			dst.SetInt(n)
		}
	case kFloat:
		s, ok := scalarText(v)
		if !ok || v.Kind == hocon.Bool {
			return k.fail("expected a number, found %s", v.Kind)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(x) {
			return k.fail("%q is not a number", s)
		}
		dst.SetFloat(x)
	case kStrings:
		list, err := stringsOf(k, v)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(list))
	case kMap:
		m := map[string]string{}
		if err := flatten(k, v, "", m); err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(m))
	case kStruct:
		if v.Kind != hocon.Object {
			return k.fail("expected an object, found %s", v.Kind)
		}
		return decodeFields(k.child(v, k.path(k.key)), f.Fields, f.self, dst)
	case kStructs:
		if v.Kind != hocon.Array {
			return k.fail("expected a list of objects, found %s", v.Kind)
		}
		out := reflect.MakeSlice(dst.Type(), len(v.Elems), len(v.Elems))
		for i, e := range v.Elems {
			p := fmt.Sprintf("%s[%d]", k.path(k.key), i)
			if e.Kind != hocon.Object {
				return &Error{Where: k.where, Path: p, Msg: fmt.Sprintf("expected an object, found %s", e.Kind), Pos: e.Pos}
			}
			if err := decodeFields(k.child(e, p), f.Fields, f.self, out.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(out)
	case kOptions:
		if v.Kind != hocon.Object {
			return k.fail("expected an object, found %s", v.Kind)
		}
		dst.Set(reflect.ValueOf(k.child(v, k.path(k.key))))
	case kOptionsList:
		list, err := k.ObjectList(k.key)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(list))
	case kValue:
		dst.Set(reflect.ValueOf(v))
	}
	return nil
}

func (k keyed) boolOf(v *hocon.Value) (bool, error) {
	if v.Kind == hocon.Bool {
		return v.Bool, nil
	}
	if v.Kind == hocon.String {
		switch strings.ToLower(strings.TrimSpace(v.Str)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, k.fail("expected true or false, found %q", v.Str)
}

func stringsOf(k keyed, v *hocon.Value) ([]string, error) {
	switch v.Kind {
	case hocon.Array:
		out := make([]string, 0, len(v.Elems))
		for i, e := range v.Elems {
			s, ok := scalarText(e)
			if !ok {
				return nil, &Error{Where: k.where, Path: fmt.Sprintf("%s[%d]", k.path(k.key), i), Msg: fmt.Sprintf("expected a string, found %s", e.Kind), Pos: e.Pos}
			}
			out = append(out, s)
		}
		return out, nil
	case hocon.String, hocon.Number:
		var out []string
		for _, p := range strings.Split(v.Str, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	}
	return nil, k.fail("expected a list, found %s", v.Kind)
}

// flatten reads an object of free-form keys, nested objects joined with dots, into m.
func flatten(k keyed, v *hocon.Value, prefix string, m map[string]string) error {
	if v.Kind != hocon.Object {
		return k.fail("expected an object, found %s", v.Kind)
	}
	for _, fld := range v.Fields {
		name := prefix + fld.Key
		if fld.Value.Kind == hocon.Object {
			if err := flatten(k, fld.Value, name+".", m); err != nil {
				return err
			}
			continue
		}
		s, ok := scalarText(fld.Value)
		if !ok && fld.Value.Kind != hocon.Null {
			return &Error{Where: k.where, Path: k.path(k.key) + "." + name, Msg: fmt.Sprintf("expected a value, found %s", fld.Value.Kind), Pos: fld.Value.Pos}
		}
		m[name] = s
	}
	return nil
}

// Unknown lists the options that were set and that neither the spec nor a plugin's own
// reading knows, each with the nearest known name when one is close, and where it was
// written: `unknown option "feild_delimiter" (did you mean "field_delimiter"?) at job.conf:12:5`.
// known are further names the engine reads itself (plugin_input, parallelism, ...).
func (s *Spec) Unknown(o *Options, known ...string) []string {
	names := append(s.names(""), known...)
	var out []string
	for _, u := range o.unused() {
		if isKnown(u.path, known) {
			continue
		}
		msg := fmt.Sprintf("unknown option %q", u.path)
		if near := nearest(u.path, names); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", reindex(near, u.path))
		}
		if u.pos.Line > 0 {
			msg += " at " + u.pos.String()
		}
		out = append(out, msg)
	}
	return out
}

// reindex writes the list indices of path into the [] of name, in order: the suggestion
// for rules[2].rule_typ is rules[2].rule_type.
func reindex(name, path string) string {
	var b strings.Builder
	for {
		i := strings.Index(name, "[]")
		j := strings.IndexByte(path, '[')
		k := strings.IndexByte(path[max(j, 0):], ']')
		if i < 0 || j < 0 || k < 0 {
			b.WriteString(name)
			return b.String()
		}
		b.WriteString(name[:i])
		b.WriteString(path[j : j+k+1])
		name, path = name[i+2:], path[j+k+1:]
	}
}

// isKnown reports whether path is one of names, or inside one.
func isKnown(path string, names []string) bool {
	for _, n := range names {
		if path == n || strings.HasPrefix(path, n+".") {
			return true
		}
	}
	return false
}

func (s *Spec) names(prefix string) []string {
	return fieldNames(s.Fields, prefix)
}

func fieldNames(fields []Field, prefix string) []string {
	var out []string
	for _, f := range fields {
		out = append(out, prefix+f.Name)
		for _, fb := range f.Fallbacks {
			out = append(out, prefix+fb)
		}
		switch f.kind {
		case kStruct:
			out = append(out, fieldNames(f.Fields, prefix+f.Name+".")...)
		case kStructs:
			out = append(out, fieldNames(f.Fields, prefix+f.Name+"[].")...)
		}
	}
	return out
}

// listMark is the suffix of a list's path in the used set that says the list is one of
// objects with a spec of their own: Unknown looks into its elements.
const listMark = "[]"

// markContainer records how Unknown treats an object or a list of objects of a spec: it
// looks into one with content, whose options the nested spec marks as it reads them; an
// empty one, or one of another kind (whose decoding fails), is used as a whole.
func (o *Options) markContainer(key string, v *hocon.Value) {
	switch {
	case v == nil:
	case v.Kind == hocon.Object && len(v.Fields) > 0:
	case v.Kind == hocon.Array && len(v.Elems) > 0:
		o.used[o.path(key)+listMark] = true
	default:
		o.MarkUsed(key)
	}
}

type unusedOption struct {
	path string
	pos  hocon.Pos
}

// unused lists the options set and not read, in the order of the file.
func (o *Options) unused() []unusedOption {
	var out []unusedOption
	var walk func(v *hocon.Value, path string)
	walk = func(v *hocon.Value, path string) {
		if path != "" && o.used[path] {
			return
		}
		if v.Kind == hocon.Object && len(v.Fields) > 0 {
			for _, f := range v.Fields {
				p := f.Key
				if path != "" {
					p = path + "." + f.Key
				}
				walk(f.Value, p)
			}
			return
		}
		if v.Kind == hocon.Array && o.used[path+listMark] {
			for i, e := range v.Elems {
				if e.Kind == hocon.Object && len(e.Fields) > 0 {
					walk(e, fmt.Sprintf("%s[%d]", path, i))
				}
			}
			return
		}
		if path != "" {
			out = append(out, unusedOption{path: path, pos: v.Pos})
		}
	}
	walk(o.v, o.prefix)
	return out
}

// nearest returns the name closest to s by edit distance, when it is close enough to be
// what was meant: at most a third of the length of the name's last part, and at least one
// edit.
func nearest(s string, names []string) string {
	// a list element's options are written name[3].key, and known as name[].key
	norm := func(p string) string {
		var b strings.Builder
		for i := 0; i < len(p); i++ {
			if p[i] == '[' {
				j := strings.IndexByte(p[i:], ']')
				if j > 0 {
					b.WriteString("[]")
					i += j
					continue
				}
			}
			b.WriteByte(p[i])
		}
		return b.String()
	}
	s = norm(s)
	best, bestD := "", math.MaxInt
	for _, n := range names {
		d := editDistance(strings.ToLower(s), strings.ToLower(n))
		if d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	// the edits allowed are counted on the last part of the path: a long path of a nested
	// option is no licence to suggest any name beside it
	last := s[strings.LastIndexAny(s, ".]")+1:]
	if best == s || bestD > max(1, len(last)/3) {
		return ""
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance of a and b (adjacent swaps count one).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 200 || len(rb) > 200 {
		return math.MaxInt
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Sorted returns the fields by name, as documentation lists them.
func (s *Spec) Sorted() []Field {
	out := append([]Field(nil), s.Fields...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out
}

var specs sync.Map // reflect.Type -> *Spec

// Decode reads the spec of C once and decodes the options into a new C: what a plugin
// whose options differ per table (a multi-table sink's rewritten options) calls itself.
func Decode[C any](o *Options) (*C, error) {
	t := reflect.TypeOf((*C)(nil)).Elem()
	s, ok := specs.Load(t)
	if !ok {
		s, _ = specs.LoadOrStore(t, specOf(t))
	}
	c := new(C)
	if err := s.(*Spec).Decode(o, c); err != nil {
		return nil, err
	}
	return c, nil
}
