package sql

import (
	"bytes"
	"crypto/cipher"
	"crypto/des"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// fnDef describes a function: how many arguments it takes (max < 0: any number) and how it
// compiles.
type fnDef struct {
	min, max int
	build    func(c *compiler, n *Call, args []*expr) (*expr, *Error)
	volatile bool
}

var fnTable map[string]*fnDef

func init() {
	fnTable = map[string]*fnDef{}
	registerStringFuncs()
	registerNumericFuncs()
	registerDateTimeFuncs()
	registerSystemFuncs()
}

func register(def *fnDef, names ...string) {
	for _, n := range names {
		fnTable[n] = def
	}
}

// registerWith registers under names a function of min to max arguments whose builder
// takes one more parameter, p: one builder serving several functions (FLOOR and CEIL,
// LEFT and RIGHT).
func registerWith[P any](min, max int, build func(*compiler, *Call, []*expr, P) (*expr, *Error), p P, names ...string) {
	register(&fnDef{min: min, max: max, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		return build(c, n, args, p)
	}}, names...)
}

var aggregates = map[string]bool{
	"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true, "STDDEV": true,
	"VARIANCE": true, "GROUP_CONCAT": true, "STRING_AGG": true, "LISTAGG": true,
	"ARRAY_AGG": true, "COLLECT_LIST": true, "COLLECT_SET": true, "FIRST_VALUE": true,
	"LAST_VALUE": true, "ROW_NUMBER": true, "RANK": true, "DENSE_RANK": true, "LAG": true,
	"LEAD": true, "NTILE": true, "BIT_AND": true, "BIT_OR": true, "BOOL_AND": true, "BOOL_OR": true,
}

func (c *compiler) call(n *Call) (*expr, *Error) {
	name := strings.ToUpper(n.Name)
	def, ok := fnTable[name]
	if !ok {
		if aggregates[name] {
			return nil, c.errf(n, "aggregate function %s is not supported: the Sql transform works one row at a time", name)
		}
		return nil, c.errf(n, "unknown function %s", n.Name)
	}
	if n.Star {
		return nil, c.errf(n, "%s(*) is not a valid call", name)
	}
	if len(n.Args) < def.min || def.max >= 0 && len(n.Args) > def.max {
		want := ""
		switch {
		case def.min == def.max:
			want = plural(def.min, "argument")
		case def.max < 0:
			want = "at least " + plural(def.min, "argument")
		default:
			want = itoa(def.min) + " to " + plural(def.max, "argument")
		}
		return nil, c.errf(n, "%s takes %s, found %d", name, want, len(n.Args))
	}
	args := make([]*expr, len(n.Args))
	for i, a := range n.Args {
		e, err := c.compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	e, err := def.build(c, n, args)
	if err != nil {
		return nil, err
	}
	e.node = n
	e.volatile = e.volatile || def.volatile || anyVolatile(args)
	return c.fold(e, args...)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return itoa(n) + " " + word + "s"
}

func itoa(n int) string { return strconv.Itoa(n) }

// ---- argument helpers ----

func fname(n *Call) string { return strings.ToUpper(n.Name) }

// argStr reads argument i as text: strings as they are, other scalars as Java prints them.
func (c *compiler) argStr(n *Call, args []*expr, i int) (strFn, *Error) {
	a := args[i]
	if isComposite(a.kind()) {
		return nil, c.errf(n.Args[i], "%s needs a string, %s is %s", fname(n), n.Args[i].String(), a.t)
	}
	return textGetter(a), nil
}

// argInt reads argument i as an integer; a floating-point or decimal number is truncated as
// Java's Number.intValue() does.
func (c *compiler) argInt(n *Call, args []*expr, i int) (intFn, *Error) {
	a := args[i]
	switch k := a.kind(); {
	case k == types.Null:
		return func(*frame) (int64, bool) { return 0, false }, nil
	case k.IsInteger():
		return a.ig, nil
	case k.IsNumeric():
		fg := a.fg
		return func(fr *frame) (int64, bool) {
			f, ok := fg(fr)
			return javaIntOf(f), ok
		}, nil
	}
	return nil, c.errf(n.Args[i], "%s needs a number, %s is %s", fname(n), n.Args[i].String(), a.t)
}

// javaIntOf converts as Java's (int) cast of a double: truncation, saturating, NaN is 0.
func javaIntOf(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(f)
}

// argFloat reads argument i as a float64.
func (c *compiler) argFloat(n *Call, args []*expr, i int) (floatFn, *Error) {
	if err := c.argNumber(n, args, i); err != nil {
		return nil, err
	}
	if args[i].kind() == types.Null {
		return func(*frame) (float64, bool) { return 0, false }, nil
	}
	return args[i].fg, nil
}

// argNumber checks that argument i is a number (or NULL).
func (c *compiler) argNumber(n *Call, args []*expr, i int) *Error {
	if k := args[i].kind(); k != types.Null && !k.IsNumeric() {
		return c.errf(n.Args[i], "%s needs a number, %s is %s", fname(n), n.Args[i].String(), args[i].t)
	}
	return nil
}

// argReader reads a call's arguments as argStr, argInt and argFloat do. It keeps the first
// error and returns nil for every read after it, so a builder reads all its arguments and
// checks err once.
type argReader struct {
	c    *compiler
	n    *Call
	args []*expr
	err  *Error
}

func (c *compiler) args(n *Call, args []*expr) *argReader {
	return &argReader{c: c, n: n, args: args}
}

func (a *argReader) str(i int) strFn     { return readArg(a, i, (*compiler).argStr) }
func (a *argReader) int(i int) intFn     { return readArg(a, i, (*compiler).argInt) }
func (a *argReader) float(i int) floatFn { return readArg(a, i, (*compiler).argFloat) }

// readArg reads argument i with get, or returns nil when an earlier read failed.
func readArg[F any](a *argReader, i int, get func(*compiler, *Call, []*expr, int) (F, *Error)) F {
	if a.err != nil {
		var none F
		return none
	}
	f, err := get(a.c, a.n, a.args, i)
	a.err = err
	return f
}

// optStr and optInt read an optional argument: nil when the call does not have it.
func (a *argReader) optStr(i int) strFn {
	if i >= len(a.args) {
		return nil
	}
	return a.str(i)
}

func (a *argReader) optInt(i int) intFn {
	if i >= len(a.args) {
		return nil
	}
	return a.int(i)
}

// done returns e, or the error of the first argument that could not be read: a builder may
// build its expression from the reads before checking, as the expression then never runs.
func (ar *argReader) done(e *expr) (*expr, *Error) {
	if ar.err != nil {
		return nil, ar.err
	}
	return e, nil
}

// both evaluates two arguments in order, the second only when the first is not null (so a
// null first argument never raises the second's errors); ok is false when either is null.
func both[A, B any](fr *frame, fa func(*frame) (A, bool), fb func(*frame) (B, bool)) (a A, b B, ok bool) {
	if a, ok = fa(fr); ok {
		b, ok = fb(fr)
	}
	return a, b, ok
}

// strict2 is a function of two arguments that is null when either is: f computes it from
// their values.
func strict2[A, B, R any](fa func(*frame) (A, bool), fb func(*frame) (B, bool), f func(fr *frame, a A, b B) (R, bool)) func(*frame) (R, bool) {
	return func(fr *frame) (R, bool) {
		a, b, ok := both(fr, fa, fb)
		if !ok {
			var zero R
			return zero, false
		}
		return f(fr, a, b)
	}
}

// constStr returns argument i when it is a constant string (ok=false otherwise).
func constStr(args []*expr, i int) (string, bool, bool) {
	if i >= len(args) || !args[i].isConst {
		return "", false, false
	}
	v := args[i].cv
	if v.T == types.Null {
		return "", true, true
	}
	return text(v), false, true
}

func strExpr(sg strFn) *expr { return (&expr{t: types.Of(types.String), sg: sg}).complete() }
func intExpr(k types.Kind, ig intFn) *expr {
	return (&expr{t: types.Of(k), ig: ig}).complete()
}
func doubleExpr(fg floatFn) *expr { return (&expr{t: types.Of(types.Double), fg: fg}).complete() }
func boolExpr(ig intFn) *expr     { return (&expr{t: types.Of(types.Boolean), ig: ig}).complete() }

// ---- system functions ----

func registerSystemFuncs() {
	coalesce := &fnDef{min: 1, max: -1, build: buildCoalesce}
	register(coalesce, "COALESCE")
	register(&fnDef{min: 2, max: 2, build: buildCoalesce}, "IFNULL")
	register(&fnDef{min: 2, max: 2, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		a, b := args[0], args[1]
		ae, be := a.eval, b.eval
		e := &expr{t: a.t}
		e.eval = func(fr *frame) row.Value {
			v := ae(fr)
			if v.T == types.Null {
				return v
			}
			if w := be(fr); w.T != types.Null && seaEqual(v, w) {
				return row.Value{}
			}
			return v
		}
		return e.complete(), nil
	}}, "NULLIF")
	register(&fnDef{min: 0, max: 0, volatile: true, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
		return strExpr(func(fr *frame) (string, bool) { return newUUID(), true }), nil
	}}, "UUID")
	registerWith(2, 2, desFunc, true, "DES_ENCRYPT")
	registerWith(2, 2, desFunc, false, "DES_DECRYPT")
}

// buildCoalesce: the type of the first argument (of the first that is not NULL); the others
// are converted to it.
func buildCoalesce(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	t := types.Of(types.Null)
	for _, a := range args {
		if a.kind() != types.Null {
			t = a.t
			break
		}
	}
	evs := make([]evalFn, len(args))
	for i, a := range args {
		conv, err := c.implicit(a, t)
		if err != nil {
			return nil, c.errf(n.Args[i], "%s: argument %d is %s, the result is %s", fname(n), i+1, a.t, t)
		}
		evs[i] = conv.eval
	}
	e := &expr{t: t}
	e.eval = func(fr *frame) row.Value {
		for _, ev := range evs {
			if v := ev(fr); v.T != types.Null {
				return v
			}
		}
		return row.Value{}
	}
	return e.complete(), nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexd = "0123456789abcdef"
	var out [36]byte
	j := 0
	for i, x := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[j] = '-'
			j++
		}
		out[j], out[j+1] = hexd[x>>4], hexd[x&15]
		j += 2
	}
	return string(out[:])
}

// desFunc is SeaTunnel's DES_ENCRYPT(key, data) and DES_DECRYPT(key, data): DES in CBC mode
// with PKCS#5 padding, the first 8 bytes of the key, the IV "12345678", the cipher text in
// base64. A key shorter than 8 characters is an error; data that cannot be decrypted is
// returned unchanged.
func desFunc(c *compiler, n *Call, args []*expr, encrypt bool) (*expr, *Error) {
	ar := c.args(n, args)
	key, data := ar.str(0), ar.str(1)
	return ar.done(strExpr(func(fr *frame) (string, bool) {
		k, d, ok := both(fr, key, data)
		switch {
		case !ok:
			return "", false
		case utf8.RuneCountInString(k) < 8:
			fr.fail(errors.New("DES key must be at least 8 characters long"))
			return "", false
		case encrypt:
			return desEncrypt(k, d), true
		}
		return desDecrypt(k, d), true
	}))
}

var desIV = []byte("12345678")

func desEncrypt(key, data string) string {
	block, err := des.NewCipher([]byte(key)[:8])
	if err != nil {
		return data
	}
	pad := 8 - len(data)%8
	buf := make([]byte, len(data)+pad)
	copy(buf, data)
	for i := len(data); i < len(buf); i++ {
		buf[i] = byte(pad)
	}
	cipher.NewCBCEncrypter(block, desIV).CryptBlocks(buf, buf)
	return base64.StdEncoding.EncodeToString(buf)
}

func desDecrypt(key, data string) string {
	block, err := des.NewCipher([]byte(key)[:8])
	if err != nil {
		return data
	}
	buf, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(buf) == 0 || len(buf)%8 != 0 {
		return data
	}
	cipher.NewCBCDecrypter(block, desIV).CryptBlocks(buf, buf)
	pad := int(buf[len(buf)-1])
	if pad < 1 || pad > 8 || !bytes.Equal(buf[len(buf)-pad:], bytes.Repeat([]byte{byte(pad)}, pad)) {
		return data
	}
	return string(buf[:len(buf)-pad])
}
