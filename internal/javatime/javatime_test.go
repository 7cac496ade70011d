package javatime

import (
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/internal/civil"
)

// The expected texts are what java.time (Java 11, Locale.US) gives for the same values and
// patterns.

func ts(t *testing.T, s string) int64 {
	t.Helper()
	tm, err := time.Parse("2006-01-02T15:04:05.999999999", s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.Unix()*civil.NanosPerSecond + int64(tm.Nanosecond())
}

func TestToString(t *testing.T) {
	day := func(y int64, m, d int) int64 { return civil.EpochDay(y, m, d) }
	for _, c := range []struct {
		got, want string
	}{
		{string(AppendLocalDate(nil, 15695)), "2012-12-21"},
		{string(AppendLocalDate(nil, day(10000, 1, 1))), "+10000-01-01"},
		{string(AppendLocalDate(nil, day(-1, 1, 1))), "-0001-01-01"},
		{string(AppendLocalDate(nil, day(5, 6, 7))), "0005-06-07"},
		{string(AppendLocalTime(nil, 0)), "00:00"},
		{string(AppendLocalTime(nil, 12*civil.NanosPerHour+30*civil.NanosPerMinute+5*civil.NanosPerSecond)), "12:30:05"},
		{string(AppendLocalTime(nil, 12*civil.NanosPerHour+500_000_000)), "12:00:00.500"},
		{string(AppendLocalTime(nil, 1_500)), "00:00:00.000001500"},
		{string(AppendLocalTime(nil, 2_000)), "00:00:00.000002"},
		{string(AppendLocalDateTime(nil, ts(t, "2012-12-21T12:34:56"))), "2012-12-21T12:34:56"},
		{string(AppendLocalDateTime(nil, ts(t, "2012-12-21T12:34:00"))), "2012-12-21T12:34"},
		{string(AppendLocalDateTime(nil, ts(t, "1969-12-31T23:59:59.5"))), "1969-12-31T23:59:59.500"},
		{string(AppendISOLocalTime(nil, 0)), "00:00:00"},
		{string(AppendISOLocalTime(nil, 500_000_000)), "00:00:00.5"},
		{string(AppendISOLocalDateTime(nil, ts(t, "1969-12-31T23:59:59.5"))), "1969-12-31T23:59:59.5"},
		{string(AppendISOLocalDateTime(nil, ts(t, "2024-01-26T00:00:00"))), "2024-01-26T00:00:00"},
		{string(AppendISOLocalDateTime(nil, ts(t, "2024-01-26T00:00:00.000000123"))), "2024-01-26T00:00:00.000000123"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestFormatLocal(t *testing.T) {
	at := DateTime(ts(t, "2021-04-08T13:34:45.235"))
	date := Date(civil.EpochDay(2021, 4, 8))
	tm := Time(13*civil.NanosPerHour + 34*civil.NanosPerMinute + 45*civil.NanosPerSecond + 235_000_000)
	for _, c := range []struct {
		v             Value
		pattern, want string
	}{
		{at, "yyyy-MM-dd HH:mm:ss.S", "2021-04-08 13:34:45.2"},
		{at, "HH:mm:ss.SSS", "13:34:45.235"},
		{at, "yyyyMMdd", "20210408"},
		{date, "EEEE, MMMM d, yyyy", "Thursday, April 8, 2021"},
		{date, "EEE MMM dd yy", "Thu Apr 08 21"},
		{date, "EEEEE MMMMM", "T A"},
		{at, "yy/M/d h:mm a", "21/4/8 1:34 PM"},
		{at, "QQQ yyyy, D", "Q2 2021, 98"},
		{at, "Q QQ QQQQ QQQQQ", "2 02 2nd quarter 2"},
		{at, "'at' HH'h'", "at 13h"},
		{at, "''HH''", "'13'"},
		{at, "yyyy[-MM]", "2021-04"},
		{at, "yyyy[-MM[-dd]]", "2021-04-08"},
		{at, "kk KK hh", "13 01 01"},
		{DateTime(ts(t, "2021-04-08T00:05:00")), "k K h H a", "24 0 12 0 AM"},
		{at, "n A N", "235000000 48885235 48885235000000"},
		{at, "G GGGG GGGGG", "AD Anno Domini A"},
		{tm, "HH:mm", "13:34"},
		{Date(civil.EpochDay(2021, 1, 1)), "YYYY-ww", "2021-01"},
		{Date(civil.EpochDay(2020, 12, 31)), "YYYY-ww e", "2021-01 5"},
		{Date(civil.EpochDay(-1, 1, 1)), "G yyyy uuuu", "BC 0002 -0001"},
		{Date(civil.EpochDay(5, 1, 1)), "y yyy yyyy", "5 005 0005"},
		{Date(civil.EpochDay(12345, 1, 1)), "yyyy uuuu yy", "+12345 +12345 45"},
		{Date(civil.EpochDay(2024, 3, 5)), "W F c cccc", "2 5 3 Tuesday"},
		{at, "dd/MM/yyyy-1 2", "08/04/2021-1 2"},
		{at, "'Jan' yyyy", "Jan 2021"},
		{at, "日yyyy年", "日2021年"},
	} {
		p, err := Compile(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		got, err := p.Format(nil, c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.pattern, got, err, c.want)
		}
	}
}

func TestFormatZoned(t *testing.T) {
	cet := time.Date(2024, 3, 5, 7, 8, 9, 123456789, time.FixedZone("CET", 3600))
	utc := time.Date(2024, 3, 5, 7, 8, 9, 0, time.UTC)
	india := time.Date(2024, 3, 5, 7, 8, 9, 0, time.FixedZone("IST", 5*3600+1800))
	odd := time.Date(2024, 3, 5, 7, 8, 9, 0, time.FixedZone("LMT", -(3*3600+30*60+15)))
	for _, c := range []struct {
		t             time.Time
		pattern, want string
	}{
		{cet, "yyyy.MM.dd", "2024.03.05"},
		{cet, "yy-M-d H:m:s", "24-3-5 7:8:9"},
		{cet, "yyyy-MM-dd'T'HH:mm:ss.SSS", "2024-03-05T07:08:09.123"},
		{cet, "'at' hh a, EEE MMM", "at 07 AM, Tue Mar"},
		{cet, "EEEE d MMMM uuuu", "Tuesday 5 March 2024"},
		{cet, "'it''s' ''", "it's '"},
		{cet, "HHmmssSSSSSSSSS Z XXX z", "070809123456789 +0100 +01:00 CET"},
		{cet, "D Q k K", "65 1 7 7"},
		{cet, "yyyy-MM-dd [HH]", "2024-03-05 07"},
		{cet, "X XX XXX XXXX XXXXX", "+01 +0100 +01:00 +0100 +01:00"},
		{cet, "x xx xxx xxxx xxxxx", "+01 +0100 +01:00 +0100 +01:00"},
		{cet, "Z ZZ ZZZ ZZZZ ZZZZZ", "+0100 +0100 +0100 GMT+01:00 +01:00"},
		{cet, "O OOOO VV", "GMT+1 GMT+01:00 CET"},
		{utc, "X XXX x xxx Z ZZZZ ZZZZZ O", "Z Z +00 +00:00 +0000 GMT Z GMT"},
		{india, "X XXX O OOOO", "+0530 +05:30 GMT+5:30 GMT+05:30"},
		{odd, "X XX XXX XXXX XXXXX", "-0330 -0330 -03:30 -033015 -03:30:15"},
		{odd, "O OOOO", "GMT-3:30:15 GMT-03:30:15"},
	} {
		p, err := Compile(c.pattern)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		if got := string(p.AppendZoned(nil, c.t)); got != c.want {
			t.Errorf("%q: got %q, want %q", c.pattern, got, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for pattern, want := range map[string]string{
		"yyyy-bb":                     `pattern "yyyy-bb": unknown pattern letter 'b'`,
		"bbbb":                        "unknown pattern letter 'b'",
		"SSSSSSSSSS":                  `too many pattern letters "SSSSSSSSSS"`,
		"ddd":                         "too many pattern letters",
		"yyyy 'x":                     `pattern "yyyy 'x" has an unterminated quote`,
		"yyyy]":                       "unbalanced ']'",
		"yyyy{":                       "reserved character '{'",
		"V":                           "count of V must be 2",
		"OO":                          "count of O must be 1 or 4",
		"vv":                          "count of v must be 1 or 4",
		strings.Repeat("[", 30) + "y": "too deeply",
	} {
		_, err := Compile(pattern)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", pattern, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	date, tm := Date(0), Time(0)
	for _, c := range []struct {
		pattern string
		v       Value
		want    string
	}{
		{"HH", date, "needs a time of day, the value is a date"},
		{"yyyy", tm, "needs a date, the value is a time"},
		{"yyyy z", DateTime(0), "time-zone pattern letters"},
		{"'x'", tm, ""},
		{"yyyy HH X", Zoned(time.Unix(0, 0).UTC()), ""},
	} {
		err := MustCompile(c.pattern).Check(c.v)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.pattern, err, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	day := func(y int64, m, d int) int64 { return civil.EpochDay(y, m, d) * civil.NanosPerDay }
	for _, c := range []struct {
		text, pattern string
		want          int64
	}{
		{"2021-04-08 13:34:45.235", "yyyy-MM-dd HH:mm:ss.SSS", ts(t, "2021-04-08T13:34:45.235")},
		{"20210408133445", "yyyyMMddHHmmss", ts(t, "2021-04-08T13:34:45")},
		{"2021-02-30 00:00", "yyyy-MM-dd HH:mm", day(2021, 2, 28)},
		{"8 Apr 2021 1:05 PM", "d MMM yyyy h:mm a", ts(t, "2021-04-08T13:05:00")},
		{"Thursday, April 8, 2021 00", "EEEE, MMMM d, yyyy HH", day(2021, 4, 8)},
		{"21-04-08 00", "yy-MM-dd HH", day(2021, 4, 8)},
		{"2021-098 00", "yyyy-DDD HH", day(2021, 4, 8)},
		{"2021 00", "yyyy[-MM-dd] HH", -1},
		{"-0001-01-01 00", "uuuu-MM-dd HH", day(-1, 1, 1)},
		{"0002-01-01 BC 00", "yyyy-MM-dd G HH", day(-1, 1, 1)},
		{"2021-04-08T24", "yyyy-MM-dd'T'kk", day(2021, 4, 8)},
		{"48885235 2021-04-08", "A yyyy-MM-dd", ts(t, "2021-04-08T13:34:45.235")},
	} {
		p := MustCompile(c.pattern)
		r, err := p.Parse(c.text)
		if err != nil {
			t.Errorf("%q with %q: %v", c.text, c.pattern, err)
			continue
		}
		got, err := r.DateTime()
		if c.want == -1 {
			if err == nil {
				t.Errorf("%q with %q resolved without a month and day", c.text, c.pattern)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q with %q = %d (%v), want %d", c.text, c.pattern, got, err, c.want)
		}
	}
	r, err := MustCompile("HH:mm").Parse("13:34")
	if err != nil {
		t.Fatal(err)
	}
	if tod, err := r.TimeOfDay(); err != nil || tod != 13*civil.NanosPerHour+34*civil.NanosPerMinute {
		t.Errorf("13:34 = %d (%v)", tod, err)
	}
	if _, err := r.Date(); err == nil || !strings.Contains(err.Error(), "no year") {
		t.Errorf("a time resolved to a date: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ text, pattern, want string }{
		{"2021-13-01", "yyyy-MM-dd", "invalid month 13"},
		{"2021-04-x", "yyyy-MM-dd", "at index 8"},
		{"2021-04-08x", "yyyy-MM-dd", "unparsed text at index 10"},
		{"21", "yyyy", "at index 0"},
		{"2021 z", "yyyy z", "time-zone pattern letters"},
		{"2021-366", "yyyy-DDD", ""},
		{"25:00", "HH:mm", "invalid hour 25"},
		{"12:60", "HH:mm", "invalid minute 60"},
		{"0:00", "hh:mm", "at index 0"},
		{"00:00", "hh:mm", "invalid clock hour 0"},
		{"Foo", "MMM", "at index 0"},
	} {
		_, err := MustCompile(c.pattern).Parse(c.text)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q with %q: %v", c.text, c.pattern, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q with %q: %v, want %q", c.text, c.pattern, err, c.want)
		}
	}
	r, err := MustCompile("yyyy-DDD").Parse("2021-366")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Date(); err == nil || !strings.Contains(err.Error(), "day 366 of 2021") {
		t.Errorf("day 366 of a common year: %v", err)
	}
}

// Whatever a pattern of numeric fields formats, it parses back to the same value.
func TestRoundTrip(t *testing.T) {
	patterns := []string{
		"yyyy-MM-dd HH:mm:ss.SSSSSSSSS", "yyyyMMddHHmmssSSS", "uuuu-DDD'T'HH:mm:ss", "dd.MM.yyyy hh:mm:ss a",
		"yyyy-MM-dd'T'HH:mm:ss[.SSS]", "MMMM d, yyyy HH:mm:ss", "EEE, d MMM yyyy HH:mm:ss",
	}
	values := []int64{0, ts(t, "2024-02-29T23:59:59.999"), ts(t, "1969-12-31T00:00:01"), ts(t, "1900-03-01T12:00:00")}
	for _, pat := range patterns {
		p := MustCompile(pat)
		for _, v := range values {
			text := string(p.Append(nil, DateTime(v)))
			r, err := p.Parse(text)
			if err != nil {
				t.Errorf("%q: %q does not parse back: %v", pat, text, err)
				continue
			}
			got, err := r.DateTime()
			want := v
			if !strings.Contains(pat, "SSSSSSSSS") {
				want = v - civil.FloorMod(v, civil.NanosPerSecond)
				if strings.Contains(pat, "SSS") {
					want = v - civil.FloorMod(v, 1_000_000)
				}
			}
			if err != nil || got != want {
				t.Errorf("%q: %q parses to %d (%v), want %d", pat, text, got, err, want)
			}
		}
	}
}

func TestParseZone(t *testing.T) {
	for id, want := range map[string]int{
		"Z": 0, "UTC": 0, "GMT": 0, "UTC+8": 8 * 3600, "GMT-03:30": -(3*3600 + 1800), "+05:30": 5*3600 + 1800,
		"-5": -5 * 3600, "+0530": 5*3600 + 1800, "+01:02:03": 3723, "UT+18": 18 * 3600,
	} {
		loc, err := ParseZone(id)
		if err != nil {
			t.Errorf("%q: %v", id, err)
			continue
		}
		if _, off := time.Unix(0, 0).In(loc).Zone(); off != want {
			t.Errorf("%q: offset %d, want %d", id, off, want)
		}
	}
	if loc, err := ParseZone("Asia/Shanghai"); err != nil || loc.String() != "Asia/Shanghai" {
		t.Errorf("Asia/Shanghai: %v %v", loc, err)
	}
	for id, want := range map[string]string{
		"UTC+25": `invalid time zone "UTC+25"`, "+18:01": "invalid time zone", "Mars/Base": `unknown time zone "Mars/Base"`,
		"": "invalid time zone", "Local": "invalid time zone", "+1:00": "invalid time zone", "+123": "invalid time zone",
	} {
		if _, err := ParseZone(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", id, err, want)
		}
	}
}

// Formatting allocates nothing beyond the buffer it appends to.
func TestAppendAllocatesNothing(t *testing.T) {
	p := MustCompile("yyyy-MM-dd'T'HH:mm:ss.SSS EEE MMM [X]")
	buf := make([]byte, 0, 64)
	v := DateTime(ts(t, "2024-02-29T23:59:59.999"))
	zoned := time.Date(2024, 3, 5, 7, 8, 9, 0, time.FixedZone("CET", 3600))
	allocs := testing.AllocsPerRun(100, func() {
		buf = p.Append(buf[:0], v)
		buf = p.AppendZoned(buf[:0], zoned)
		buf = AppendLocalDateTime(buf[:0], v.Days*civil.NanosPerDay+v.Nanos)
		buf = AppendISOLocalDateTime(buf[:0], v.Days*civil.NanosPerDay+v.Nanos)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per format", allocs)
	}
}

func BenchmarkAppend(b *testing.B) {
	p := MustCompile("yyyy-MM-dd HH:mm:ss.SSSSSS")
	buf := make([]byte, 0, 64)
	v := DateTime(1_700_000_000_123_456_789)
	b.ReportAllocs()
	for b.Loop() {
		buf = p.Append(buf[:0], v)
	}
}

// The local zone's id is the one the system names, not Go's "Local".
func TestLocalZoneID(t *testing.T) {
	id := string(MustCompile("VV").AppendZoned(nil, time.Now()))
	if id == "" || id == "Local" {
		t.Errorf("the local zone's id is %q", id)
	}
}

func TestAppendPadded(t *testing.T) {
	for _, c := range []struct {
		n     int64
		width int
		want  string
	}{
		{0, 1, "0"}, {7, 2, "07"}, {42, 1, "42"}, {5, 4, "0005"}, {12345, 4, "12345"}, {-3, 4, "-0003"},
		{-9223372036854775808, 1, "-9223372036854775808"}, {9223372036854775807, 2, "9223372036854775807"},
	} {
		if got := string(appendPadded(nil, c.n, c.width)); got != c.want {
			t.Errorf("appendPadded(%d, %d) = %q, want %q", c.n, c.width, got, c.want)
		}
	}
}
