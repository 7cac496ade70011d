package sql

import (
	"math"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// frame is the state one evaluation sees: the input row's fields and what a row may leave
// behind (the first error). A program owns one frame and evaluates rows one after another;
// nothing in it is shared between goroutines.
type frame struct {
	fields []row.Value
	err    error
	now    time.Time // the wall clock of the batch, for CURRENT_DATE and friends
	rng    *rand.Rand
	sel    []int32 // the selection vector of the batch
	strs   strArena
}

// strArena hands out the memory of the strings expressions create, carved from chunks, so
// that a batch's new strings cost an allocation per chunk rather than one each. Bytes are
// handed out once and never written again after the string over them is made: the strings
// stay valid as long as anyone holds them (and keep their chunk alive that long).
//
// The arena moves an offset rather than re-slicing: handing out bytes then writes no
// pointer, which would cost a write barrier whenever the collector is marking.
type strArena struct {
	chunk []byte
	off   int
}

const (
	arenaChunk = 8 << 10
	arenaMax   = 256 // longer strings are allocated on their own
)

// alloc returns n fresh bytes to fill and then turn into a string with bytesString.
func (a *strArena) alloc(n int) []byte {
	b := a.peek(n)
	a.take(n)
	return b
}

// peek returns n bytes to fill without taking them: take(n), with no other use of the arena
// between, takes exactly these bytes (which longer strings get on their own).
func (a *strArena) peek(n int) []byte {
	if n > arenaMax {
		return make([]byte, n)
	}
	if len(a.chunk)-a.off < n {
		a.chunk, a.off = make([]byte, arenaChunk), 0
	}
	return a.chunk[a.off : a.off+n : a.off+n]
}

// take takes the n bytes the last peek returned.
func (a *strArena) take(n int) {
	if n <= arenaMax {
		a.off += n
	}
}

// str copies b into the arena as a string.
func (a *strArena) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	m := a.alloc(len(b))
	copy(m, b)
	return bytesString(m)
}

// bytesString makes a string of bytes that will never change again (arena memory).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// fail records the first error of the row; the expression that failed returns null.
func (fr *frame) fail(err error) {
	if fr.err == nil {
		fr.err = err
	}
}

func (fr *frame) clock() time.Time {
	if fr.now.IsZero() {
		fr.now = time.Now().In(localZone)
	}
	return fr.now
}

func (fr *frame) random() *rand.Rand {
	if fr.rng == nil {
		fr.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return fr.rng
}

// localZone is the zone of "now" and of conversions between instants and zone-less date-times
// (CAST(bigint AS TIMESTAMP), FROM_UNIXTIME): the process's zone, as SeaTunnel uses the JVM's.
var localZone = time.Local

// The evaluation functions. Each compiled expression has an eval that returns its value,
// typed exactly as the expression's static type (or null), and getters that return the
// value unboxed, so that parents avoid the tagged union: ok=false means null.
type (
	evalFn  func(*frame) row.Value
	intFn   func(*frame) (int64, bool)
	floatFn func(*frame) (float64, bool)
	strFn   func(*frame) (string, bool)
	predFn  func(*frame) bool
)

// expr is a compiled, type-checked expression.
type expr struct {
	t    types.DataType
	eval evalFn
	ig   intFn   // integers, booleans, dates (days), times (nanos), timestamps (nanos)
	fg   floatFn // every numeric type, as float64
	sg   strFn   // strings and bytes
	pred predFn  // booleans: true only when the value is true (null is false)
	selv selFn   // booleans: the condition over a batch, when it has a loop of its own
	cop  *colOp  // the expression is input column op constant
	kern kernFn  // the expression over a batch, when it has a loop of its own

	ref      int // 1 + the top-level input column the expression is, as is; 0 otherwise
	isConst  bool
	cv       row.Value
	volatile bool // RAND, UUID, CURRENT_*: never folded into a constant
	node     Node
}

func (e *expr) kind() types.Kind { return e.t.Kind }

// isIntRep reports whether values of k keep their content in Value.I.
func isIntRep(k types.Kind) bool {
	switch k {
	case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date, types.Time, types.Timestamp:
		return true
	}
	return false
}

func isStrRep(k types.Kind) bool { return k == types.String || k == types.Bytes }

// complete derives the getters an expression lacks from the ones it has. Builders set at
// least eval, or ig/fg/sg/pred for the matching type.
func (e *expr) complete() *expr {
	k := e.t.Kind
	switch {
	case k == types.Boolean && e.pred != nil && e.eval == nil && e.ig == nil:
		p := e.pred
		e.ig = func(fr *frame) (int64, bool) {
			if p(fr) {
				return 1, true
			}
			return 0, true
		}
	}
	if isIntRep(k) {
		if e.ig == nil {
			ev := e.eval
			e.ig = func(fr *frame) (int64, bool) {
				v := ev(fr)
				return v.I, v.T != types.Null
			}
		}
		if e.eval == nil {
			ig := e.ig
			e.eval = func(fr *frame) row.Value {
				x, ok := ig(fr)
				if !ok {
					return row.Value{}
				}
				return row.Value{T: k, I: x}
			}
		}
	}
	switch k {
	case types.Float, types.Double:
		if e.eval == nil {
			fg := e.fg
			if k == types.Double {
				e.eval = func(fr *frame) row.Value {
					x, ok := fg(fr)
					if !ok {
						return row.Value{}
					}
					return row.Value{T: types.Double, I: int64(math.Float64bits(x))}
				}
			} else {
				e.eval = func(fr *frame) row.Value {
					x, ok := fg(fr)
					if !ok {
						return row.Value{}
					}
					return row.FloatValue(float32(x))
				}
			}
		}
		if e.fg == nil {
			ev := e.eval
			if k == types.Double {
				e.fg = func(fr *frame) (float64, bool) {
					v := ev(fr)
					return math.Float64frombits(uint64(v.I)), v.T != types.Null
				}
			} else {
				e.fg = func(fr *frame) (float64, bool) {
					v := ev(fr)
					return float64(math.Float32frombits(uint32(v.I))), v.T != types.Null
				}
			}
		}
	case types.Decimal:
		if e.fg == nil {
			ev := e.eval
			e.fg = func(fr *frame) (float64, bool) {
				v := ev(fr)
				if v.T == types.Null {
					return 0, false
				}
				return row.DecimalFloat64(v), true
			}
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		if e.fg == nil {
			ig := e.ig
			e.fg = func(fr *frame) (float64, bool) {
				x, ok := ig(fr)
				return float64(x), ok
			}
		}
	case types.String, types.Bytes:
		if e.sg == nil {
			ev := e.eval
			e.sg = func(fr *frame) (string, bool) {
				v := ev(fr)
				return v.S, v.T != types.Null
			}
		}
		if e.eval == nil {
			sg := e.sg
			e.eval = func(fr *frame) row.Value {
				s, ok := sg(fr)
				if !ok {
					return row.Value{}
				}
				return row.Value{T: k, S: s}
			}
		}
	case types.Boolean:
		if e.pred == nil {
			ig := e.ig
			e.pred = func(fr *frame) bool {
				x, ok := ig(fr)
				return ok && x != 0
			}
		}
	case types.Null:
		// every getter: a null-typed expression may stand where any type is expected
		if e.eval == nil {
			e.eval = func(*frame) row.Value { return row.Value{} }
		}
		ev := e.eval
		e.ig = func(fr *frame) (int64, bool) { ev(fr); return 0, false }
		e.fg = func(fr *frame) (float64, bool) { ev(fr); return 0, false }
		e.sg = func(fr *frame) (string, bool) { ev(fr); return "", false }
		e.pred = func(fr *frame) bool { ev(fr); return false }
	}
	return e
}

// constExpr is a constant of type t.
func constExpr(t types.DataType, v row.Value, node Node) *expr {
	e := &expr{t: t, isConst: true, cv: v, node: node}
	e.eval = func(*frame) row.Value { return v }
	if v.T == types.Null {
		e.ig = func(*frame) (int64, bool) { return 0, false }
		e.fg = func(*frame) (float64, bool) { return 0, false }
		e.sg = func(*frame) (string, bool) { return "", false }
		e.pred = func(*frame) bool { return false }
	} else {
		i := v.I
		e.ig = func(*frame) (int64, bool) { return i, true }
		s := v.S
		e.sg = func(*frame) (string, bool) { return s, true }
		if f, ok := v.AsFloat64(); ok {
			e.fg = func(*frame) (float64, bool) { return f, true }
		}
		b := v.T == types.Boolean && v.I != 0
		e.pred = func(*frame) bool { return b }
	}
	return e.complete()
}

// columnExpr reads top-level column i of type t.
func columnExpr(i int, t types.DataType, node Node) *expr {
	e := &expr{t: t, ref: i + 1, node: node}
	e.eval = func(fr *frame) row.Value { return fr.fields[i] }
	k := t.Kind
	if isIntRep(k) {
		e.ig = func(fr *frame) (int64, bool) {
			v := &fr.fields[i]
			return v.I, v.T != types.Null
		}
	}
	switch k {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		e.fg = func(fr *frame) (float64, bool) {
			v := &fr.fields[i]
			return float64(v.I), v.T != types.Null
		}
	case types.Double:
		e.fg = func(fr *frame) (float64, bool) {
			v := &fr.fields[i]
			return math.Float64frombits(uint64(v.I)), v.T != types.Null
		}
	case types.Float:
		e.fg = func(fr *frame) (float64, bool) {
			v := &fr.fields[i]
			return float64(math.Float32frombits(uint32(v.I))), v.T != types.Null
		}
	case types.String, types.Bytes:
		e.sg = func(fr *frame) (string, bool) {
			v := &fr.fields[i]
			return v.S, v.T != types.Null
		}
	case types.Boolean:
		e.pred = func(fr *frame) bool {
			v := &fr.fields[i]
			return v.T != types.Null && v.I != 0
		}
	}
	return e.complete()
}

// fold replaces an expression whose inputs are all constants by its value. An expression
// that fails stays as it is: it fails when a row reaches it, as in SeaTunnel (a CASE branch
// may never be taken).
func (c *compiler) fold(e *expr, args ...*expr) (folded *expr, err *Error) {
	if e.volatile || e.isConst {
		return e, nil
	}
	defer func() {
		if recover() != nil {
			folded, err = e, nil
		}
	}()
	for _, a := range args {
		if !a.isConst {
			return e, nil
		}
	}
	fr := &frame{}
	v := e.eval(fr)
	if fr.err != nil {
		return e, nil
	}
	return constExpr(e.t, v, e.node), nil
}

// anyVolatile reports whether one of the arguments is volatile.
func anyVolatile(args []*expr) bool {
	for _, a := range args {
		if a.volatile {
			return true
		}
	}
	return false
}
