// Package mysqltype reads MySQL's column type strings as information_schema writes them,
// for the connectors that speak MySQL (Jdbc's MySQL dialect, MySQL-CDC).
package mysqltype

import "strings"

// Members reads the quoted members of an enum or set's list, as in 'a','b”c','d\'e' (the
// text between the parentheses of enum(...) or set(...)): a doubled quote or a backslash
// escapes the character after it.
func Members(list string) []string {
	var out []string
	s := list
	for len(s) > 0 {
		if s[0] != '\'' {
			s = s[1:]
			continue
		}
		var b strings.Builder
		k := 1
		for k < len(s) {
			if s[k] == '\'' {
				if k+1 < len(s) && s[k+1] == '\'' {
					b.WriteByte('\'')
					k += 2
					continue
				}
				break
			}
			if s[k] == '\\' && k+1 < len(s) {
				k++
			}
			b.WriteByte(s[k])
			k++
		}
		out = append(out, b.String())
		if k+1 > len(s) {
			break
		}
		s = s[k+1:]
	}
	return out
}

// TypeMembers is Members of the list in a column type such as enum('a','b') or
// set('x','y'); nil for a type without one.
func TypeMembers(colType string) []string {
	i, j := strings.IndexByte(colType, '('), strings.LastIndexByte(colType, ')')
	if i < 0 || j < i {
		return nil
	}
	return Members(colType[i+1 : j])
}
