package javatime

import (
	"bytes"
	"testing"
	"time"
)

// FuzzPattern compiles arbitrary patterns, formats values of every kind with those that
// compile and parses arbitrary text with them: nothing panics, Format and Append agree, and
// a value Check refuses is never formatted.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{
		"yyyy-MM-dd HH:mm:ss.SSS", "yyyyMMddHHmmss", "'at' hh a, EEE MMM", "yyyy[-MM[-dd]]",
		"G uuuu YYYY-ww e c Q QQQQ", "X XXX x Z ZZZZ O OOOO VV z", "A n N k K D", "''''", "[",
	} {
		f.Add(s, "2024-03-05 07:08:09.123")
	}
	f.Add("yyyyMMddHHmmss", "20240305070809")
	f.Add("d MMM yyyy h:mm a", "5 Mar 2024 7:08 AM")
	values := []Value{
		Date(19787), Time(25_689_123_000_000), DateTime(-1), DateTime(1 << 62),
		Zoned(time.Date(2024, 3, 5, 7, 8, 9, 123, time.FixedZone("X", -12345))),
		Zoned(time.Date(-300, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		p, err := Compile(pattern)
		if err != nil {
			return
		}
		for _, v := range values {
			out, err := p.Format(nil, v)
			if err != nil {
				if len(out) != 0 {
					t.Fatalf("%q formatted %q for a value it refused: %v", pattern, out, err)
				}
				continue
			}
			if again := p.Append(nil, v); !bytes.Equal(out, again) {
				t.Fatalf("%q: Format %q, Append %q", pattern, out, again)
			}
		}
		r, err := p.Parse(text)
		if err != nil {
			return
		}
		_, _ = r.Date()
		_, _ = r.TimeOfDay()
		_, _ = r.DateTime()
	})
}

// FuzzParseZone reads arbitrary zone ids: an id is a zone or an error, never a panic, and a
// fixed offset is at most 18 hours.
func FuzzParseZone(f *testing.F) {
	for _, s := range []string{"UTC+8", "GMT-03:30", "+0530", "Asia/Shanghai", "Z", "+18:00:01", "UT-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		loc, err := ParseZone(id)
		if err != nil {
			return
		}
		if _, off := time.Unix(0, 0).In(loc).Zone(); off > 18*3600 || off < -18*3600 {
			t.Fatalf("%q: offset %d", id, off)
		}
	})
}
