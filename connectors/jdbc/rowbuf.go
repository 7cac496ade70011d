package jdbc

import (
	"encoding/binary"

	"github.com/strait-dev/strait/row"
)

// op is what a buffered row does.
type op uint8

const (
	opExec   op = iota // the query, or the INSERT of an append-only table
	opUpsert           // INSERT ... ON CONFLICT, or the INSERT of modeInsertOnly
	opInsert           // modeInsertUpdate: an INSERT row
	opUpdate           // modeInsertUpdate: an UPDATE_AFTER row
	opDelete
)

// opOf is what a row of the given kind does in a write mode; skip for an UPDATE_BEFORE,
// whose UPDATE_AFTER carries the change.
func opOf(mode writeMode, kind row.Kind) (o op, skip bool) {
	switch mode {
	case modeQuery, modeInsert:
		return opExec, false
	}
	switch kind {
	case row.UpdateBefore:
		return 0, true
	case row.Delete:
		return opDelete, false
	case row.Insert:
		if mode == modeInsertUpdate {
			return opInsert, false
		}
		return opUpsert, false
	}
	if mode == modeInsertUpdate {
		return opUpdate, false
	}
	return opUpsert, false
}

// entry is a buffered row: its fields, as its driver encodes them (PostgreSQL's binary
// format, MySQL's literals), each behind its 4-byte length (-1 for null), as they would
// stand in a binary COPY.
type entry struct {
	op         op
	start, end int32
	dead       bool // superseded by a later change of the same key
}

// rowBuffer holds the rows of one flush and reduces a changelog by key as SeaTunnel does:
// the last change of a key wins, so each key is written once per flush.
type rowBuffer struct {
	buf     []byte
	entries []entry
	keys    map[string]int32 // key bytes -> entry
	keyBuf  []byte           // scratch for key
	params  [][]byte         // scratch of split
}

// appendNull writes a null field.
func (b *rowBuffer) appendNull() { b.buf = binary.BigEndian.AppendUint32(b.buf, 0xFFFFFFFF) }

// openField starts a field: its length goes before it, at the returned offset, once
// closeField knows it.
func (b *rowBuffer) openField() int {
	at := len(b.buf)
	b.buf = append(b.buf, 0, 0, 0, 0)
	return at
}

func (b *rowBuffer) closeField(at int) {
	binary.BigEndian.PutUint32(b.buf[at:], uint32(len(b.buf)-at-4))
}

// push buffers the row whose fields were written from first on and, for keyed modes,
// supersedes the earlier change of the same key (pk are the key's fields; upsert is
// modeUpsert, whose upsert needs no delete before it).
func (b *rowBuffer) push(o op, first int, pk []int, upsert bool) {
	e := entry{op: o, start: int32(first), end: int32(len(b.buf))}
	idx := int32(len(b.entries))
	b.entries = append(b.entries, e)
	if o == opExec {
		return
	}
	key := b.key(e, pk)
	if prev, ok := b.keys[string(key)]; ok {
		switch p := &b.entries[prev]; {
		case p.op == opInsert && o == opUpdate:
			// the row is not in the table yet: its last values are inserted
			b.entries[idx].op = opInsert
			p.dead = true
		case p.op == opDelete && o != opDelete && !upsert:
			// a plain INSERT needs the old row gone first: the delete stays, before it
		default:
			p.dead = true
		}
	}
	b.keys[string(key)] = idx
}

// split cuts an entry's encoded fields into b.params, which the next call reuses.
func (b *rowBuffer) split(e entry) [][]byte {
	b.params = b.params[:0]
	p := b.buf[e.start:e.end]
	for len(p) >= 4 {
		n := int32(binary.BigEndian.Uint32(p))
		p = p[4:]
		if n < 0 {
			b.params = append(b.params, nil)
			continue
		}
		b.params = append(b.params, p[:n:n])
		p = p[n:]
	}
	return b.params
}

// key is the encoded key of an entry (pk are the indexes of the key's fields). It lives in
// a buffer the next call reuses.
func (b *rowBuffer) key(e entry, pk []int) []byte {
	params := b.split(e)
	k := b.keyBuf[:0]
	for _, i := range pk {
		p := params[i]
		if p == nil {
			k = binary.BigEndian.AppendUint32(k, 0xFFFFFFFF)
			continue
		}
		k = binary.BigEndian.AppendUint32(k, uint32(len(p)))
		k = append(k, p...)
	}
	b.keyBuf = k
	return k
}

// clear empties the buffer but for its first keep bytes.
func (b *rowBuffer) clear(keep int) {
	b.buf, b.entries = b.buf[:keep], b.entries[:0]
	clear(b.keys)
}
