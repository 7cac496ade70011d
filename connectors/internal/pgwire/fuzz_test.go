package pgwire

import (
	"strings"
	"testing"
)

// FuzzParseURL: any text is a config or an error quoting it, never a panic; a parsed url
// names a host, a port and a database.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"jdbc:postgresql://postgresql:5432/test?loggerLevel=OFF",
		"jdbc:postgresql://h/db?currentSchema=s&user=u&password=p&ssl=true",
		"jdbc:postgresql:db",
		"jdbc:postgresql://[::1]:5433/d",
		"jdbc:postgresql://a,b/d",
		"jdbc:mysql://h/d",
		"jdbc:postgresql://h:0/d",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseURL(s)
		if err != nil {
			if !strings.Contains(err.Error(), `"`) {
				t.Fatalf("error without the url quoted: %v", err)
			}
			return
		}
		if c.Database == "" || c.Port == 0 || c.Host == "" {
			t.Fatalf("%q parsed to %+v", s, c)
		}
		_, _ = c.PgxConfig() // may refuse what pgx refuses, must not panic
	})
}
