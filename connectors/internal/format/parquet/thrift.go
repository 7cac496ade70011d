package parquet

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go/encoding/thrift"
)

// A parquet file's footer and page headers are compact-protocol thrift. parquet-go's
// decoder trusts the counts it reads: a list claiming two billion elements is allocated
// before one of them is read, and nesting recurses as deep as the bytes go. thriftCheck
// walks the bytes as that decoder would read them into a Go type, decoding nothing, so that
// Strait decodes only thrift whose every count fits the bytes there are and whose decoded
// form fits a budget set by its size.

// The compact protocol's types.
const (
	thStop   = 0
	thTrue   = 1
	thFalse  = 2
	thByte   = 3
	thI16    = 4
	thI32    = 5
	thI64    = 6
	thDouble = 7
	thBinary = 8
	thList   = 9
	thSet    = 10
	thMap    = 11
	thStruct = 12
)

// maxThriftDepth bounds the nesting of structs, lists and maps; the parquet format nests
// fewer than ten deep.
const maxThriftDepth = 32

// errThriftShort says the bytes end before the thrift does.
var errThriftShort = errors.New("the thrift ends past the bytes there are")

// thriftCheck is one walk over b, which starts at byte base of the file.
type thriftCheck struct {
	b      []byte
	base   int64
	i      int
	budget int64 // bytes the decoded form may still take
	depth  int
}

// checkThrift walks one struct of type t at the start of b, byte base of the file, and
// returns the bytes it takes. budget bounds what decoding it into t allocates.
func checkThrift(b []byte, base int64, t reflect.Type, budget int64) (int, error) {
	c := &thriftCheck{b: b, base: base, budget: budget}
	if err := c.structOf(t); err != nil {
		return c.i, err
	}
	return c.i, nil
}

func (c *thriftCheck) left() uint64 { return uint64(len(c.b) - c.i) }

// at is the file's byte the walk is at.
func (c *thriftCheck) at() int64 { return c.base + int64(c.i) }

func (c *thriftCheck) byte() (byte, error) {
	if c.i >= len(c.b) {
		return 0, errThriftShort
	}
	c.i++
	return c.b[c.i-1], nil
}

func (c *thriftCheck) uvarint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 70; shift += 7 {
		b, err := c.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, fmt.Errorf("a varint longer than 10 bytes at byte %d", c.at())
}

func (c *thriftCheck) skip(n uint64) error {
	if n > c.left() {
		return errThriftShort
	}
	c.i += int(n)
	return nil
}

// charge takes n values of size bytes from the budget.
func (c *thriftCheck) charge(n uint64, size uintptr) error {
	if size == 0 || n == 0 {
		return nil
	}
	if n > math.MaxInt64/uint64(size) || int64(n*uint64(size)) > c.budget {
		return fmt.Errorf("at byte %d, %d values of %d bytes would take more memory than thrift of %d bytes may", c.at(), n, size, len(c.b))
	}
	c.budget -= int64(n * uint64(size))
	return nil
}

func (c *thriftCheck) enter() error {
	if c.depth++; c.depth > maxThriftDepth {
		return fmt.Errorf("thrift nested more than %d deep at byte %d", maxThriftDepth, c.at())
	}
	return nil
}

// value walks one value of thrift type tt read into the Go type t (nil: skipped).
func (c *thriftCheck) value(tt byte, t reflect.Type) error {
	t = thriftValueType(t)
	if t != nil && t.Kind() == reflect.Pointer {
		if tt == thStruct {
			if err := c.charge(1, t.Elem().Size()); err != nil {
				return err
			}
		}
		t = t.Elem()
	}
	switch tt {
	case thTrue, thFalse:
		return nil // a field's boolean is in its header
	case thByte:
		return c.skip(1)
	case thI16, thI32, thI64:
		_, err := c.uvarint()
		return err
	case thDouble:
		return c.skip(8)
	case thBinary:
		n, err := c.uvarint()
		if err != nil {
			return err
		}
		return c.skip(n)
	case thList, thSet:
		return c.list(t)
	case thMap:
		return c.mapOf(t)
	case thStruct:
		return c.structOf(t)
	}
	return fmt.Errorf("unknown thrift type %d at byte %d", tt, c.at()-1)
}

// element walks one element of a list, set or map: a boolean takes a byte of its own there.
func (c *thriftCheck) element(tt byte, t reflect.Type) error {
	if tt == thTrue || tt == thFalse {
		return c.skip(1)
	}
	return c.value(tt, t)
}

func (c *thriftCheck) list(t reflect.Type) error {
	h, err := c.byte()
	if err != nil {
		return err
	}
	n, et := uint64(h>>4), h&0x0f
	if n == 15 {
		if n, err = c.uvarint(); err != nil {
			return err
		}
	}
	if n > c.left() {
		return errThriftShort // every element takes a byte at least
	}
	var elem reflect.Type
	if t != nil && t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		elem = t.Elem()
		if err := c.charge(n, elem.Size()); err != nil {
			return err
		}
	}
	if err := c.enter(); err != nil {
		return err
	}
	for k := uint64(0); k < n; k++ {
		if err := c.element(et, elem); err != nil {
			return err
		}
	}
	c.depth--
	return nil
}

func (c *thriftCheck) mapOf(t reflect.Type) error {
	n, err := c.uvarint()
	if err != nil || n == 0 {
		return err
	}
	kv, err := c.byte()
	if err != nil {
		return err
	}
	if n > c.left()/2 {
		return errThriftShort
	}
	var kt, vt reflect.Type
	if t != nil && t.Kind() == reflect.Map {
		kt, vt = t.Key(), t.Elem()
		if err := c.charge(n, kt.Size()+vt.Size()+16); err != nil {
			return err
		}
	}
	if err := c.enter(); err != nil {
		return err
	}
	for k := uint64(0); k < n; k++ {
		if err := c.element(kv>>4, kt); err != nil {
			return err
		}
		if err := c.element(kv&0x0f, vt); err != nil {
			return err
		}
	}
	c.depth--
	return nil
}

func (c *thriftCheck) structOf(t reflect.Type) error {
	if err := c.enter(); err != nil {
		return err
	}
	var fields map[int16]reflect.Type
	if t != nil && t.Kind() == reflect.Struct {
		fields = thriftFieldsOf(t)
	}
	var id int16
	for {
		h, err := c.byte()
		if err != nil {
			return err
		}
		if h == thStop {
			break
		}
		if d := int16(h >> 4); d != 0 {
			id += d
		} else {
			v, err := c.uvarint()
			if err != nil {
				return err
			}
			id = int16(int64(v>>1) ^ -int64(v&1))
		}
		if err := c.value(h&0x0f, fields[id]); err != nil {
			return err
		}
	}
	c.depth--
	return nil
}

var (
	thriftFieldCache sync.Map // reflect.Type -> map[int16]reflect.Type
	thriftUnion      = reflect.TypeFor[thrift.Union]()
	thriftPkg        = reflect.TypeFor[thrift.Null[int]]().PkgPath()
)

// thriftFieldsOf maps a struct's thrift field ids to the Go types they are read into: a
// struct's tagged fields, or a union's members (pointers to the member structs).
func thriftFieldsOf(t reflect.Type) map[int16]reflect.Type {
	if v, ok := thriftFieldCache.Load(t); ok {
		return v.(map[int16]reflect.Type)
	}
	fields := map[int16]reflect.Type{}
	if reflect.PointerTo(t).Implements(thriftUnion) {
		for _, m := range reflect.New(t).Interface().(thrift.Union).UnionMembers() {
			fields[m.FieldID()] = reflect.TypeOf(m)
		}
	} else {
		for i := 0; i < t.NumField(); i++ {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("thrift"), ",")
			if id, err := strconv.ParseInt(tag, 10, 16); err == nil {
				fields[int16(id)] = t.Field(i).Type
			}
		}
	}
	thriftFieldCache.Store(t, fields)
	return fields
}

// thriftValueType is the type inside thrift.Null[T], or t.
func thriftValueType(t reflect.Type) reflect.Type {
	if t != nil && t.Kind() == reflect.Struct && t.PkgPath() == thriftPkg && strings.HasPrefix(t.Name(), "Null[") {
		return t.Field(0).Type
	}
	return t
}
