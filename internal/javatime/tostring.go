// Package javatime writes and reads dates and times as java.time does, for the job configs
// and data SeaTunnel produces: the toString forms of LocalDate, LocalTime and LocalDateTime,
// the ISO formatters, DateTimeFormatter patterns (yyyy-MM-dd HH:mm:ss.SSS, with quoted text,
// optional sections and the zone letters) for formatting and parsing, and ZoneId.of's zone
// ids. Values are the epoch days and nanoseconds of package civil; formatting appends to a
// caller's buffer and allocates nothing.
package javatime

import "github.com/strait-dev/strait/internal/civil"

// appendPadded appends n in decimal, left-padded with zeros to width digits; a negative n
// gets its sign before the zeros.
func appendPadded(buf []byte, n int64, width int) []byte {
	u := uint64(n)
	if n < 0 {
		buf = append(buf, '-')
		u = -u
	}
	if u < 100 && width <= 2 {
		if u >= 10 || width == 2 {
			return append(buf, byte('0'+u/10), byte('0'+u%10))
		}
		return append(buf, byte('0'+u))
	}
	var tmp [20]byte
	i := len(tmp)
	for u >= 10 {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	tmp[i] = byte('0' + u)
	for k := len(tmp) - i; k < width; k++ {
		buf = append(buf, '0')
	}
	return append(buf, tmp[i:]...)
}

// appendSmall is appendPadded, quick for the one- and two-digit fields of a date and a time.
func appendSmall(buf []byte, n int64, width int) []byte {
	if 0 <= n && n < 100 && width <= 2 {
		if n >= 10 || width == 2 {
			return append(buf, byte('0'+n/10), byte('0'+n%10))
		}
		return append(buf, byte('0'+n))
	}
	return appendPadded(buf, n, width)
}

// append2 appends n as at least two digits.
func append2(buf []byte, n int64) []byte {
	if n < 0 || n > 99 {
		return appendPadded(buf, n, 2) // not a field of a valid value
	}
	return append(buf, byte('0'+n/10), byte('0'+n%10))
}

// AppendLocalDate appends an epoch day as LocalDate.toString (and ISO_LOCAL_DATE) writes
// it: 2024-01-31, -0001-01-01 before year 1, +10000-01-01 after year 9999.
func AppendLocalDate(buf []byte, days int64) []byte {
	y, m, d := civil.Date(days)
	buf = appendYear(buf, y, 4)
	buf = append(buf, '-')
	buf = append2(buf, int64(m))
	buf = append(buf, '-')
	return append2(buf, int64(d))
}

// appendYear writes a year padded to width digits with java.time's EXCEEDS_PAD sign style:
// a minus for negative years, a plus for years wider than the padding.
func appendYear(buf []byte, y int64, width int) []byte {
	if width == 4 && 0 <= y && y <= 9999 {
		return append(buf, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	}
	if y > 0 && digitCount(y) > width {
		buf = append(buf, '+')
	}
	return appendPadded(buf, y, width)
}

func digitCount(n int64) int {
	if n < 0 {
		n = -n
	}
	c := 1
	for n >= 10 {
		n /= 10
		c++
	}
	return c
}

// AppendLocalTime appends nanoseconds of the day as LocalTime.toString writes them: HH:mm
// when the seconds and the fraction are zero, else HH:mm:ss and a non-zero fraction in
// milli, micro or nano precision (12:30, 12:30:05, 12:30:05.500).
func AppendLocalTime(buf []byte, nanos int64) []byte {
	s := nanos / civil.NanosPerSecond % 60
	n := nanos % civil.NanosPerSecond
	buf = append2(buf, nanos/civil.NanosPerHour)
	buf = append(buf, ':')
	buf = append2(buf, nanos/civil.NanosPerMinute%60)
	if s == 0 && n == 0 {
		return buf
	}
	buf = append(buf, ':')
	buf = append2(buf, s)
	switch {
	case n == 0:
		return buf
	case n%1_000_000 == 0:
		buf = append(buf, '.')
		return appendPadded(buf, n/1_000_000, 3)
	case n%1_000 == 0:
		buf = append(buf, '.')
		return appendPadded(buf, n/1_000, 6)
	}
	buf = append(buf, '.')
	return appendPadded(buf, n, 9)
}

// AppendLocalDateTime appends a zone-less timestamp as LocalDateTime.toString writes it:
// the date, T and the time (2024-01-31T12:30, 2024-01-31T12:30:05.5 as ...:05.500).
func AppendLocalDateTime(buf []byte, ts int64) []byte {
	buf, nanos := appendDateT(buf, ts)
	return AppendLocalTime(buf, nanos)
}

// appendDateT appends a zone-less timestamp's date and the T after it, and returns its
// time of day. (Not a function taking the time's writer: a buffer passed through a
// function value escapes, and callers write into buffers on their stacks.)
func appendDateT(buf []byte, ts int64) ([]byte, int64) {
	days, nanos := civil.SplitTimestamp(ts)
	buf = AppendLocalDate(buf, days)
	return append(buf, 'T'), nanos
}

// AppendISOLocalTime appends nanoseconds of the day as DateTimeFormatter.ISO_LOCAL_TIME
// writes them: HH:mm:ss always, then a non-zero fraction with only the digits it needs
// (12:30:00, 12:30:05.5).
func AppendISOLocalTime(buf []byte, nanos int64) []byte {
	buf = append2(buf, nanos/civil.NanosPerHour)
	buf = append(buf, ':')
	buf = append2(buf, nanos/civil.NanosPerMinute%60)
	buf = append(buf, ':')
	buf = append2(buf, nanos/civil.NanosPerSecond%60)
	return appendTrimmedFraction(buf, nanos%civil.NanosPerSecond)
}

// AppendISOLocalDateTime appends a zone-less timestamp as ISO_LOCAL_DATE_TIME writes it:
// the date, T and the time as AppendISOLocalTime writes it.
func AppendISOLocalDateTime(buf []byte, ts int64) []byte {
	buf, nanos := appendDateT(buf, ts)
	return AppendISOLocalTime(buf, nanos)
}

// appendTrimmedFraction writes nothing for a zero fraction, else a point and its digits
// without trailing zeros.
func appendTrimmedFraction(buf []byte, ns int64) []byte {
	if ns == 0 {
		return buf
	}
	var tmp [9]byte
	fractionDigits(&tmp, ns)
	n := 9
	for n > 0 && tmp[n-1] == '0' {
		n--
	}
	buf = append(buf, '.')
	return append(buf, tmp[:n]...)
}

// fractionDigits writes the nine digits of a nanosecond fraction (0 <= ns < 10⁹, which
// unsigned 32-bit arithmetic divides fastest).
func fractionDigits(tmp *[9]byte, ns int64) {
	u := uint32(ns % 1_000_000_000)
	for i := 8; i >= 0; i-- {
		tmp[i] = byte('0' + u%10)
		u /= 10
	}
}
