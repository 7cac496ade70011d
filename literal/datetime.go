package literal

import (
	"errors"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/internal/civil"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func errorf(format string, args ...any) error { return errors.New(fmt.Sprintf(format, args...)) }

func digits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// epochDay is the epoch day of the date whose year, month and day are the digits y, m and
// d, when they are digits and make a date.
func epochDay(y, m, d string) (int64, bool) {
	yn, ok1 := digits(y)
	mn, ok2 := digits(m)
	dn, ok3 := digits(d)
	if !ok1 || !ok2 || !ok3 || !civil.Valid(yn, int(mn), int(dn)) {
		return 0, false
	}
	return civil.EpochDay(yn, int(mn), int(dn)), true
}

// splitDate reads yyyy?MM?dd where ? is sep.
func splitDate(s string, sep byte) (int64, bool) {
	if len(s) != 10 || s[4] != sep || s[7] != sep {
		return 0, false
	}
	return epochDay(s[:4], s[5:7], s[8:])
}

// ParseDate reads a date in the layouts SeaTunnel detects: yyyy-MM-dd, yyyy/MM/dd,
// yyyy.MM.dd, yyyyMMdd and yyyy年MM月dd日. It returns days since 1970-01-01.
func ParseDate(s string) (int64, bool) {
	switch {
	case len(s) == 10 && (s[4] == '-' || s[4] == '/' || s[4] == '.'):
		return splitDate(s, s[4])
	case len(s) == 8:
		return epochDay(s[:4], s[4:6], s[6:])
	}
	return parseCJKDate(s)
}

func parseCJKDate(s string) (int64, bool) {
	// yyyy年MM月dd日: each of 年 月 日 is three bytes in UTF-8.
	if len(s) != 4+3+2+3+2+3 || s[4:7] != "年" || s[9:12] != "月" || s[14:] != "日" {
		return 0, false
	}
	return epochDay(s[:4], s[7:9], s[12:14])
}

// ParseTime reads HH:mm:ss with an optional fraction of up to nine digits (12:34:56.789)
// and returns nanoseconds since midnight.
func ParseTime(s string) (int64, bool) {
	if len(s) < 8 || s[2] != ':' || s[5] != ':' {
		return 0, false
	}
	h, ok1 := digits(s[:2])
	mi, ok2 := digits(s[3:5])
	sec, ok3 := digits(s[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	nanos := (h*3600 + mi*60 + sec) * civil.NanosPerSecond
	rest := s[8:]
	if rest == "" {
		return nanos, true
	}
	if rest[0] != '.' || len(rest) < 2 || len(rest) > 10 {
		return 0, false
	}
	frac, ok := digits(rest[1:])
	if !ok {
		return 0, false
	}
	for i := len(rest) - 1; i < 9; i++ {
		frac *= 10
	}
	return nanos + frac, true
}

// ParseTimestamp reads a zone-less date and time in the layouts SeaTunnel detects:
// yyyy-MM-ddTHH:mm:ss and yyyy-MM-dd HH:mm:ss, the date also with / or . separators (then
// with a space), each with an optional fraction; yyyyMMddHHmmss; and
// yyyy年MM月dd日 HH时mm分ss秒. It returns nanoseconds since 1970-01-01T00:00:00.
func ParseTimestamp(s string) (int64, bool) {
	if len(s) == 14 {
		days, ok := ParseDate(s[:8])
		if !ok {
			return 0, false
		}
		tod, ok := ParseTime(s[8:10] + ":" + s[10:12] + ":" + s[12:14])
		if !ok {
			return 0, false
		}
		return days*civil.NanosPerDay + tod, true
	}
	if strings.Contains(s, "年") {
		return parseCJKTimestamp(s)
	}
	if len(s) < 19 {
		return 0, false
	}
	sep := s[4]
	if sep != '-' && sep != '/' && sep != '.' {
		return 0, false
	}
	days, ok := splitDate(s[:10], sep)
	if !ok {
		return 0, false
	}
	switch s[10] {
	case ' ':
	case 'T':
		if sep != '-' {
			return 0, false
		}
	default:
		return 0, false
	}
	tod, ok := ParseTime(s[11:])
	if !ok {
		return 0, false
	}
	return days*civil.NanosPerDay + tod, true
}

func parseCJKTimestamp(s string) (int64, bool) {
	i := strings.IndexByte(s, ' ')
	if i < 0 {
		return 0, false
	}
	days, ok := parseCJKDate(s[:i])
	if !ok {
		return 0, false
	}
	t := s[i+1:]
	// HH时mm分ss秒
	if len(t) != 2+3+2+3+2+3 || t[2:5] != "时" || t[7:10] != "分" || t[12:] != "秒" {
		return 0, false
	}
	tod, ok := ParseTime(t[:2] + ":" + t[5:7] + ":" + t[10:12])
	if !ok {
		return 0, false
	}
	return days*civil.NanosPerDay + tod, true
}
