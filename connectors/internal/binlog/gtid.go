package binlog

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MariaDBGTID is a MariaDB global transaction id: domain-server-sequence.
type MariaDBGTID struct {
	Domain uint32
	Server uint32
	Seq    uint64
}

func (g MariaDBGTID) String() string {
	return strconv.FormatUint(uint64(g.Domain), 10) + "-" + strconv.FormatUint(uint64(g.Server), 10) + "-" + strconv.FormatUint(g.Seq, 10)
}

// MariaDBPosition is a MariaDB GTID position: the last GTID per replication domain, as
// gtid_current_pos prints it (0-1-15,1-2-7).
type MariaDBPosition []MariaDBGTID

// ParseMariaDBPosition reads a GTID position; "" is the empty position.
func ParseMariaDBPosition(s string) (MariaDBPosition, error) {
	var p MariaDBPosition
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		f := strings.Split(part, "-")
		if len(f) != 3 {
			return nil, fmt.Errorf("%q is not a MariaDB GTID (domain-server-sequence)", part)
		}
		d, err1 := strconv.ParseUint(f[0], 10, 32)
		sv, err2 := strconv.ParseUint(f[1], 10, 32)
		n, err3 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("%q is not a MariaDB GTID (domain-server-sequence)", part)
		}
		p = p.With(MariaDBGTID{Domain: uint32(d), Server: uint32(sv), Seq: n})
	}
	return p, nil
}

// With returns the position with g as the last GTID of its domain.
func (p MariaDBPosition) With(g MariaDBGTID) MariaDBPosition {
	for i := range p {
		if p[i].Domain == g.Domain {
			if p[i] == g {
				return p
			}
			out := append(MariaDBPosition(nil), p...)
			out[i] = g
			return out
		}
	}
	out := append(append(MariaDBPosition(nil), p...), g)
	sort.Slice(out, func(i, j int) bool { return out[i].Domain < out[j].Domain })
	return out
}

func (p MariaDBPosition) String() string {
	parts := make([]string, len(p))
	for i, g := range p {
		parts[i] = g.String()
	}
	return strings.Join(parts, ",")
}

// GTIDSet is a MySQL GTID set: per server uuid, the intervals of transaction numbers.
type GTIDSet map[[16]byte][]Interval

// Interval is the transaction numbers Start to End, both included.
type Interval struct{ Start, End int64 }

// ParseGTIDSet reads a set as MySQL prints it: uuid:1-5:7,uuid:1-3; "" is the empty set.
func ParseGTIDSet(s string) (GTIDSet, error) {
	set := GTIDSet{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		f := strings.Split(part, ":")
		sid, err := parseUUID(f[0])
		if err != nil || len(f) < 2 {
			return nil, fmt.Errorf("%q is not a GTID set (uuid:interval[:interval])", part)
		}
		for _, iv := range f[1:] {
			lo, hi, ok := strings.Cut(iv, "-")
			a, err1 := strconv.ParseInt(lo, 10, 64)
			b := a
			var err2 error
			if ok {
				b, err2 = strconv.ParseInt(hi, 10, 64)
			}
			if err1 != nil || err2 != nil || a < 1 || b < a {
				return nil, fmt.Errorf("%q is not a GTID interval", iv)
			}
			set.addInterval(sid, Interval{a, b})
		}
	}
	return set, nil
}

func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	b, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(b) != 16 {
		return u, fmt.Errorf("%q is not a uuid", s)
	}
	copy(u[:], b)
	return u, nil
}

// Add adds one transaction.
func (s GTIDSet) Add(g MySQLGTID) { s.addInterval(g.SID, Interval{g.GNO, g.GNO}) }

// Contains reports whether the set holds the transaction.
func (s GTIDSet) Contains(g MySQLGTID) bool {
	for _, iv := range s[g.SID] {
		if g.GNO >= iv.Start && g.GNO <= iv.End {
			return true
		}
	}
	return false
}

func (s GTIDSet) addInterval(sid [16]byte, add Interval) {
	ivs := append(s[sid], add)
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].Start < ivs[j].Start })
	out := ivs[:1]
	for _, iv := range ivs[1:] {
		last := &out[len(out)-1]
		if iv.Start <= last.End+1 {
			last.End = max(last.End, iv.End)
			continue
		}
		out = append(out, iv)
	}
	s[sid] = out
}

// Clone copies the set.
func (s GTIDSet) Clone() GTIDSet {
	out := make(GTIDSet, len(s))
	for k, v := range s {
		out[k] = append([]Interval(nil), v...)
	}
	return out
}

func (s GTIDSet) sids() [][16]byte {
	keys := make([][16]byte, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return string(keys[i][:]) < string(keys[j][:]) })
	return keys
}

func (s GTIDSet) String() string {
	var parts []string
	for _, sid := range s.sids() {
		var b strings.Builder
		b.WriteString(formatUUID(sid))
		for _, iv := range s[sid] {
			b.WriteByte(':')
			b.WriteString(strconv.FormatInt(iv.Start, 10))
			if iv.End != iv.Start {
				b.WriteByte('-')
				b.WriteString(strconv.FormatInt(iv.End, 10))
			}
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ",")
}

// encode is the set in the binary form of COM_BINLOG_DUMP_GTID and PREVIOUS_GTIDS: intervals
// with exclusive ends.
func (s GTIDSet) encode() []byte {
	sids := s.sids()
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(sids)))
	for _, sid := range sids {
		b = append(b, sid[:]...)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(s[sid])))
		for _, iv := range s[sid] {
			b = binary.LittleEndian.AppendUint64(b, uint64(iv.Start))
			b = binary.LittleEndian.AppendUint64(b, uint64(iv.End+1))
		}
	}
	return b
}

func decodeGTIDSet(r *reader) (GTIDSet, error) {
	n := r.u64()
	if n > uint64(r.left()/24) {
		return nil, errShort
	}
	set := GTIDSet{}
	for range n {
		var sid [16]byte
		copy(sid[:], r.bytes(16))
		m := r.u64()
		if m > uint64(r.left()/16) {
			return nil, errShort
		}
		for range m {
			a, b := int64(r.u64()), int64(r.u64())
			if a < 1 || b <= a {
				return nil, fmt.Errorf("bad GTID interval %d-%d", a, b)
			}
			set.addInterval(sid, Interval{a, b - 1})
		}
	}
	return set, r.err
}
