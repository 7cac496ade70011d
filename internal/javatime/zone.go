package javatime

import (
	"errors"
	"fmt"
	"strings"
	"time"
	// ParseZone takes region ids (Asia/Shanghai); carry the zone database so that they
	// resolve where the system has none (minimal containers)
	_ "time/tzdata"
)

// ParseZone reads a zone id as ZoneId.of does: a region (Asia/Shanghai), Z, UTC, GMT, UT, an
// offset (+08:00, -5, +0530) or a prefixed offset (UTC+8, GMT-03:30).
func ParseZone(id string) (*time.Location, error) {
	switch id {
	case "Z", "UTC", "GMT", "UT", "UTC0", "GMT0":
		return time.UTC, nil
	}
	for _, prefix := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(id, prefix) && len(id) > len(prefix) && (id[len(prefix)] == '+' || id[len(prefix)] == '-') {
			return fixedZone(id, id[len(prefix):])
		}
	}
	if id != "" && (id[0] == '+' || id[0] == '-') {
		return fixedZone(id, id)
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

func fixedZone(id, offset string) (*time.Location, error) {
	off, err := parseOffset(offset)
	if err != nil {
		return nil, fmt.Errorf("invalid time zone %q", id)
	}
	return time.FixedZone(id, off), nil
}

var errOffset = errors.New("bad offset")

// parseOffset reads +h, +hh, +hh:mm, +hhmm, +hh:mm:ss or +hhmmss into seconds east of UTC,
// at most 18 hours either way.
func parseOffset(s string) (int, error) {
	if len(s) < 2 {
		return 0, errOffset
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	h, m, sec, err := offsetParts(s[1:])
	if err != nil {
		return 0, err
	}
	if h > 18 || m > 59 || sec > 59 || h == 18 && (m > 0 || sec > 0) {
		return 0, errors.New("offset out of range")
	}
	return sign * (h*3600 + m*60 + sec), nil
}

// offsetParts splits an offset without its sign into hours, minutes and seconds.
func offsetParts(s string) (h, m, sec int, err error) {
	var ok bool
	switch {
	case strings.Contains(s, ":"):
		parts := strings.Split(s, ":")
		if len(parts) > 3 || len(parts[0]) != 2 {
			return 0, 0, 0, errOffset
		}
		var vals [3]int
		for i, p := range parts {
			if len(p) != 2 {
				return 0, 0, 0, errOffset
			}
			if vals[i], ok = twoDigits(p); !ok {
				return 0, 0, 0, errOffset
			}
		}
		return vals[0], vals[1], vals[2], nil
	case len(s) <= 2:
		if h, ok = twoDigits(s); !ok {
			return 0, 0, 0, errOffset
		}
		return h, 0, 0, nil
	case len(s) == 4 || len(s) == 6:
		h, ok1 := twoDigits(s[:2])
		m, ok2 := twoDigits(s[2:4])
		ok3 := true
		if len(s) == 6 {
			sec, ok3 = twoDigits(s[4:])
		}
		if !ok1 || !ok2 || !ok3 {
			return 0, 0, 0, errOffset
		}
		return h, m, sec, nil
	}
	return 0, 0, 0, errOffset
}

// twoDigits reads one or two decimal digits.
func twoDigits(t string) (int, bool) {
	if len(t) == 0 || len(t) > 2 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
		n = n*10 + int(t[i]-'0')
	}
	return n, true
}
