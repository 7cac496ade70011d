package javatime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/internal/civil"
)

// Parsed holds the fields a parse found, to be resolved into a date, a time of day or both.
type Parsed struct {
	year, month, day, doy         int64
	hour, minute, second, nano    int64
	clockHour                     int64 // h or K, with AM/PM
	hasYear, hasMonth, hasDay     bool
	hasDoy, yearOfEra, bce        bool
	hasHour, hasMinute, hasSecond bool
	hasNano, hasClock, hasAmPm    bool
	pm                            bool
}

// Parse reads all of s with the pattern, as DateTimeFormatter.parse does with the SMART
// resolver; Date and TimeOfDay resolve what it found. Zone letters cannot parse.
func (p *Pattern) Parse(s string) (Parsed, error) {
	var r Parsed
	if p.hasZone {
		return r, ErrZoneField
	}
	pos, err := p.parseItems(s, 0, p.items, &r)
	if err != nil {
		return Parsed{}, err
	}
	if pos != len(s) {
		return Parsed{}, fmt.Errorf("text %q could not be parsed with %q: unparsed text at index %d", s, p.src, pos)
	}
	return r, nil
}

func (p *Pattern) parseErr(s string, pos int) error {
	return fmt.Errorf("text %q could not be parsed with %q at index %d", s, p.src, pos)
}

func (p *Pattern) parseItems(s string, pos int, items []item, r *Parsed) (int, error) {
	for i := range items {
		it := &items[i]
		var err error
		switch it.kind {
		case itemLiteral:
			if !strings.HasPrefix(s[pos:], it.lit) {
				return pos, p.parseErr(s, pos)
			}
			pos += len(it.lit)
		case itemOptional:
			save := *r
			if np, err := p.parseItems(s, pos, it.sub, r); err != nil {
				*r = save
			} else {
				pos = np
			}
		default:
			if numeric, fixed := it.numericWidth(); numeric {
				pos, err = p.parseNumber(s, pos, it, fixed, items[i+1:], r)
			} else {
				pos, err = p.parseText(s, pos, it, r)
			}
			if err != nil {
				return pos, err
			}
		}
	}
	return pos, nil
}

// numericWidth reports whether a field parses as digits, and its fixed width (0: variable).
func (it *item) numericWidth() (numeric bool, fixed int) {
	if it.kind != itemField {
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
		switch n {
		case 1:
			return true, 0
		case 2:
			return true, 2
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

// parseNumber reads a numeric field at pos; next are the items after it, a variable-width
// field leaves the digits fixed-width numbers right after it need.
func (p *Pattern) parseNumber(s string, pos int, it *item, fixed int, next []item, r *Parsed) (int, error) {
	end := digitsEnd(s, pos)
	neg := false
	signed := it.letter == 'u' || it.letter == 'y' && it.count != 2
	if signed && fixed == 0 && pos < len(s) && (s[pos] == '-' || s[pos] == '+') {
		neg = s[pos] == '-'
		pos++
		end = digitsEnd(s, pos)
	}
	avail := end - pos
	take := fixed
	if fixed > 0 {
		if avail < fixed {
			return pos, p.parseErr(s, pos)
		}
	} else {
		take = avail - reservedDigits(next)
		minWidth := 1
		if (it.letter == 'u' || it.letter == 'y' || it.letter == 'Y') && it.count >= 3 {
			minWidth = it.count
		}
		take = min(take, 19)
		if take < minWidth {
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
	return pos + take, nil
}

func digitsEnd(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// reservedDigits is how many digits the fixed-width numbers at the start of items take.
func reservedDigits(items []item) int {
	n := 0
	for i := range items {
		numeric, fixed := items[i].numericWidth()
		if !numeric || fixed == 0 {
			break
		}
		n += fixed
	}
	return n
}

var eraNames = [...]string{"Anno Domini", "Before Christ", "AD", "BC", "A", "B"}

// parseText reads a text field (a month or day name, AM/PM, an era, a quarter) at pos.
func (p *Pattern) parseText(s string, pos int, it *item, r *Parsed) (int, error) {
	rest := s[pos:]
	switch it.letter {
	case 'M', 'L':
		for k, name := range monthNames {
			if name = textWidth(name, it.count); strings.HasPrefix(rest, name) {
				r.month, r.hasMonth = int64(k+1), true
				return pos + len(name), nil
			}
		}
	case 'E', 'e', 'c':
		for _, name := range dayNames {
			if name = textWidth(name, it.count); strings.HasPrefix(rest, name) {
				return pos + len(name), nil
			}
		}
	case 'a':
		if strings.HasPrefix(rest, "AM") || strings.HasPrefix(rest, "PM") {
			r.hasAmPm, r.pm = true, rest[0] == 'P'
			return pos + 2, nil
		}
	case 'G':
		for _, name := range eraNames {
			if strings.HasPrefix(rest, name) {
				r.bce = name[0] == 'B'
				return pos + len(name), nil
			}
		}
	case 'Q', 'q':
		names := quarterShort[:]
		if it.count == 4 {
			names = quarterNames[:]
		}
		for _, name := range names {
			if strings.HasPrefix(rest, name) {
				return pos + len(name), nil
			}
		}
	default:
		return pos, fmt.Errorf("pattern %q cannot be used to parse", p.src)
	}
	return pos, p.parseErr(s, pos)
}

// textWidth is a name in the width of count letters, as parsing reads it.
func textWidth(name string, count int) string {
	switch {
	case count <= 3:
		return name[:3]
	case count == 5:
		return name[:1]
	}
	return name
}

func (r *Parsed) set(it *item, v int64) error {
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
	default:
		return r.setTime(it.letter, v)
	}
	return nil
}

func (r *Parsed) setTime(letter byte, v int64) error {
	switch letter {
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
		r.clockHour, r.hasClock = v%12, true
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
		if v >= civil.NanosPerSecond {
			return fmt.Errorf("invalid nano of second %d", v)
		}
		r.nano, r.hasNano = v, true
	case 'A':
		if v >= 86_400_000 {
			return fmt.Errorf("invalid milli of day %d", v)
		}
		r.setNanoOfDay(v * 1_000_000)
	case 'N':
		if v >= civil.NanosPerDay {
			return fmt.Errorf("invalid nano of day %d", v)
		}
		r.setNanoOfDay(v)
	}
	return nil
}

func (r *Parsed) setNanoOfDay(ns int64) {
	r.hour, r.minute = ns/civil.NanosPerHour, ns/civil.NanosPerMinute%60
	r.second, r.nano = ns/civil.NanosPerSecond%60, ns%civil.NanosPerSecond
	r.hasHour, r.hasMinute, r.hasSecond, r.hasNano = true, true, true, true
}

// Date resolves the parsed fields to an epoch day, as java.time's SMART resolver does (a
// day past the end of its month becomes the month's last day).
func (r *Parsed) Date() (int64, error) {
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
		if ml := civil.MonthLength(y, int(r.month)); d > ml {
			d = ml
		}
		return civil.EpochDay(y, int(r.month), d), nil
	case r.hasDoy:
		if r.doy == 366 && !civil.IsLeap(y) {
			return 0, fmt.Errorf("invalid date: day 366 of %d", y)
		}
		return civil.EpochDay(y, 1, 1) + r.doy - 1, nil
	}
	return 0, errors.New("the text has no month and day")
}

// TimeOfDay resolves the parsed fields to nanoseconds of the day.
func (r *Parsed) TimeOfDay() (int64, error) {
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
	return h*civil.NanosPerHour + r.minute*civil.NanosPerMinute + r.second*civil.NanosPerSecond + r.nano, nil
}

// DateTime resolves the parsed fields to a zone-less timestamp.
func (r *Parsed) DateTime() (int64, error) {
	d, err := r.Date()
	if err != nil {
		return 0, err
	}
	t, err := r.TimeOfDay()
	if err != nil {
		return 0, err
	}
	return d*civil.NanosPerDay + t, nil
}
