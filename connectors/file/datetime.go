package file

import (
	"sort"
	"strings"

	"github.com/strait-dev/strait/internal/javatime"
)

// Date and time layouts as SeaTunnel's file connectors name them (DateUtils.Formatter,
// DateTimeUtils.Formatter, TimeUtils.Formatter). They are fixed enumerations: the options
// date_format, datetime_format and time_format accept exactly these patterns, which format
// as the java.time patterns they are.

var dateLayouts = compileLayouts("yyyy-MM-dd", "yyyy.MM.dd", "yyyy/MM/dd")

var dateTimeLayouts = compileLayouts(
	"yyyy-MM-dd HH:mm:ss",
	"yyyy-MM-dd HH:mm:ss.SSSSSS",
	"yyyy.MM.dd HH:mm:ss",
	"yyyy/MM/dd HH:mm:ss",
	"yyyyMMddHHmmss",
	"yyyy-MM-dd'T'HH:mm:ss",
	"yyyy-MM-dd'T'HH:mm:ss.SSS",
	"yyyy-MM-dd'T'HH:mm:ss.SSSSSS",
	"yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS",
)

var timeLayouts = compileLayouts("HH:mm:ss", "HH:mm:ss.SSS")

func compileLayouts(patterns ...string) map[string]*javatime.Pattern {
	m := make(map[string]*javatime.Pattern, len(patterns))
	for _, p := range patterns {
		m[p] = javatime.MustCompile(p)
	}
	return m
}

func layoutNames[T any](m map[string]T) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
