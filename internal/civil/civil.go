// Package civil is calendar arithmetic on the proleptic Gregorian calendar, counted as
// java.time counts it: a date is its epoch day (days since 1970-01-01, negative before), a
// time of day is nanoseconds since midnight, and a zone-less timestamp is nanoseconds since
// 1970-01-01T00:00. Months of different lengths follow java.time's rules (a month added to
// January 31 gives the last day of February). Everything here is pure integer arithmetic:
// nothing allocates and nothing reads a clock or a time zone.
package civil

// Units of time in nanoseconds.
const (
	NanosPerSecond = int64(1_000_000_000)
	NanosPerMinute = 60 * NanosPerSecond
	NanosPerHour   = 60 * NanosPerMinute
	NanosPerDay    = 24 * NanosPerHour
)

// FloorDiv divides rounding toward negative infinity (Java's Math.floorDiv).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// FloorMod is the remainder of FloorDiv, with the sign of b (Java's Math.floorMod).
func FloorMod(a, b int64) int64 { return a - FloorDiv(a, b)*b }

// EpochDay returns the days from 1970-01-01 to the date y-m-d. Months and days out of range
// are not checked: they count on from the month's start (see Valid).
func EpochDay(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := FloorDiv(y, 400)
	yoe := y - era*400 // [0, 399]
	mp := int64(m + 9)
	if m > 2 {
		mp = int64(m - 3)
	}
	doy := (153*mp+2)/5 + int64(d) - 1     // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return era*146097 + doe - 719468
}

// Date converts an epoch day to its year, month (1-12) and day of the month (1-31).
func Date(days int64) (y int64, m, d int) {
	z := days + 719468
	era := FloorDiv(z, 146097)
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

// Valid reports whether y-m-d is a date: a month 1-12 and a day that month has.
func Valid(y int64, m, d int) bool {
	return m >= 1 && m <= 12 && d >= 1 && d <= MonthLength(y, m)
}

// IsLeap reports whether y has a February 29.
func IsLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// MonthLength is the number of days of month m (1-12) in year y.
func MonthLength(y int64, m int) int {
	switch m {
	case 2:
		if IsLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// YearLength is the number of days of year y.
func YearLength(y int64) int {
	if IsLeap(y) {
		return 366
	}
	return 365
}

// DayOfWeek returns the ISO day of the week of an epoch day: 1 (Monday) to 7 (Sunday).
func DayOfWeek(days int64) int { return int(FloorMod(days+3, 7)) + 1 }

// DayOfYear returns the day of the year of an epoch day, 1 for January 1.
func DayOfYear(days int64) int {
	y, _, _ := Date(days)
	return int(days-EpochDay(y, 1, 1)) + 1
}

// SplitTimestamp returns the epoch day of a timestamp and the nanoseconds of its day.
func SplitTimestamp(ts int64) (days, nanos int64) {
	days = FloorDiv(ts, NanosPerDay)
	return days, ts - days*NanosPerDay
}

// PlusMonths adds n months to an epoch day, clamping the day to the length of the month it
// lands in (LocalDate.plusMonths).
func PlusMonths(days int64, n int64) int64 {
	y, m, d := Date(days)
	total := y*12 + int64(m-1) + n
	ny := FloorDiv(total, 12)
	nm := int(FloorMod(total, 12)) + 1
	if ml := MonthLength(ny, nm); d > ml {
		d = ml
	}
	return EpochDay(ny, nm, d)
}

// PeriodBetween returns java.time.Period.between(a, b) of two epoch days: whole years, the
// months beyond them (-11..11) and the days beyond those.
func PeriodBetween(a, b int64) (years, months, days int64) {
	ay, am, ad := Date(a)
	by, bm, bd := Date(b)
	totalMonths := (by*12 + int64(bm-1)) - (ay*12 + int64(am-1))
	d := int64(bd - ad)
	switch {
	case totalMonths > 0 && d < 0:
		totalMonths--
		d = b - PlusMonths(a, totalMonths)
	case totalMonths < 0 && d > 0:
		totalMonths++
		d -= int64(MonthLength(by, bm))
	}
	return totalMonths / 12, totalMonths % 12, d
}

// Weeks, as java.time's WeekFields counts them: a week starts on firstDow (1 Monday to 7
// Sunday), and the first week of a year or month is the first one with at least minDays of
// its days in it; days before it are in week 0.

// localDayOfWeek is the day's position in a week starting on firstDow, 1 to 7.
func localDayOfWeek(days int64, firstDow int) int {
	return int(FloorMod(int64(DayOfWeek(days)-firstDow), 7)) + 1
}

// weekStartOffset is the offset of the first week's start from the day numbered 1, for a
// day numbered day whose local day of the week is dow.
func weekStartOffset(day, dow, minDays int) int {
	weekStart := int(FloorMod(int64(day-dow), 7))
	if weekStart+1 > minDays {
		return 7 - weekStart
	}
	return -weekStart
}

func weekNumber(offset, day int) int { return (7 + offset + (day - 1)) / 7 }

// WeekOfYear is the week of the year of an epoch day (WeekFields.weekOfYear), 0 before the
// first week.
func WeekOfYear(days int64, firstDow, minDays int) int {
	doy := DayOfYear(days)
	return weekNumber(weekStartOffset(doy, localDayOfWeek(days, firstDow), minDays), doy)
}

// WeekOfMonth is the week of the month of an epoch day (WeekFields.weekOfMonth), 0 before
// the first week.
func WeekOfMonth(days int64, firstDow, minDays int) int {
	_, _, d := Date(days)
	return weekNumber(weekStartOffset(d, localDayOfWeek(days, firstDow), minDays), d)
}

// WeekBasedYear returns the week-based year of an epoch day and its week in that year
// (WeekFields.weekBasedYear and weekOfWeekBasedYear).
func WeekBasedYear(days int64, firstDow, minDays int) (int64, int) {
	y, _, _ := Date(days)
	doy := DayOfYear(days)
	offset := weekStartOffset(doy, localDayOfWeek(days, firstDow), minDays)
	week := weekNumber(offset, doy)
	if week == 0 {
		// the last week of the previous year
		_, w := WeekBasedYear(days-int64(doy), firstDow, minDays)
		return y - 1, w
	}
	if newYearWeek := weekNumber(offset, YearLength(y)+minDays); week >= newYearWeek {
		return y + 1, week - newYearWeek + 1
	}
	return y, week
}
