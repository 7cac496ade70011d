package sql

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	// FROM_UNIXTIME takes region zones (Asia/Shanghai); carry the zone database so that they
	// resolve where the system has none (minimal containers)
	_ "time/tzdata"
	"unicode/utf8"
)

// Calendar arithmetic on the proleptic Gregorian calendar, with java.time's rules (adding a
// month to January 31 gives the last day of February, not March 3).

const (
	nanosPerSecond = int64(time.Second)
	nanosPerMinute = int64(time.Minute)
	nanosPerHour   = int64(time.Hour)
	nanosPerDay    = 24 * nanosPerHour
)

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// civilFromDays converts days since 1970-01-01 to year, month (1-12), day (1-31).
func civilFromDays(days int64) (y int64, m, d int) {
	z := days + 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100) // [0, 365]
	mp := (5*doy + 2) / 153                  // [0, 11]
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil is the inverse of civilFromDays.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := int64(m + 9)
	if m > 2 {
		mp = int64(m - 3)
	}
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func monthLength(y int64, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// dayOfWeek returns 1 (Monday) to 7 (Sunday).
func dayOfWeek(days int64) int { return int(floorMod(days+3, 7)) + 1 }

func dayOfYear(days int64) int {
	y, _, _ := civilFromDays(days)
	return int(days-daysFromCivil(y, 1, 1)) + 1
}

// plusMonths adds months to a date, clamping the day to the length of the target month.
func plusMonths(days int64, n int64) int64 {
	y, m, d := civilFromDays(days)
	total := y*12 + int64(m-1) + n
	ny := floorDiv(total, 12)
	nm := int(floorMod(total, 12)) + 1
	if ml := monthLength(ny, nm); d > ml {
		d = ml
	}
	return daysFromCivil(ny, nm, d)
}

// periodBetween returns java.time.Period.between(a, b): whole years, the months beyond them
// (-11..11) and the days beyond those.
func periodBetween(a, b int64) (years, months, days int64) {
	ay, am, ad := civilFromDays(a)
	by, bm, bd := civilFromDays(b)
	totalMonths := (by*12 + int64(bm-1)) - (ay*12 + int64(am-1))
	d := int64(bd - ad)
	switch {
	case totalMonths > 0 && d < 0:
		totalMonths--
		d = b - plusMonths(a, totalMonths)
	case totalMonths < 0 && d > 0:
		totalMonths++
		d -= int64(monthLength(by, bm))
	}
	return totalMonths / 12, totalMonths % 12, d
}

// splitTimestamp returns the days since the epoch and the nanoseconds of the day.
func splitTimestamp(ts int64) (days, nanos int64) {
	days = floorDiv(ts, nanosPerDay)
	return days, ts - days*nanosPerDay
}

// weekOfYear is java.time's WeekFields.weekOfYear for a week that starts on firstDow
// (1=Monday..7=Sunday) with minDays days needed in the first week; days before week 1 are
// week 0.
func weekOfYear(days int64, firstDow, minDays int) int {
	dow := int(floorMod(int64(dayOfWeek(days)-firstDow), 7)) + 1
	doy := dayOfYear(days)
	return weekNumber(startOfWeekOffset(doy, dow, minDays), doy)
}

func startOfWeekOffset(day, dow, minDays int) int {
	weekStart := int(floorMod(int64(day-dow), 7))
	offset := -weekStart
	if weekStart+1 > minDays {
		offset = 7 - weekStart
	}
	return offset
}

func weekNumber(offset, day int) int { return (7 + offset + (day - 1)) / 7 }

// weekBasedYear returns the week-based year of a date and its week in that year, for the
// week definition (firstDow, minDays), as java.time's WeekFields computes them.
func weekBasedYear(days int64, firstDow, minDays int) (int64, int) {
	y, _, _ := civilFromDays(days)
	dow := int(floorMod(int64(dayOfWeek(days)-firstDow), 7)) + 1
	doy := dayOfYear(days)
	offset := startOfWeekOffset(doy, dow, minDays)
	week := weekNumber(offset, doy)
	if week == 0 {
		// the last week of the previous year
		_, w := weekBasedYear(days-int64(doy), firstDow, minDays)
		return y - 1, w
	}
	yearLen := 365
	if isLeap(y) {
		yearLen = 366
	}
	if newYearWeek := weekNumber(offset, yearLen+minDays); week >= newYearWeek {
		return y + 1, week - newYearWeek + 1
	}
	return y, week
}

// ---- Java's toString of java.time values ----

func appendPadded(buf []byte, n int64, width int) []byte {
	if n < 0 {
		buf = append(buf, '-')
		n = -n
	}
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], n, 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// appendJavaDate writes LocalDate.toString: 2024-01-31 (+10000-01-01 beyond year 9999).
func appendJavaDate(buf []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	switch {
	case y > 9999:
		buf = append(buf, '+')
		buf = strconv.AppendInt(buf, y, 10)
	case y < 0:
		buf = append(buf, '-')
		buf = appendPadded(buf, -y, 4)
	default:
		buf = appendPadded(buf, y, 4)
	}
	buf = append(buf, '-')
	buf = appendPadded(buf, int64(m), 2)
	buf = append(buf, '-')
	return appendPadded(buf, int64(d), 2)
}

// appendJavaTime writes LocalTime.toString: 12:30, 12:30:05, 12:30:05.500.
func appendJavaTime(buf []byte, nanos int64) []byte {
	h := nanos / nanosPerHour
	mi := nanos / nanosPerMinute % 60
	s := nanos / nanosPerSecond % 60
	n := nanos % nanosPerSecond
	buf = appendPadded(buf, h, 2)
	buf = append(buf, ':')
	buf = appendPadded(buf, mi, 2)
	if s > 0 || n > 0 {
		buf = append(buf, ':')
		buf = appendPadded(buf, s, 2)
		if n > 0 {
			buf = append(buf, '.')
			switch {
			case n%1_000_000 == 0:
				buf = appendPadded(buf, n/1_000_000, 3)
			case n%1_000 == 0:
				buf = appendPadded(buf, n/1_000, 6)
			default:
				buf = appendPadded(buf, n, 9)
			}
		}
	}
	return buf
}

// appendJavaTimestamp writes LocalDateTime.toString: 2024-01-31T12:30:05.
func appendJavaTimestamp(buf []byte, ts int64) []byte {
	days, nanos := splitTimestamp(ts)
	buf = appendJavaDate(buf, days)
	buf = append(buf, 'T')
	return appendJavaTime(buf, nanos)
}

// ---- java.time.format.DateTimeFormatter patterns ----

var (
	monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
	dayNames = [...]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
)

type dtKind uint8

const (
	dtLiteral dtKind = iota
	dtField
	dtOptional
)

// dtItem is one element of a compiled pattern.
type dtItem struct {
	kind   dtKind
	letter byte
	count  int
	lit    string
	sub    []dtItem // optional section
}

// dtPattern is a compiled DateTimeFormatter pattern.
type dtPattern struct {
	src             string
	items           []dtItem
	usesDate        bool // the pattern reads date fields
	usesTime        bool // the pattern reads time-of-day fields
	hasZone         bool
	hasWeekBasedFld bool
}

// the maximum letter counts java.time accepts
var dtMaxCount = map[byte]int{
	'G': 5, 'u': 19, 'y': 19, 'Y': 19, 'Q': 5, 'q': 5, 'M': 5, 'L': 5, 'w': 2, 'W': 1,
	'd': 2, 'D': 3, 'F': 1, 'E': 5, 'e': 5, 'c': 5, 'a': 1, 'h': 2, 'K': 2, 'k': 2, 'H': 2,
	'm': 2, 's': 2, 'S': 9, 'A': 19, 'n': 19, 'N': 19,
	'V': 2, 'z': 4, 'O': 4, 'X': 5, 'x': 5, 'Z': 5, 'v': 4,
}

const dateLetters = "GuyYQqMLwWdDFEec"
const timeLetters = "ahKkHmsSAnN"

// compilePattern reads a DateTimeFormatter pattern.
func compilePattern(src string) (*dtPattern, error) {
	p := &dtPattern{src: src}
	items, rest, err := p.compile(src, 0)
	if err != nil {
		return nil, err
	}
	if rest != "" {
		return nil, fmt.Errorf("unbalanced ']' in pattern %q", src)
	}
	p.items = items
	return p, nil
}

func (p *dtPattern) compile(s string, depth int) ([]dtItem, string, error) {
	var items []dtItem
	for len(s) > 0 {
		c := s[0]
		switch {
		case c == '\'':
			// quoted literal; '' is a quote
			if len(s) > 1 && s[1] == '\'' {
				items = append(items, dtItem{kind: dtLiteral, lit: "'"})
				s = s[2:]
				continue
			}
			var b strings.Builder
			i := 1
			closed := false
			for i < len(s) {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					closed = true
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			if !closed {
				return nil, "", fmt.Errorf("pattern %q has an unterminated quote", p.src)
			}
			items = append(items, dtItem{kind: dtLiteral, lit: b.String()})
			s = s[i:]
		case c == '[':
			if depth > 20 {
				return nil, "", fmt.Errorf("pattern %q nests optional sections too deeply", p.src)
			}
			sub, rest, err := p.compile(s[1:], depth+1)
			if err != nil {
				return nil, "", err
			}
			if rest == "" {
				// an unclosed optional section runs to the end, as in java.time
				items = append(items, dtItem{kind: dtOptional, sub: sub})
				return items, "", nil
			}
			items = append(items, dtItem{kind: dtOptional, sub: sub})
			s = rest[1:]
		case c == ']':
			if depth == 0 {
				return nil, "", fmt.Errorf("pattern %q has an unbalanced ']'", p.src)
			}
			return items, s, nil
		case c == '{' || c == '}' || c == '#':
			return nil, "", fmt.Errorf("pattern %q uses the reserved character %q", p.src, c)
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			n := 1
			for n < len(s) && s[n] == c {
				n++
			}
			max, ok := dtMaxCount[c]
			if !ok {
				return nil, "", fmt.Errorf("unknown pattern letter %q in %q", c, p.src)
			}
			if n > max {
				return nil, "", fmt.Errorf("too many pattern letters %q in %q", s[:n], p.src)
			}
			switch {
			case strings.IndexByte("VzOXxZv", c) >= 0:
				p.hasZone = true
			case strings.IndexByte(dateLetters, c) >= 0:
				p.usesDate = true
				if c == 'Y' || c == 'w' || c == 'W' || c == 'e' || c == 'c' || c == 'F' {
					p.hasWeekBasedFld = true
				}
			case strings.IndexByte(timeLetters, c) >= 0:
				p.usesTime = true
			}
			if c == 'V' && n != 2 {
				return nil, "", fmt.Errorf("pattern letter count must be 2: %q in %q", s[:n], p.src)
			}
			items = append(items, dtItem{kind: dtField, letter: c, count: n})
			s = s[n:]
		default:
			_, size := utf8.DecodeRuneInString(s)
			items = append(items, dtItem{kind: dtLiteral, lit: s[:size]})
			s = s[size:]
		}
	}
	return items, "", nil
}

// dtValue is a date-time to format: which parts it has and their values.
type dtValue struct {
	hasDate, hasTime bool
	days             int64 // since the epoch
	nanos            int64 // of the day
}

var errZoneField = errors.New("time-zone pattern letters (V, z, O, X, x, Z, v) cannot format a value without a time zone")

// check reports whether the pattern can format values with (or without) dates and times.
func (p *dtPattern) check(hasDate, hasTime bool) error {
	if p.hasZone {
		return errZoneField
	}
	if p.usesDate && !hasDate {
		return fmt.Errorf("pattern %q needs a date, the value is a time", p.src)
	}
	if p.usesTime && !hasTime {
		return fmt.Errorf("pattern %q needs a time of day, the value is a date", p.src)
	}
	return nil
}

// format appends v formatted by the pattern.
func (p *dtPattern) format(buf []byte, v dtValue) ([]byte, error) {
	if err := p.check(v.hasDate, v.hasTime); err != nil {
		return buf, err
	}
	return p.formatItems(buf, p.items, v), nil
}

func (p *dtPattern) formatItems(buf []byte, items []dtItem, v dtValue) []byte {
	var y int64
	var m, d int
	if v.hasDate {
		y, m, d = civilFromDays(v.days)
	}
	for _, it := range items {
		switch it.kind {
		case dtLiteral:
			buf = append(buf, it.lit...)
			continue
		case dtOptional:
			buf = p.formatItems(buf, it.sub, v)
			continue
		}
		n := it.count
		switch it.letter {
		case 'G':
			era, long := "AD", "Anno Domini"
			if y <= 0 {
				era, long = "BC", "Before Christ"
			}
			switch {
			case n == 4:
				buf = append(buf, long...)
			case n == 5:
				buf = append(buf, era[0])
			default:
				buf = append(buf, era...)
			}
		case 'u', 'y', 'Y':
			yy := y
			if it.letter == 'y' && y <= 0 {
				yy = 1 - y
			}
			if it.letter == 'Y' {
				yy, _ = weekBasedYear(v.days, 7, 1)
			}
			switch {
			case n == 2:
				buf = appendPadded(buf, floorMod(yy, 100), 2)
			case n < 4:
				buf = strconv.AppendInt(buf, yy, 10)
			default:
				if yy > 0 && digits(yy) > n {
					buf = append(buf, '+')
				}
				buf = appendPadded(buf, yy, n)
			}
		case 'Q', 'q':
			q := (m-1)/3 + 1
			switch n {
			case 1, 2:
				buf = appendPadded(buf, int64(q), n)
			case 3:
				buf = append(buf, 'Q')
				buf = strconv.AppendInt(buf, int64(q), 10)
			case 4:
				buf = append(buf, [...]string{"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"}[q-1]...)
			default:
				buf = strconv.AppendInt(buf, int64(q), 10)
			}
		case 'M', 'L':
			switch n {
			case 1, 2:
				buf = appendPadded(buf, int64(m), n)
			case 3:
				buf = append(buf, monthNames[m-1][:3]...)
			case 4:
				buf = append(buf, monthNames[m-1]...)
			default:
				buf = append(buf, monthNames[m-1][0])
			}
		case 'w':
			_, w := weekBasedYear(v.days, 7, 1)
			buf = appendPadded(buf, int64(w), n)
		case 'W':
			buf = strconv.AppendInt(buf, int64(weekOfMonth(v.days, 7, 1)), 10)
		case 'F':
			buf = strconv.AppendInt(buf, int64((d-1)%7+1), 10)
		case 'd':
			buf = appendPadded(buf, int64(d), n)
		case 'D':
			buf = appendPadded(buf, int64(dayOfYear(v.days)), n)
		case 'E', 'e', 'c':
			dow := dayOfWeek(v.days)
			if (it.letter == 'e' || it.letter == 'c') && n <= 2 {
				// localized day-of-week number, weeks starting on Sunday
				buf = appendPadded(buf, int64(dow%7+1), n)
				break
			}
			switch {
			case n == 4:
				buf = append(buf, dayNames[dow-1]...)
			case n == 5:
				buf = append(buf, dayNames[dow-1][0])
			default:
				buf = append(buf, dayNames[dow-1][:3]...)
			}
		case 'a':
			if v.nanos < 12*nanosPerHour {
				buf = append(buf, "AM"...)
			} else {
				buf = append(buf, "PM"...)
			}
		case 'H':
			buf = appendPadded(buf, v.nanos/nanosPerHour, n)
		case 'k':
			h := v.nanos / nanosPerHour
			if h == 0 {
				h = 24
			}
			buf = appendPadded(buf, h, n)
		case 'K':
			buf = appendPadded(buf, v.nanos/nanosPerHour%12, n)
		case 'h':
			h := v.nanos / nanosPerHour % 12
			if h == 0 {
				h = 12
			}
			buf = appendPadded(buf, h, n)
		case 'm':
			buf = appendPadded(buf, v.nanos/nanosPerMinute%60, n)
		case 's':
			buf = appendPadded(buf, v.nanos/nanosPerSecond%60, n)
		case 'S':
			frac := v.nanos % nanosPerSecond
			var tmp [9]byte
			for i := 8; i >= 0; i-- {
				tmp[i] = byte('0' + frac%10)
				frac /= 10
			}
			buf = append(buf, tmp[:n]...)
		case 'A':
			buf = appendPadded(buf, v.nanos/1_000_000, n)
		case 'n':
			buf = appendPadded(buf, v.nanos%nanosPerSecond, n)
		case 'N':
			buf = appendPadded(buf, v.nanos, n)
		}
	}
	return buf
}

func weekOfMonth(days int64, firstDow, minDays int) int {
	_, _, d := civilFromDays(days)
	dow := int(floorMod(int64(dayOfWeek(days)-firstDow), 7)) + 1
	return weekNumber(startOfWeekOffset(d, dow, minDays), d)
}

func digits(n int64) int {
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

// parsed holds the fields a parse found.
type parsed struct {
	year, month, day, doy         int64
	hasYear, hasMonth, hasDay     bool
	hasDoy, yearOfEra, bce        bool
	hour, minute, second, nano    int64
	hasHour, hasMinute, hasSecond bool
	hasNano                       bool
	clockHour                     int64 // h or K, with ampm
	hasClock, hasAmPm, pm         bool
	clockFrom1                    bool
}

// isNumeric reports whether a field parses as digits, and its fixed width (0: variable).
func (it dtItem) numericWidth() (numeric bool, fixed int) {
	if it.kind != dtField {
		return false, 0
	}
	n := it.count
	switch it.letter {
	case 'u', 'y', 'Y':
		if n == 2 {
			return true, 2
		}
		return true, 0
	case 'M', 'L', 'Q', 'q':
		if n <= 2 {
			if n == 2 {
				return true, 2
			}
			return true, 0
		}
		return false, 0
	case 'e', 'c':
		if n <= 2 {
			return true, n
		}
		return false, 0
	case 'd', 'D', 'H', 'h', 'K', 'k', 'm', 's', 'w':
		if n >= 2 {
			return true, n
		}
		return true, 0
	case 'S':
		return true, n
	case 'A', 'n', 'N', 'W', 'F':
		return true, 0
	}
	return false, 0
}

// parse reads s completely with the pattern.
func (p *dtPattern) parse(s string) (*parsed, error) {
	if p.hasZone {
		return nil, errZoneField
	}
	r := &parsed{}
	pos, err := p.parseItems(s, 0, p.items, r)
	if err != nil {
		return nil, err
	}
	if pos != len(s) {
		return nil, fmt.Errorf("text %q could not be parsed with %q: unparsed text at index %d", s, p.src, pos)
	}
	return r, nil
}

func (p *dtPattern) parseErr(s string, pos int) error {
	return fmt.Errorf("text %q could not be parsed with %q at index %d", s, p.src, pos)
}

func (p *dtPattern) parseItems(s string, pos int, items []dtItem, r *parsed) (int, error) {
	for i, it := range items {
		switch it.kind {
		case dtLiteral:
			if !strings.HasPrefix(s[pos:], it.lit) {
				return pos, p.parseErr(s, pos)
			}
			pos += len(it.lit)
			continue
		case dtOptional:
			save := *r
			np, err := p.parseItems(s, pos, it.sub, r)
			if err != nil {
				*r = save
			} else {
				pos = np
			}
			continue
		}
		numeric, fixed := it.numericWidth()
		if numeric {
			// digits available
			end := pos
			for end < len(s) && isDigit(s[end]) {
				end++
			}
			neg := false
			if (it.letter == 'u' || it.letter == 'y' && it.count != 2) && pos < len(s) && (s[pos] == '-' || s[pos] == '+') && fixed == 0 {
				neg = s[pos] == '-'
				pos++
				end = pos
				for end < len(s) && isDigit(s[end]) {
					end++
				}
			}
			avail := end - pos
			var take int
			if fixed > 0 {
				if avail < fixed {
					return pos, p.parseErr(s, pos)
				}
				take = fixed
			} else {
				// leave room for fixed-width numbers that follow without a separator
				reserve := 0
				for _, nx := range items[i+1:] {
					nn, nf := nx.numericWidth()
					if !nn || nf == 0 {
						break
					}
					reserve += nf
				}
				take = avail - reserve
				minW := 1
				if (it.letter == 'u' || it.letter == 'y' || it.letter == 'Y') && it.count >= 3 {
					minW = it.count
				}
				if take > 19 {
					take = 19
				}
				if take < minW {
					return pos, p.parseErr(s, pos)
				}
			}
			val, err := strconv.ParseInt(s[pos:pos+take], 10, 64)
			if err != nil {
				return pos, p.parseErr(s, pos)
			}
			if neg {
				val = -val
			}
			if it.letter == 'S' {
				for k := take; k < 9; k++ {
					val *= 10
				}
			}
			if err := r.set(it, val); err != nil {
				return pos, fmt.Errorf("text %q could not be parsed with %q: %v", s, p.src, err)
			}
			pos += take
			continue
		}
		// text fields
		var options []string
		switch it.letter {
		case 'M', 'L':
			for k, name := range monthNames {
				if it.count == 3 {
					name = name[:3]
				} else if it.count == 5 {
					name = name[:1]
				}
				if strings.HasPrefix(s[pos:], name) {
					_ = r.set(dtItem{kind: dtField, letter: 'M', count: 1}, int64(k+1))
					pos += len(name)
					options = nil
					goto next
				}
			}
			return pos, p.parseErr(s, pos)
		case 'E', 'e', 'c':
			for _, name := range dayNames {
				if it.count <= 3 {
					name = name[:3]
				} else if it.count == 5 {
					name = name[:1]
				}
				if strings.HasPrefix(s[pos:], name) {
					pos += len(name)
					goto next
				}
			}
			return pos, p.parseErr(s, pos)
		case 'a':
			switch {
			case strings.HasPrefix(s[pos:], "AM"):
				r.hasAmPm, r.pm = true, false
			case strings.HasPrefix(s[pos:], "PM"):
				r.hasAmPm, r.pm = true, true
			default:
				return pos, p.parseErr(s, pos)
			}
			pos += 2
		case 'G':
			options = []string{"Anno Domini", "Before Christ", "AD", "BC", "A", "B"}
			for _, o := range options {
				if strings.HasPrefix(s[pos:], o) {
					r.bce = o[0] == 'B'
					pos += len(o)
					goto next
				}
			}
			return pos, p.parseErr(s, pos)
		case 'Q', 'q':
			for q := 1; q <= 4; q++ {
				name := "Q" + strconv.Itoa(q)
				if it.count == 4 {
					name = [...]string{"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"}[q-1]
				}
				if strings.HasPrefix(s[pos:], name) {
					pos += len(name)
					goto next
				}
			}
			return pos, p.parseErr(s, pos)
		default:
			return pos, fmt.Errorf("pattern %q cannot be used to parse", p.src)
		}
	next:
	}
	return pos, nil
}

func (r *parsed) set(it dtItem, v int64) error {
	switch it.letter {
	case 'u', 'y':
		if it.count == 2 {
			v += 2000
		}
		r.year, r.hasYear, r.yearOfEra = v, true, it.letter == 'y'
	case 'M', 'L':
		if v < 1 || v > 12 {
			return fmt.Errorf("invalid month %d", v)
		}
		r.month, r.hasMonth = v, true
	case 'd':
		if v < 1 || v > 31 {
			return fmt.Errorf("invalid day of month %d", v)
		}
		r.day, r.hasDay = v, true
	case 'D':
		if v < 1 || v > 366 {
			return fmt.Errorf("invalid day of year %d", v)
		}
		r.doy, r.hasDoy = v, true
	case 'H':
		if v > 23 {
			return fmt.Errorf("invalid hour %d", v)
		}
		r.hour, r.hasHour = v, true
	case 'k':
		if v < 1 || v > 24 {
			return fmt.Errorf("invalid hour %d", v)
		}
		r.hour, r.hasHour = v%24, true
	case 'h':
		if v < 1 || v > 12 {
			return fmt.Errorf("invalid clock hour %d", v)
		}
		r.clockHour, r.hasClock, r.clockFrom1 = v%12, true, true
	case 'K':
		if v > 11 {
			return fmt.Errorf("invalid hour %d", v)
		}
		r.clockHour, r.hasClock = v, true
	case 'm':
		if v > 59 {
			return fmt.Errorf("invalid minute %d", v)
		}
		r.minute, r.hasMinute = v, true
	case 's':
		if v > 59 {
			return fmt.Errorf("invalid second %d", v)
		}
		r.second, r.hasSecond = v, true
	case 'S':
		r.nano, r.hasNano = v, true
	case 'n':
		if v >= nanosPerSecond {
			return fmt.Errorf("invalid nano of second %d", v)
		}
		r.nano, r.hasNano = v, true
	case 'A':
		if v >= 86_400_000 {
			return fmt.Errorf("invalid milli of day %d", v)
		}
		ns := v * 1_000_000
		r.hour, r.minute, r.second, r.nano = ns/nanosPerHour, ns/nanosPerMinute%60, ns/nanosPerSecond%60, ns%nanosPerSecond
		r.hasHour, r.hasMinute, r.hasSecond, r.hasNano = true, true, true, true
	case 'N':
		if v >= nanosPerDay {
			return fmt.Errorf("invalid nano of day %d", v)
		}
		r.hour, r.minute, r.second, r.nano = v/nanosPerHour, v/nanosPerMinute%60, v/nanosPerSecond%60, v%nanosPerSecond
		r.hasHour, r.hasMinute, r.hasSecond, r.hasNano = true, true, true, true
	}
	return nil
}

// date resolves the parsed fields to a date, as java.time's SMART resolver does (a day past
// the end of the month becomes its last day).
func (r *parsed) date() (int64, error) {
	if !r.hasYear {
		return 0, errors.New("the text has no year")
	}
	y := r.year
	if r.yearOfEra && r.bce {
		y = 1 - y
	}
	switch {
	case r.hasMonth && r.hasDay:
		d := int(r.day)
		if ml := monthLength(y, int(r.month)); d > ml {
			if r.day > 31 {
				return 0, fmt.Errorf("invalid date")
			}
			d = ml
		}
		return daysFromCivil(y, int(r.month), d), nil
	case r.hasDoy:
		if r.doy == 366 && !isLeap(y) {
			return 0, fmt.Errorf("invalid date: day 366 of %d", y)
		}
		return daysFromCivil(y, 1, 1) + r.doy - 1, nil
	}
	return 0, errors.New("the text has no month and day")
}

// timeOfDay resolves the parsed fields to nanoseconds of the day.
func (r *parsed) timeOfDay() (int64, error) {
	h := r.hour
	switch {
	case r.hasHour:
	case r.hasClock && r.hasAmPm:
		h = r.clockHour
		if r.pm {
			h += 12
		}
	default:
		return 0, errors.New("the text has no hour of the day")
	}
	return h*nanosPerHour + r.minute*nanosPerMinute + r.second*nanosPerSecond + r.nano, nil
}

// ---- time zones, as java.time.ZoneId.of reads them ----

// parseZone reads a zone id: a region (Asia/Shanghai), Z, UTC, GMT, UT, an offset (+08:00,
// -5, +0530) or a prefixed offset (UTC+8, GMT-03:30).
func parseZone(id string) (*time.Location, error) {
	switch id {
	case "Z", "UTC", "GMT", "UT", "UTC0", "GMT0":
		return time.UTC, nil
	}
	for _, prefix := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(id, prefix) && len(id) > len(prefix) && (id[len(prefix)] == '+' || id[len(prefix)] == '-') {
			off, err := parseOffset(id[len(prefix):])
			if err != nil {
				return nil, fmt.Errorf("invalid time zone %q", id)
			}
			return time.FixedZone(id, off), nil
		}
	}
	if id != "" && (id[0] == '+' || id[0] == '-') {
		off, err := parseOffset(id)
		if err != nil {
			return nil, fmt.Errorf("invalid time zone %q", id)
		}
		return time.FixedZone(id, off), nil
	}
	if id == "" || strings.ContainsAny(id, " \t\n") || id == "Local" {
		return nil, fmt.Errorf("invalid time zone %q", id)
	}
	loc, err := time.LoadLocation(id)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q", id)
	}
	return loc, nil
}

// parseOffset reads +h, +hh, +hh:mm, +hhmm, +hh:mm:ss or +hhmmss.
func parseOffset(s string) (int, error) {
	if len(s) < 2 {
		return 0, errors.New("bad offset")
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	num := func(t string) (int, bool) {
		if len(t) == 0 || len(t) > 2 {
			return 0, false
		}
		n := 0
		for i := 0; i < len(t); i++ {
			if !isDigit(t[i]) {
				return 0, false
			}
			n = n*10 + int(t[i]-'0')
		}
		return n, true
	}
	var h, m, sec int
	var ok bool
	switch {
	case strings.Contains(s, ":"):
		parts := strings.Split(s, ":")
		if len(parts) > 3 || len(parts[0]) != 2 {
			return 0, errors.New("bad offset")
		}
		vals := make([]int, 3)
		for i, p := range parts {
			if len(p) != 2 && i > 0 {
				return 0, errors.New("bad offset")
			}
			if vals[i], ok = num(p); !ok {
				return 0, errors.New("bad offset")
			}
		}
		h, m, sec = vals[0], vals[1], vals[2]
	case len(s) <= 2:
		if h, ok = num(s); !ok {
			return 0, errors.New("bad offset")
		}
	case len(s) == 4 || len(s) == 6:
		if h, ok = num(s[:2]); !ok {
			return 0, errors.New("bad offset")
		}
		if m, ok = num(s[2:4]); !ok {
			return 0, errors.New("bad offset")
		}
		if len(s) == 6 {
			if sec, ok = num(s[4:]); !ok {
				return 0, errors.New("bad offset")
			}
		}
	default:
		return 0, errors.New("bad offset")
	}
	if h > 18 || m > 59 || sec > 59 || h == 18 && (m > 0 || sec > 0) {
		return 0, errors.New("offset out of range")
	}
	return sign * (h*3600 + m*60 + sec), nil
}
