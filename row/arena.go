package row

import "unsafe"

// arenaChunk is the size of the blocks an Arena copies strings into: one allocation serves
// the strings of many rows, and a string a consumer keeps holds at most this much memory
// alive.
const arenaChunk = 16 << 10

// Arena copies the strings that rows keep out of a buffer the reader reuses (a line, a
// record, a page), many to a block instead of one allocation each. A block's bytes are
// never written again once handed out, so earlier strings stay intact when the next block
// starts; a long string gets an allocation of its own. The zero Arena is ready to use; it
// is not safe for concurrent use.
type Arena struct{ buf []byte }

// Keep returns a string with the content of b that stays valid after b is reused.
func (a *Arena) Keep(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > arenaChunk/8:
		return string(b)
	case cap(a.buf)-len(a.buf) < len(b):
		a.buf = make([]byte, 0, arenaChunk)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}
