package civil

import (
	"testing"
	"time"
)

// utcDay is the epoch day of t, computed by the time package.
func utcDay(t time.Time) int64 { return FloorDiv(t.Unix(), 86400) }

func TestEpochDay(t *testing.T) {
	for _, d := range []time.Time{
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(1600, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-400, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		want := utcDay(d)
		if got := EpochDay(int64(d.Year()), int(d.Month()), d.Day()); got != want {
			t.Errorf("EpochDay(%v) = %d, want %d", d, got, want)
		}
		y, m, day := Date(want)
		if y != int64(d.Year()) || m != int(d.Month()) || day != d.Day() {
			t.Errorf("Date(%d) = %d-%d-%d, want %v", want, y, m, day, d)
		}
	}
}

// Every day of a span of eight centuries around the epoch converts both ways as the time
// package computes it, with its day of the week, day of the year and ISO week.
func TestDaysAgainstTimePackage(t *testing.T) {
	start := time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2400, 12, 31, 0, 0, 0, 0, time.UTC)
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		days := utcDay(d)
		if got := EpochDay(int64(d.Year()), int(d.Month()), d.Day()); got != days {
			t.Fatalf("EpochDay(%v) = %d, want %d", d, got, days)
		}
		if y, m, day := Date(days); y != int64(d.Year()) || m != int(d.Month()) || day != d.Day() {
			t.Fatalf("Date(%d) = %d-%d-%d, want %v", days, y, m, day, d)
		}
		if got, want := DayOfWeek(days), (int(d.Weekday())+6)%7+1; got != want {
			t.Fatalf("DayOfWeek(%v) = %d, want %d", d, got, want)
		}
		if got := DayOfYear(days); got != d.YearDay() {
			t.Fatalf("DayOfYear(%v) = %d, want %d", d, got, d.YearDay())
		}
		wy, ww := d.ISOWeek()
		if y, w := WeekBasedYear(days, 1, 4); y != int64(wy) || w != ww {
			t.Fatalf("WeekBasedYear(%v, ISO) = %d-W%d, want %d-W%d", d, y, w, wy, ww)
		}
	}
}

func TestMonthLength(t *testing.T) {
	cases := []struct {
		y    int64
		m    int
		want int
	}{
		{2024, 2, 29}, {2023, 2, 28}, {1900, 2, 28}, {2000, 2, 29}, {-4, 2, 29},
		{2023, 1, 31}, {2023, 4, 30}, {2023, 6, 30}, {2023, 9, 30}, {2023, 11, 30}, {2023, 12, 31},
	}
	for _, c := range cases {
		if got := MonthLength(c.y, c.m); got != c.want {
			t.Errorf("MonthLength(%d, %d) = %d, want %d", c.y, c.m, got, c.want)
		}
	}
	if YearLength(2024) != 366 || YearLength(2023) != 365 {
		t.Error("YearLength")
	}
}

func TestValid(t *testing.T) {
	for _, c := range []struct {
		y    int64
		m, d int
		ok   bool
	}{
		{2024, 2, 29, true}, {2023, 2, 29, false}, {2023, 0, 1, false}, {2023, 13, 1, false},
		{2023, 4, 31, false}, {2023, 12, 31, true}, {2023, 1, 0, false},
	} {
		if got := Valid(c.y, c.m, c.d); got != c.ok {
			t.Errorf("Valid(%d-%d-%d) = %v", c.y, c.m, c.d, got)
		}
	}
}

func TestFloor(t *testing.T) {
	for _, c := range []struct{ a, b, div, mod int64 }{
		{7, 2, 3, 1}, {-7, 2, -4, 1}, {7, -2, -4, -1}, {-7, -2, 3, -1}, {-6, 3, -2, 0}, {0, 5, 0, 0},
	} {
		if d, m := FloorDiv(c.a, c.b), FloorMod(c.a, c.b); d != c.div || m != c.mod {
			t.Errorf("floor %d / %d = %d rem %d, want %d rem %d", c.a, c.b, d, m, c.div, c.mod)
		}
	}
	if d, n := SplitTimestamp(-1); d != -1 || n != NanosPerDay-1 {
		t.Errorf("SplitTimestamp(-1) = %d, %d", d, n)
	}
}

func day(y int64, m, d int) int64 { return EpochDay(y, m, d) }

func TestPlusMonths(t *testing.T) {
	for _, c := range []struct {
		from int64
		n    int64
		want int64
	}{
		{day(2024, 1, 31), 1, day(2024, 2, 29)},
		{day(2023, 1, 31), 1, day(2023, 2, 28)},
		{day(2024, 3, 31), -1, day(2024, 2, 29)},
		{day(2024, 5, 15), 12, day(2025, 5, 15)},
		{day(2024, 5, 15), -17, day(2022, 12, 15)},
		{day(2024, 5, 31), 0, day(2024, 5, 31)},
	} {
		if got := PlusMonths(c.from, c.n); got != c.want {
			y, m, d := Date(got)
			t.Errorf("PlusMonths(%d, %d) = %d-%d-%d", c.from, c.n, y, m, d)
		}
	}
}

// The expected periods are java.time's Period.between.
func TestPeriodBetween(t *testing.T) {
	for _, c := range []struct {
		a, b    int64
		y, m, d int64
	}{
		{day(2020, 1, 15), day(2021, 3, 10), 1, 1, 23},
		{day(2021, 3, 10), day(2020, 1, 15), -1, -1, -26},
		{day(2024, 1, 31), day(2024, 2, 29), 0, 0, 29},
		{day(2024, 1, 31), day(2024, 3, 1), 0, 1, 1},
		{day(2024, 5, 5), day(2024, 5, 5), 0, 0, 0},
		{day(2023, 12, 31), day(2024, 1, 1), 0, 0, 1},
	} {
		if y, m, d := PeriodBetween(c.a, c.b); y != c.y || m != c.m || d != c.d {
			t.Errorf("PeriodBetween(%d, %d) = P%dY%dM%dD, want P%dY%dM%dD", c.a, c.b, y, m, d, c.y, c.m, c.d)
		}
	}
}

// The expected weeks are java.time's for Locale.US (weeks start on Sunday, the first week
// holds January 1).
func TestWeeksUS(t *testing.T) {
	for _, c := range []struct {
		d                int64
		woy, wom, wby, w int
	}{
		{day(2021, 1, 1), 1, 1, 2021, 1},
		{day(2021, 1, 3), 2, 2, 2021, 2},
		{day(2020, 12, 31), 53, 5, 2021, 1},
		{day(2022, 1, 1), 1, 1, 2022, 1},
		{day(2022, 12, 31), 53, 5, 2022, 53},
	} {
		if got := WeekOfYear(c.d, 7, 1); got != c.woy {
			t.Errorf("WeekOfYear(%d) = %d, want %d", c.d, got, c.woy)
		}
		if got := WeekOfMonth(c.d, 7, 1); got != c.wom {
			t.Errorf("WeekOfMonth(%d) = %d, want %d", c.d, got, c.wom)
		}
		if y, w := WeekBasedYear(c.d, 7, 1); y != int64(c.wby) || w != c.w {
			t.Errorf("WeekBasedYear(%d) = %d-%d, want %d-%d", c.d, y, w, c.wby, c.w)
		}
	}
}
