package javatime

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strait-dev/strait/internal/civil"
)

// Value is a date-time to format: which parts it has and their values.
type Value struct {
	Days     int64 // the epoch day, when HasDate
	Nanos    int64 // nanoseconds of the day, when HasTime
	Offset   int   // seconds east of UTC, when HasZone
	ZoneName string
	ZoneID   string
	HasDate  bool
	HasTime  bool
	HasZone  bool
}

// Date is a LocalDate.
func Date(days int64) Value { return Value{Days: days, HasDate: true} }

// Time is a LocalTime.
func Time(nanos int64) Value { return Value{Nanos: nanos, HasTime: true} }

// DateTime is a LocalDateTime of a zone-less timestamp.
func DateTime(ts int64) Value {
	days, nanos := civil.SplitTimestamp(ts)
	return Value{Days: days, Nanos: nanos, HasDate: true, HasTime: true}
}

// Zoned is the ZonedDateTime of t: its wall clock in its location, the zone's offset and
// abbreviation at that instant (CET) and the location's name (Europe/Paris) as its id.
func Zoned(t time.Time) Value {
	name, off := t.Zone()
	local := t.Unix() + int64(off)
	days := civil.FloorDiv(local, 86400)
	nanos := (local-days*86400)*civil.NanosPerSecond + int64(t.Nanosecond())
	return Value{Days: days, Nanos: nanos, Offset: off, ZoneName: name, ZoneID: zoneID(t.Location()),
		HasDate: true, HasTime: true, HasZone: true}
}

// zoneID is the id of a location; the local one's is the id the system names (TZ, or the
// zone file /etc/localtime links to), as ZoneId.systemDefault() finds it, not Go's "Local".
func zoneID(loc *time.Location) string {
	if loc == time.Local {
		return localZoneID()
	}
	return loc.String()
}

var localZoneID = sync.OnceValue(func() string {
	if tz, ok := os.LookupEnv("TZ"); ok {
		if tz = strings.TrimPrefix(tz, ":"); tz != "" && !strings.HasPrefix(tz, "/") {
			return tz
		}
		if tz == "" {
			return "UTC"
		}
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if i := strings.Index(target, "zoneinfo/"); i >= 0 {
			return target[i+len("zoneinfo/"):]
		}
	}
	name, _ := time.Now().Zone() // a copied zone file: its abbreviation is all it tells
	return name
})

// ErrZoneField is the error of a pattern with zone letters and a value without a zone.
var ErrZoneField = errors.New("time-zone pattern letters (V, z, O, X, x, Z, v) cannot format a value without a time zone")

// Check reports whether the pattern can format values with the parts v has.
func (p *Pattern) Check(v Value) error {
	switch {
	case p.hasZone && !v.HasZone:
		return ErrZoneField
	case p.usesDate && !v.HasDate:
		return fmt.Errorf("pattern %q needs a date, the value is a time", p.src)
	case p.usesTime && !v.HasTime:
		return fmt.Errorf("pattern %q needs a time of day, the value is a date", p.src)
	}
	return nil
}

// Format appends v formatted by the pattern, or says why the pattern cannot format it.
func (p *Pattern) Format(buf []byte, v Value) ([]byte, error) {
	if err := p.Check(v); err != nil {
		return buf, err
	}
	return p.Append(buf, v), nil
}

// Append appends v formatted by the pattern, which Check accepted for values like v.
func (p *Pattern) Append(buf []byte, v Value) []byte {
	var d dateParts
	if v.HasDate {
		d.y, d.m, d.d = civil.Date(v.Days)
	}
	return appendItems(buf, p.items, &v, &d)
}

// AppendZoned appends t formatted by the pattern, as ZonedDateTime.format does.
func (p *Pattern) AppendZoned(buf []byte, t time.Time) []byte { return p.Append(buf, Zoned(t)) }

// dateParts are the civil date of the value formatted.
type dateParts struct {
	y    int64
	m, d int
}

func appendItems(buf []byte, items []item, v *Value, d *dateParts) []byte {
	for i := range items {
		it := &items[i]
		switch it.kind {
		case itemLiteral:
			if len(it.lit) == 1 {
				buf = append(buf, it.lit[0])
			} else {
				buf = append(buf, it.lit...)
			}
		case itemOptional:
			buf = appendItems(buf, it.sub, v, d)
		default:
			buf = appendField(buf, it.letter, it.count, v, d)
		}
	}
	return buf
}

func appendField(buf []byte, letter byte, n int, v *Value, d *dateParts) []byte {
	switch letter {
	// the fields of the common numeric patterns first, straight from the parts
	case 'd':
		return appendSmall(buf, int64(d.d), n)
	case 'H':
		return appendSmall(buf, v.Nanos/civil.NanosPerHour, n)
	case 'm':
		return appendSmall(buf, v.Nanos/civil.NanosPerMinute%60, n)
	case 's':
		return appendSmall(buf, v.Nanos/civil.NanosPerSecond%60, n)
	case 'M', 'L':
		if n <= 2 {
			return appendSmall(buf, int64(d.m), n)
		}
		return appendText(buf, monthNames[d.m-1], n)
	case 'G', 'u', 'y', 'Y', 'Q', 'q':
		return appendYearField(buf, letter, n, v, d)
	case 'w', 'W', 'F', 'D', 'E', 'e', 'c':
		return appendDayField(buf, letter, n, v, d)
	case 'V', 'z', 'O', 'X', 'x', 'Z', 'v':
		return appendZoneField(buf, letter, n, v)
	}
	return appendTimeField(buf, letter, n, v.Nanos)
}

var (
	monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
	dayNames     = [...]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	quarterNames = [...]string{"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"}
	quarterShort = [...]string{"Q1", "Q2", "Q3", "Q4"}
)

// MonthName is the English name of month m (1-12).
func MonthName(m int) string { return monthNames[m-1] }

// DayName is the English name of day of the week dow (1 Monday to 7 Sunday).
func DayName(dow int) string { return dayNames[dow-1] }

// appendText writes a name in the width of n letters: short (3 letters and fewer), full (4)
// or narrow (5).
func appendText(buf []byte, name string, n int) []byte {
	switch {
	case n == 4:
		return append(buf, name...)
	case n == 5:
		return append(buf, name[0])
	}
	return append(buf, name[:3]...)
}

func appendYearField(buf []byte, letter byte, n int, v *Value, d *dateParts) []byte {
	switch letter {
	case 'G':
		return appendEra(buf, d.y, n)
	case 'Q', 'q':
		return appendQuarter(buf, (d.m-1)/3+1, n)
	}
	y := d.y
	switch {
	case letter == 'y' && y <= 0:
		y = 1 - y // year of era
	case letter == 'Y':
		y, _ = civil.WeekBasedYear(v.Days, 7, 1)
	}
	switch {
	case n == 2:
		return append2(buf, civil.FloorMod(y, 100))
	case n < 4:
		return appendPadded(buf, y, n)
	}
	return appendYear(buf, y, n)
}

func appendEra(buf []byte, y int64, n int) []byte {
	era, long := "AD", "Anno Domini"
	if y <= 0 {
		era, long = "BC", "Before Christ"
	}
	switch n {
	case 4:
		return append(buf, long...)
	case 5:
		return append(buf, era[0])
	}
	return append(buf, era...)
}

func appendQuarter(buf []byte, q, n int) []byte {
	switch n {
	case 1, 2:
		return appendPadded(buf, int64(q), n)
	case 3:
		return append(buf, quarterShort[q-1]...)
	case 4:
		return append(buf, quarterNames[q-1]...)
	}
	return strconv.AppendInt(buf, int64(q), 10)
}

func appendDayField(buf []byte, letter byte, n int, v *Value, d *dateParts) []byte {
	switch letter {
	case 'w':
		_, w := civil.WeekBasedYear(v.Days, 7, 1)
		return appendPadded(buf, int64(w), n)
	case 'W':
		return strconv.AppendInt(buf, int64(civil.WeekOfMonth(v.Days, 7, 1)), 10)
	case 'F':
		return strconv.AppendInt(buf, int64((d.d-1)%7+1), 10)
	case 'D':
		return appendPadded(buf, int64(civil.DayOfYear(v.Days)), n)
	}
	// E, e, c
	dow := civil.DayOfWeek(v.Days)
	if letter != 'E' && n <= 2 {
		// the localized day-of-week number, weeks starting on Sunday
		return appendPadded(buf, int64(dow%7+1), n)
	}
	return appendText(buf, dayNames[dow-1], n)
}

func appendTimeField(buf []byte, letter byte, n int, nanos int64) []byte {
	hour := nanos / civil.NanosPerHour
	switch letter {
	case 'a':
		if hour < 12 {
			return append(buf, "AM"...)
		}
		return append(buf, "PM"...)
	case 'k':
		if hour == 0 {
			hour = 24
		}
		return appendPadded(buf, hour, n)
	case 'K':
		return appendPadded(buf, hour%12, n)
	case 'h':
		if hour%12 == 0 {
			return appendPadded(buf, 12, n)
		}
		return appendPadded(buf, hour%12, n)
	case 'S':
		var tmp [9]byte
		fractionDigits(&tmp, nanos%civil.NanosPerSecond)
		return append(buf, tmp[:n]...)
	case 'A':
		return appendPadded(buf, nanos/1_000_000, n)
	case 'n':
		return appendPadded(buf, nanos%civil.NanosPerSecond, n)
	}
	// N
	return appendPadded(buf, nanos, n)
}

// offsetStyle is one of java.time's offset patterns (+HH:MM, +HHmm...).
type offsetStyle struct {
	colon   bool
	minutes uint8 // 0 never, 1 when not zero, 2 always
	seconds uint8 // the same
	zero    string
}

// offsetStyles are the styles of X and x by count (index count-1), and of Z.
var (
	offsetX  = [5]offsetStyle{{false, 1, 0, "Z"}, {false, 2, 0, "Z"}, {true, 2, 0, "Z"}, {false, 2, 1, "Z"}, {true, 2, 1, "Z"}}
	offsetx  = [5]offsetStyle{{false, 1, 0, "+00"}, {false, 2, 0, "+0000"}, {true, 2, 0, "+00:00"}, {false, 2, 1, "+0000"}, {true, 2, 1, "+00:00"}}
	offsetZ  = offsetStyle{false, 2, 0, "+0000"}
	offsetZ5 = offsetStyle{true, 2, 1, "Z"}
)

func appendZoneField(buf []byte, letter byte, n int, v *Value) []byte {
	switch letter {
	case 'V':
		return append(buf, v.ZoneID...)
	case 'z', 'v':
		return append(buf, v.ZoneName...)
	case 'O':
		return appendLocalizedOffset(buf, v.Offset, n == 4)
	case 'X':
		return appendOffset(buf, v.Offset, offsetX[n-1])
	case 'x':
		return appendOffset(buf, v.Offset, offsetx[n-1])
	}
	// Z
	switch n {
	case 4:
		return appendLocalizedOffset(buf, v.Offset, true)
	case 5:
		return appendOffset(buf, v.Offset, offsetZ5)
	}
	return appendOffset(buf, v.Offset, offsetZ)
}

// appendOffset writes an offset in seconds as java.time's OffsetIdPrinterParser does.
func appendOffset(buf []byte, off int, st offsetStyle) []byte {
	if off == 0 {
		return append(buf, st.zero...)
	}
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	h, m, s := int64(off/3600%100), int64(off/60%60), int64(off%60)
	buf = append(buf, sign)
	buf = append2(buf, h)
	if st.minutes == 2 || st.minutes == 1 && m > 0 {
		if st.colon {
			buf = append(buf, ':')
		}
		buf = append2(buf, m)
		if st.seconds == 2 || st.seconds == 1 && s > 0 {
			if st.colon {
				buf = append(buf, ':')
			}
			buf = append2(buf, s)
		}
	}
	return buf
}

// appendLocalizedOffset writes GMT and the offset: GMT+8 or GMT+05:30 (short), GMT+08:00
// (full); GMT alone for no offset.
func appendLocalizedOffset(buf []byte, off int, full bool) []byte {
	buf = append(buf, "GMT"...)
	if off == 0 {
		return buf
	}
	sign := byte('+')
	if off < 0 {
		sign, off = '-', -off
	}
	h, m, s := int64(off/3600), int64(off/60%60), int64(off%60)
	buf = append(buf, sign)
	if full {
		buf = append2(buf, h)
		buf = append(buf, ':')
		buf = append2(buf, m)
	} else {
		buf = strconv.AppendInt(buf, h, 10)
		if m == 0 && s == 0 {
			return buf
		}
		buf = append(buf, ':')
		buf = append2(buf, m)
	}
	if s != 0 {
		buf = append(buf, ':')
		buf = append2(buf, s)
	}
	return buf
}
