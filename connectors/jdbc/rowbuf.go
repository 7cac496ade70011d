package jdbc

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"

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
	dead       bool  // superseded by a later change of the same key
	sameHash   int32 // the entry before it whose key hashes alike, -1 for none
}

// rowBuffer holds the rows of one flush and reduces a changelog by key as SeaTunnel does:
// the last change of a key wins, so each key is written once per flush. Keys are found by
// their hash: keys holds the newest entry of each hash, and each entry the one before it
// of the same hash, so a lookup compares the key's bytes along that chain (one entry but
// on a collision) and nothing is allocated per row.
type rowBuffer struct {
	buf      []byte
	entries  []entry
	keys     map[uint64]int32 // key hash -> the newest entry with it
	seed     maphash.Seed
	keyBuf   []byte   // scratch for key
	keyAside []byte   // scratch of find
	params   [][]byte // scratch of split
}

func newRowBuffer() rowBuffer {
	return rowBuffer{keys: map[uint64]int32{}, seed: maphash.MakeSeed()}
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
	e := entry{op: o, start: int32(first), end: int32(len(b.buf)), sameHash: -1}
	idx := int32(len(b.entries))
	b.entries = append(b.entries, e)
	if o == opExec {
		return
	}
	key := b.key(e, pk)
	h := maphash.Bytes(b.seed, key)
	prev, ok := b.keys[h]
	b.keys[h] = idx
	if !ok {
		return
	}
	b.entries[idx].sameHash = prev
	if prev = b.find(prev, key, pk); prev >= 0 {
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
}

// find walks the chain of entries whose key hashes as key's, newest first from i, and
// returns the first whose key is key, or -1. key is copied aside first: the entries' keys
// are cut into the same scratch.
func (b *rowBuffer) find(i int32, key []byte, pk []int) int32 {
	b.keyAside = append(b.keyAside[:0], key...)
	for ; i >= 0; i = b.entries[i].sameHash {
		if bytes.Equal(b.key(b.entries[i], pk), b.keyAside) {
			return i
		}
	}
	return -1
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
