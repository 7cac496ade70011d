package localfile

import (
	"sort"
	"strings"
)

// Date and time layouts as SeaTunnel's file connectors name them (DateUtils.Formatter,
// DateTimeUtils.Formatter, TimeUtils.Formatter). They are fixed enumerations: the options
// date_format, datetime_format and time_format accept exactly these patterns.

const nanosPerSecond = int64(1_000_000_000)
const nanosPerDay = 86400 * nanosPerSecond

// dateLayout is yyyy?MM?dd with sep as the separator.
type dateLayout struct{ sep byte }

var dateLayouts = map[string]dateLayout{
	"yyyy-MM-dd": {'-'},
	"yyyy.MM.dd": {'.'},
	"yyyy/MM/dd": {'/'},
}

// dateTimeLayout is a date, then mid (' ', 'T' or nothing), HH:mm:ss (or HHmmss when the
// date has no separators) and frac fraction digits.
type dateTimeLayout struct {
	sep  byte // date separator; 0 for yyyyMMddHHmmss
	mid  byte
	frac int
}

var dateTimeLayouts = map[string]dateTimeLayout{
	"yyyy-MM-dd HH:mm:ss":             {'-', ' ', 0},
	"yyyy-MM-dd HH:mm:ss.SSSSSS":      {'-', ' ', 6},
	"yyyy.MM.dd HH:mm:ss":             {'.', ' ', 0},
	"yyyy/MM/dd HH:mm:ss":             {'/', ' ', 0},
	"yyyyMMddHHmmss":                  {0, 0, 0},
	"yyyy-MM-dd'T'HH:mm:ss":           {'-', 'T', 0},
	"yyyy-MM-dd'T'HH:mm:ss.SSS":       {'-', 'T', 3},
	"yyyy-MM-dd'T'HH:mm:ss.SSSSSS":    {'-', 'T', 6},
	"yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS": {'-', 'T', 9},
}

// timeLayout is HH:mm:ss with frac fraction digits.
type timeLayout struct{ frac int }

var timeLayouts = map[string]timeLayout{
	"HH:mm:ss":     {0},
	"HH:mm:ss.SSS": {3},
}

func layoutNames[T any](m map[string]T) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// civil converts days since 1970-01-01 to a proleptic Gregorian date.
func civil(days int64) (y, m, d int64) {
	z := days + 719468
	era := z
	if era < 0 {
		era -= 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// appendPad appends n in decimal, left-padded with zeros to width digits.
func appendPad(b []byte, n int64, width int) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var tmp [20]byte
	i := len(tmp)
	for n >= 10 {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	tmp[i] = byte('0' + n)
	for k := len(tmp) - i; k < width; k++ {
		b = append(b, '0')
	}
	return append(b, tmp[i:]...)
}

func append2(b []byte, n int64) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// appendDate writes days since the epoch as yyyy<sep>MM<sep>dd (no separator when sep is 0).
func appendDate(b []byte, days int64, sep byte) []byte {
	y, m, d := civil(days)
	b = appendPad(b, y, 4)
	if sep != 0 {
		b = append(b, sep)
	}
	b = append2(b, m)
	if sep != 0 {
		b = append(b, sep)
	}
	return append2(b, d)
}

// appendClock writes nanoseconds of the day as HH:mm:ss (HHmmss when colons is false)
// followed by frac fraction digits (truncated).
func appendClock(b []byte, nanos int64, colons bool, frac int) []byte {
	s := nanos / nanosPerSecond
	ns := nanos - s*nanosPerSecond
	b = append2(b, s/3600)
	if colons {
		b = append(b, ':')
	}
	b = append2(b, s/60%60)
	if colons {
		b = append(b, ':')
	}
	b = append2(b, s%60)
	if frac > 0 {
		b = append(b, '.')
		b = appendFrac(b, ns, frac)
	}
	return b
}

// appendFrac writes the first digits digits of a nanosecond fraction.
func appendFrac(b []byte, ns int64, digits int) []byte {
	var tmp [9]byte
	for i := 8; i >= 0; i-- {
		tmp[i] = byte('0' + ns%10)
		ns /= 10
	}
	return append(b, tmp[:digits]...)
}

// appendIsoFrac writes a fraction as java.time's ISO formatters do: nothing when it is
// zero, else a point and the digits without trailing zeros.
func appendIsoFrac(b []byte, ns int64) []byte {
	if ns == 0 {
		return b
	}
	var tmp [9]byte
	for i := 8; i >= 0; i-- {
		tmp[i] = byte('0' + ns%10)
		ns /= 10
	}
	n := 9
	for n > 0 && tmp[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, tmp[:n]...)
}

func (l dateTimeLayout) append(b []byte, nanos int64) []byte {
	days := floorDiv(nanos, nanosPerDay)
	b = appendDate(b, days, l.sep)
	if l.mid != 0 {
		b = append(b, l.mid)
	}
	return appendClock(b, nanos-days*nanosPerDay, l.sep != 0, l.frac)
}

func (l timeLayout) append(b []byte, nanos int64) []byte {
	return appendClock(b, nanos, true, l.frac)
}

// appendISODateTime writes a timestamp as DateTimeFormatter.ISO_LOCAL_DATE_TIME does.
func appendISODateTime(b []byte, nanos int64) []byte {
	days := floorDiv(nanos, nanosPerDay)
	b = appendDate(b, days, '-')
	b = append(b, 'T')
	tod := nanos - days*nanosPerDay
	b = appendClock(b, tod, true, 0)
	return appendIsoFrac(b, tod%nanosPerSecond)
}

// appendISOTime writes a time of day as HH:mm:ss with the fraction SeaTunnel's JSON format
// prints (only the digits needed).
func appendISOTime(b []byte, nanos int64) []byte {
	b = appendClock(b, nanos, true, 0)
	return appendIsoFrac(b, nanos%nanosPerSecond)
}
