package sql

import (
	"fmt"
	"strings"
	"time"

	"github.com/strait-dev/strait/internal/civil"
	"github.com/strait-dev/strait/internal/javatime"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

func registerDateTimeFuncs() {
	now := func(k types.Kind) *fnDef {
		return &fnDef{min: 0, max: 0, volatile: true, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
			return intExpr(k, func(fr *frame) (int64, bool) {
				t := fr.clock()
				switch k {
				case types.Date:
					return row.DateOf(t).I, true
				case types.Time:
					return row.TimeOf(t).I, true
				}
				return row.TimestampOf(t).I, true
			}), nil
		}}
	}
	register(now(types.Date), "CURRENT_DATE")
	register(now(types.Time), "CURRENT_TIME")
	register(now(types.Timestamp), "CURRENT_TIMESTAMP", "NOW")
	register(&fnDef{min: 2, max: 3, build: buildDateAdd}, "DATEADD", "TIMESTAMPADD")
	register(&fnDef{min: 2, max: 3, build: buildDateDiff}, "DATEDIFF")
	register(&fnDef{min: 1, max: 2, build: buildDateTrunc}, "DATE_TRUNC")
	dateField := func(f func(days int64) int64) *fnDef {
		return &fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
			days, err := c.argDate(n, args, 0)
			if err != nil {
				return nil, err
			}
			return intExpr(types.Int, func(fr *frame) (int64, bool) {
				d, ok := days(fr)
				if !ok {
					return 0, false
				}
				return f(d), true
			}), nil
		}}
	}
	register(dateField(func(d int64) int64 { _, _, day := civil.Date(d); return int64(day) }), "DAY_OF_MONTH")
	register(dateField(func(d int64) int64 { return int64(civil.DayOfWeek(d)) }), "DAY_OF_WEEK")
	register(dateField(func(d int64) int64 { return int64(civil.DayOfYear(d)) }), "DAY_OF_YEAR")
	register(dateField(func(d int64) int64 { _, m, _ := civil.Date(d); return int64(m) }), "MONTH")
	register(dateField(func(d int64) int64 { _, m, _ := civil.Date(d); return int64((m-1)/3 + 1) }), "QUARTER")
	register(dateField(func(d int64) int64 { y, _, _ := civil.Date(d); return y }), "YEAR")
	register(dateField(func(d int64) int64 { return int64(civil.WeekOfYear(d, 1, 4) + 1) }), "WEEK")
	dateName := func(f func(days int64) string) *fnDef {
		return &fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
			days, err := c.argDate(n, args, 0)
			if err != nil {
				return nil, err
			}
			return strExpr(func(fr *frame) (string, bool) {
				d, ok := days(fr)
				if !ok {
					return "", false
				}
				return f(d), true
			}), nil
		}}
	}
	register(dateName(func(d int64) string { return javatime.DayName(civil.DayOfWeek(d)) }), "DAYNAME")
	register(dateName(func(d int64) string { _, m, _ := civil.Date(d); return javatime.MonthName(m) }), "MONTHNAME")
	timeField := func(unit, mod int64) *fnDef {
		return &fnDef{min: 1, max: 1, build: func(c *compiler, n *Call, args []*expr) (*expr, *Error) {
			nanos, err := c.argTimeOfDay(n, args, 0)
			if err != nil {
				return nil, err
			}
			return intExpr(types.Int, func(fr *frame) (int64, bool) {
				t, ok := nanos(fr)
				if !ok {
					return 0, false
				}
				return t / unit % mod, true
			}), nil
		}}
	}
	register(timeField(civil.NanosPerHour, 24), "HOUR")
	register(timeField(civil.NanosPerMinute, 60), "MINUTE")
	register(timeField(civil.NanosPerSecond, 60), "SECOND")
	register(&fnDef{min: 2, max: 2, build: buildFormat}, "FORMATDATETIME")
	register(&fnDef{min: 2, max: 2, build: buildParse}, "PARSEDATETIME", "TO_DATE")
	register(&fnDef{min: 2, max: 2, build: buildIsDate}, "IS_DATE")
	register(&fnDef{min: 2, max: 3, build: buildFromUnixtime}, "FROM_UNIXTIME")
}

// argDate reads a date or timestamp argument as days since the epoch.
func (c *compiler) argDate(n *Call, args []*expr, i int) (intFn, *Error) {
	a := args[i]
	switch a.kind() {
	case types.Date:
		return a.ig, nil
	case types.Timestamp:
		ig := a.ig
		return func(fr *frame) (int64, bool) {
			ts, ok := ig(fr)
			return civil.FloorDiv(ts, civil.NanosPerDay), ok
		}, nil
	case types.Null:
		return func(*frame) (int64, bool) { return 0, false }, nil
	}
	return nil, c.errf(n.Args[i], "%s needs a date or a timestamp, %s is %s", fname(n), n.Args[i].String(), a.t)
}

// argTimeOfDay reads a time or timestamp argument as nanoseconds of the day.
func (c *compiler) argTimeOfDay(n *Call, args []*expr, i int) (intFn, *Error) {
	a := args[i]
	switch a.kind() {
	case types.Time:
		return a.ig, nil
	case types.Timestamp:
		ig := a.ig
		return func(fr *frame) (int64, bool) {
			ts, ok := ig(fr)
			return civil.FloorMod(ts, civil.NanosPerDay), ok
		}, nil
	case types.Null:
		return func(*frame) (int64, bool) { return 0, false }, nil
	}
	return nil, c.errf(n.Args[i], "%s needs a time or a timestamp, %s is %s", fname(n), n.Args[i].String(), a.t)
}

var dateAddUnits = map[string]bool{"YEAR": true, "MONTH": true, "WEEK": true, "DAY": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true}

// unitArg reads the unit argument (a string such as 'DAY'); a constant is checked now.
func (c *compiler) unitArg(n *Call, args []*expr, i int, def string, valid map[string]bool) (func(*frame) (string, bool), *Error) {
	if i >= len(args) {
		return func(*frame) (string, bool) { return def, true }, nil
	}
	if s, null, ok := constStr(args, i); ok {
		u := strings.ToUpper(s)
		if null {
			u = def
		}
		if !valid[u] {
			return nil, c.errf(n.Args[i], "%s does not know the unit %s", fname(n), quoteString(s))
		}
		return func(*frame) (string, bool) { return u, true }, nil
	}
	ar := c.args(n, args)
	sg := ar.str(i)
	if ar.err != nil {
		return nil, ar.err
	}
	name := fname(n)
	return func(fr *frame) (string, bool) {
		s, ok := sg(fr)
		if !ok {
			return def, true
		}
		u := strings.ToUpper(s)
		if !valid[u] {
			fr.fail(fmt.Errorf("%s does not know the unit %s", name, quoteString(s)))
			return "", false
		}
		return u, true
	}, nil
}

// buildDateAdd: DATEADD(value, n[, unit]) with the type of value. A unit that does not apply
// to the value (HOUR on a date, DAY on a time) leaves it unchanged, as in SeaTunnel.
func buildDateAdd(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	x := args[0]
	k := x.kind()
	if !isTemporal(k) && k != types.Null {
		return nil, c.errf(n.Args[0], "%s needs a date, time or timestamp, %s is %s", fname(n), n.Args[0].String(), x.t)
	}
	ar := c.args(n, args)
	count := ar.int(1)
	if ar.err != nil {
		return nil, ar.err
	}
	unit, err := c.unitArg(n, args, 2, "DAY", dateAddUnits)
	if err != nil {
		return nil, err
	}
	if k == types.Null {
		return constExpr(x.t, row.Value{}, n), nil
	}
	ig := x.ig
	return intExpr(k, func(fr *frame) (int64, bool) {
		v, cnt, ok := both(fr, ig, count)
		if !ok {
			return 0, false
		}
		u, ok := unit(fr)
		if !ok {
			return 0, false
		}
		return dateAdd(k, v, cnt, u), true
	}), nil
}

func dateAdd(k types.Kind, v, n int64, unit string) int64 {
	switch k {
	case types.Date:
		switch unit {
		case "YEAR":
			return civil.PlusMonths(v, n*12)
		case "MONTH":
			return civil.PlusMonths(v, n)
		case "WEEK":
			return v + 7*n
		case "DAY":
			return v + n
		}
	case types.Time:
		var d int64
		switch unit {
		case "HOUR":
			d = n % 24 * civil.NanosPerHour
		case "MINUTE":
			d = n % (24 * 60) * civil.NanosPerMinute
		case "SECOND":
			d = n % 86400 * civil.NanosPerSecond
		case "MILLISECOND":
			d = n % 86_400_000 * 1_000_000
		default:
			return v
		}
		return civil.FloorMod(v+d, civil.NanosPerDay)
	case types.Timestamp:
		days, nanos := civil.SplitTimestamp(v)
		switch unit {
		case "YEAR":
			return civil.PlusMonths(days, n*12)*civil.NanosPerDay + nanos
		case "MONTH":
			return civil.PlusMonths(days, n)*civil.NanosPerDay + nanos
		case "WEEK":
			return v + 7*n*civil.NanosPerDay
		case "DAY":
			return v + n*civil.NanosPerDay
		case "HOUR":
			return v + n*civil.NanosPerHour
		case "MINUTE":
			return v + n*civil.NanosPerMinute
		case "SECOND":
			return v + n*civil.NanosPerSecond
		case "MILLISECOND":
			return v + n*1_000_000
		}
	}
	return v
}

var dateDiffUnits = map[string]bool{"YEAR": true, "MONTH": true, "DAY": true, "WEEK": true,
	"DAYTIME": true, "HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true}

// buildDateDiff: DATEDIFF(a, b[, unit]) as SeaTunnel computes it: YEAR and MONTH are the
// fields of the period from a to b (MONTH is 0..11), DAY counts days between the dates, the
// other units divide the exact duration (truncating).
func buildDateDiff(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	a, b := args[0], args[1]
	for i, x := range []*expr{a, b} {
		if !isTemporal(x.kind()) && x.kind() != types.Null {
			return nil, c.errf(n.Args[i], "DATEDIFF needs dates, times or timestamps, %s is %s", n.Args[i].String(), x.t)
		}
	}
	unit, err := c.unitArg(n, args, 2, "DAY", dateDiffUnits)
	if err != nil {
		return nil, err
	}
	ak, bk := a.kind(), b.kind()
	if a.kind() == types.Null || b.kind() == types.Null {
		return constExpr(types.Of(types.BigInt), row.Value{}, n), nil
	}
	// a constant duration unit on values that have no duration is an error now
	if u, null, ok := constStr(args, 2); ok || len(args) == 2 {
		u = strings.ToUpper(u)
		if len(args) == 2 || null {
			u = "DAY"
		}
		switch u {
		case "YEAR", "MONTH", "DAY":
		default:
			if ak == types.Date || bk == types.Date || ak == types.Timestamp && bk == types.Time {
				return nil, c.errf(n, "DATEDIFF by %s needs two timestamps or two times, found %s and %s", u, a.t, b.t)
			}
		}
	}
	ag, bg := a.ig, b.ig
	return intExpr(types.BigInt, func(fr *frame) (int64, bool) {
		x, y, ok := both(fr, ag, bg)
		if !ok {
			return 0, false
		}
		u, ok := unit(fr)
		if !ok {
			return 0, false
		}
		r, ok, err := dateDiff(ak, x, bk, y, u)
		if err != nil {
			fr.fail(err)
			return 0, false
		}
		return r, ok
	}), nil
}

func dateDiff(ak types.Kind, a int64, bk types.Kind, b int64, unit string) (int64, bool, error) {
	switch unit {
	case "YEAR", "MONTH", "DAY":
		da, oka := dateOf(ak, a)
		db, okb := dateOf(bk, b)
		if !oka || !okb {
			return 0, false, nil
		}
		if unit == "DAY" {
			return db - da, true, nil
		}
		y, m, _ := civil.PeriodBetween(da, db)
		if unit == "YEAR" {
			return y, true, nil
		}
		return m, true, nil
	}
	// durations need values of the same kind (a time may end at a timestamp's time of day)
	var d int64
	switch {
	case ak == types.Timestamp && bk == types.Timestamp, ak == types.Time && bk == types.Time:
		d = b - a
	case ak == types.Time && bk == types.Timestamp:
		d = civil.FloorMod(b, civil.NanosPerDay) - a
	default:
		return 0, false, fmt.Errorf("DATEDIFF by %s needs two timestamps or two times", unit)
	}
	secs := civil.FloorDiv(d, civil.NanosPerSecond)
	frac := d - secs*civil.NanosPerSecond
	switch unit {
	case "WEEK":
		return secs / 86400 / 7, true, nil
	case "DAYTIME":
		return secs / 86400, true, nil
	case "HOUR":
		return secs / 3600, true, nil
	case "MINUTE":
		return secs / 60, true, nil
	case "SECOND":
		return (secs*1000 + frac/1_000_000) / 1000, true, nil
	}
	return secs*1000 + frac/1_000_000, true, nil
}

// dateOf returns the date part of a date or timestamp.
func dateOf(k types.Kind, v int64) (int64, bool) {
	switch k {
	case types.Date:
		return v, true
	case types.Timestamp:
		return civil.FloorDiv(v, civil.NanosPerDay), true
	}
	return 0, false
}

var truncUnits = map[string]bool{"YEAR": true, "MONTH": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true}

// buildDateTrunc: DATE_TRUNC(value, unit) is a timestamp, the fraction of a second always
// dropped.
func buildDateTrunc(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	x := args[0]
	k := x.kind()
	if k != types.Timestamp && k != types.Date && k != types.Null {
		return nil, c.errf(n.Args[0], "DATE_TRUNC needs a timestamp, %s is %s", n.Args[0].String(), x.t)
	}
	unit, err := c.unitArg(n, args, 1, "DAY", truncUnits)
	if err != nil {
		return nil, err
	}
	if k == types.Null {
		return constExpr(types.Of(types.Timestamp), row.Value{}, n), nil
	}
	ig := x.ig
	return intExpr(types.Timestamp, func(fr *frame) (int64, bool) {
		v, ok := ig(fr)
		if !ok {
			return 0, false
		}
		if k == types.Date {
			v *= civil.NanosPerDay
		}
		u, ok := unit(fr)
		if !ok {
			return 0, false
		}
		days, nanos := civil.SplitTimestamp(v)
		y, m, _ := civil.Date(days)
		switch u {
		case "YEAR":
			return civil.EpochDay(y, 1, 1) * civil.NanosPerDay, true
		case "MONTH":
			return civil.EpochDay(y, m, 1) * civil.NanosPerDay, true
		case "DAY":
			return days * civil.NanosPerDay, true
		case "HOUR":
			return days*civil.NanosPerDay + nanos/civil.NanosPerHour*civil.NanosPerHour, true
		case "MINUTE":
			return days*civil.NanosPerDay + nanos/civil.NanosPerMinute*civil.NanosPerMinute, true
		}
		return days*civil.NanosPerDay + nanos/civil.NanosPerSecond*civil.NanosPerSecond, true
	}), nil
}

// extractFields are the fields of EXTRACT(field FROM value).
var extractFields = map[string]bool{"YEAR": true, "MONTH": true, "DAY": true, "HOUR": true,
	"MINUTE": true, "SECOND": true, "MILLISECOND": true, "DAYOFWEEK": true, "DAYOFYEAR": true}

// extract is an int; a field the value does not have (HOUR of a date) is null.
func (c *compiler) extract(n *Extract) (*expr, *Error) {
	x, err := c.compile(n.X)
	if err != nil {
		return nil, err
	}
	if !extractFields[n.Field] {
		return nil, c.errf(n, "EXTRACT does not know the field %s; use YEAR, MONTH, DAY, HOUR, MINUTE, SECOND, MILLISECOND, DAYOFWEEK or DAYOFYEAR", n.Field)
	}
	k := x.kind()
	if !isTemporal(k) && k != types.Null {
		return nil, c.errf(n.X, "EXTRACT needs a date, time or timestamp, %s is %s", n.X.String(), x.t)
	}
	hasDate := k == types.Date || k == types.Timestamp
	hasTime := k == types.Time || k == types.Timestamp
	field := n.Field
	if k == types.Null || !hasDate && (field == "YEAR" || field == "MONTH" || field == "DAY" || field == "DAYOFWEEK" || field == "DAYOFYEAR") ||
		!hasTime && (field == "HOUR" || field == "MINUTE" || field == "SECOND" || field == "MILLISECOND") {
		return constExpr(types.Of(types.Int), row.Value{}, n), nil
	}
	ig := x.ig
	e := intExpr(types.Int, func(fr *frame) (int64, bool) {
		v, ok := ig(fr)
		if !ok {
			return 0, false
		}
		var days, nanos int64
		switch k {
		case types.Date:
			days = v
		case types.Time:
			nanos = v
		default:
			days, nanos = civil.SplitTimestamp(v)
		}
		switch field {
		case "YEAR":
			y, _, _ := civil.Date(days)
			return y, true
		case "MONTH":
			_, m, _ := civil.Date(days)
			return int64(m), true
		case "DAY":
			_, _, d := civil.Date(days)
			return int64(d), true
		case "DAYOFWEEK":
			return int64(civil.DayOfWeek(days)), true
		case "DAYOFYEAR":
			return int64(civil.DayOfYear(days)), true
		case "HOUR":
			return nanos / civil.NanosPerHour, true
		case "MINUTE":
			return nanos / civil.NanosPerMinute % 60, true
		case "SECOND":
			return nanos / civil.NanosPerSecond % 60, true
		}
		return nanos % civil.NanosPerSecond / 1_000_000, true
	})
	e.node = n
	e.volatile = x.volatile
	return c.fold(e, x)
}

// patternArg compiles a DateTimeFormatter pattern once when it is a constant, or per distinct
// value.
type patternArg struct {
	fixed *javatime.Pattern
	sg    strFn
	last  *javatime.Pattern
	src   string
}

func (c *compiler) patternArg(n *Call, args []*expr, i int) (*patternArg, *Error) {
	if s, null, ok := constStr(args, i); ok && !null {
		p, err := javatime.Compile(s)
		if err != nil {
			return nil, c.errf(n.Args[i], "%v", err)
		}
		return &patternArg{fixed: p}, nil
	}
	ar := c.args(n, args)
	sg := ar.str(i)
	if ar.err != nil {
		return nil, ar.err
	}
	return &patternArg{sg: sg}, nil
}

func (pa *patternArg) get(fr *frame) (*javatime.Pattern, bool) {
	if pa.fixed != nil {
		return pa.fixed, true
	}
	s, ok := pa.sg(fr)
	if !ok {
		return nil, false
	}
	if pa.last == nil || s != pa.src {
		p, err := javatime.Compile(s)
		if err != nil {
			fr.fail(err)
			return nil, false
		}
		pa.last, pa.src = p, s
	}
	return pa.last, true
}

// buildFormat: FORMATDATETIME(value, pattern) with java.time's pattern letters.
func buildFormat(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	x := args[0]
	k := x.kind()
	if !isTemporal(k) && k != types.Null {
		return nil, c.errf(n.Args[0], "%s needs a date, time or timestamp, %s is %s", fname(n), n.Args[0].String(), x.t)
	}
	pa, err := c.patternArg(n, args, 1)
	if err != nil {
		return nil, err
	}
	hasDate := k == types.Date || k == types.Timestamp
	hasTime := k == types.Time || k == types.Timestamp
	if pa.fixed != nil && k != types.Null {
		if cerr := pa.fixed.Check(javatime.Value{HasDate: hasDate, HasTime: hasTime}); cerr != nil {
			return nil, c.errf(n.Args[1], "%v", cerr)
		}
	}
	if k == types.Null {
		return constExpr(types.Of(types.String), row.Value{}, n), nil
	}
	ig := x.ig
	return strExpr(func(fr *frame) (string, bool) {
		v, p, ok := both(fr, ig, pa.get)
		if !ok {
			return "", false
		}
		var dv javatime.Value
		switch k {
		case types.Date:
			dv = javatime.Date(v)
		case types.Time:
			dv = javatime.Time(v)
		default:
			dv = javatime.DateTime(v)
		}
		var tmp [64]byte
		out, err := p.Format(tmp[:0], dv)
		if err != nil {
			fr.fail(err)
			return "", false
		}
		return string(out), true
	}), nil
}

// parseResultType is SeaTunnel's rule for the type PARSEDATETIME returns: a pattern with
// "yy" and "mm" gives a timestamp, "yy" alone a date, "mm" alone a time.
func parseResultType(pattern string) (types.Kind, bool) {
	y, m := strings.Contains(pattern, "yy"), strings.Contains(pattern, "mm")
	switch {
	case y && m:
		return types.Timestamp, true
	case y:
		return types.Date, true
	case m:
		return types.Time, true
	}
	return types.Null, false
}

// parseAs parses s with p into a value of kind k.
func parseAs(p *javatime.Pattern, k types.Kind, s string) (int64, error) {
	r, err := p.Parse(s)
	if err != nil {
		return 0, err
	}
	switch k {
	case types.Date:
		return r.Date()
	case types.Time:
		return r.TimeOfDay()
	}
	return r.DateTime()
}

// buildParse: PARSEDATETIME(text, pattern); the pattern must be a string literal because it
// decides the result type.
func buildParse(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s := ar.str(0)
	if ar.err != nil {
		return nil, ar.err
	}
	pat, null, ok := constStr(args, 1)
	if !ok || null || args[1].kind() != types.String {
		return nil, c.errf(n.Args[1], "%s needs its pattern as a string literal: the pattern decides the result type", fname(n))
	}
	k, ok := parseResultType(pat)
	if !ok {
		return nil, c.errf(n.Args[1], "%s: the pattern %s has neither a year (yy) nor minutes (mm)", fname(n), quoteString(pat))
	}
	p, perr := javatime.Compile(pat)
	if perr != nil {
		return nil, c.errf(n.Args[1], "%v", perr)
	}
	if p.HasZone() {
		return nil, c.errf(n.Args[1], "%v", javatime.ErrZoneField)
	}
	return intExpr(k, func(fr *frame) (int64, bool) {
		v, ok := s(fr)
		if !ok {
			return 0, false
		}
		r, err := parseAs(p, k, v)
		if err != nil {
			fr.fail(err)
			return 0, false
		}
		return r, true
	}), nil
}

// buildIsDate: IS_DATE(text, pattern) is true when PARSEDATETIME would succeed; as in
// SeaTunnel, a null text is a date.
func buildIsDate(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	ar := c.args(n, args)
	s := ar.str(0)
	if ar.err != nil {
		return nil, ar.err
	}
	pa, perr := c.patternArg(n, args, 1)
	var patSrc strFn
	if perr != nil {
		// an invalid constant pattern never parses
		return boolExpr(func(fr *frame) (int64, bool) {
			if _, ok := s(fr); !ok {
				return 1, true
			}
			return 0, true
		}), nil
	}
	if pa.fixed == nil {
		patSrc = pa.sg
	}
	return boolExpr(func(fr *frame) (int64, bool) {
		v, ok := s(fr)
		if !ok {
			return 1, true
		}
		var src string
		if pa.fixed != nil {
			src = pa.fixed.String()
		} else if src, ok = patSrc(fr); !ok {
			return 0, true
		}
		k, ok := parseResultType(src)
		if !ok {
			return 0, true
		}
		p := pa.fixed
		if p == nil {
			var err error
			if p, err = javatime.Compile(src); err != nil {
				return 0, true
			}
		}
		if _, err := parseAs(p, k, v); err != nil {
			return 0, true
		}
		return 1, true
	}), nil
}

// buildFromUnixtime: FROM_UNIXTIME(seconds, pattern[, zone]) formats an instant in a zone
// (the local one by default).
func buildFromUnixtime(c *compiler, n *Call, args []*expr) (*expr, *Error) {
	if k := args[0].kind(); !k.IsInteger() && k != types.Null {
		return nil, c.errf(n.Args[0], "FROM_UNIXTIME needs a whole number of seconds, %s is %s", n.Args[0].String(), args[0].t)
	}
	secs := args[0].ig
	if args[0].kind() == types.Null {
		return constExpr(types.Of(types.String), row.Value{}, n), nil
	}
	pa, err := c.patternArg(n, args, 1)
	if err != nil {
		return nil, err
	}
	if pa.fixed != nil {
		if cerr := pa.fixed.Check(javatime.Value{HasDate: true, HasTime: true}); cerr != nil {
			return nil, c.errf(n.Args[1], "%v", cerr)
		}
	}
	var zone func(*frame) (*time.Location, bool)
	switch s, null, ok := constStr(args, 2); {
	case len(args) < 3:
		zone = func(*frame) (*time.Location, bool) { return localZone, true }
	case ok && !null:
		loc, zerr := javatime.ParseZone(s)
		if zerr != nil {
			return nil, c.errf(n.Args[2], "%v", zerr)
		}
		zone = func(*frame) (*time.Location, bool) { return loc, true }
	default:
		ar := c.args(n, args)
		zs := ar.str(2)
		if ar.err != nil {
			return nil, ar.err
		}
		var last *time.Location
		var lastID string
		zone = func(fr *frame) (*time.Location, bool) {
			id, ok := zs(fr)
			if !ok {
				return nil, false
			}
			if last == nil || id != lastID {
				loc, err := javatime.ParseZone(id)
				if err != nil {
					fr.fail(err)
					return nil, false
				}
				last, lastID = loc, id
			}
			return last, true
		}
	}
	return strExpr(func(fr *frame) (string, bool) {
		v, p, ok := both(fr, secs, pa.get)
		if !ok {
			return "", false
		}
		loc, ok := zone(fr)
		if !ok {
			return "", false
		}
		ts := row.TimestampOf(time.Unix(v, 0).In(loc)).I
		var tmp [64]byte
		out, err := p.Format(tmp[:0], javatime.DateTime(ts))
		if err != nil {
			fr.fail(err)
			return "", false
		}
		return string(out), true
	}), nil
}
