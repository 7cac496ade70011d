package file

import "strings"

// substitute appends expr to dst with every ${name} replaced by lookup(name), as SeaTunnel's
// VariablesSubstitute (a commons-text StrSubstitutor) does: a name lookup does not know stays
// as written, and $${name} escapes to a literal ${name}.
func substitute(dst []byte, expr string, lookup func(name string) (string, bool)) []byte {
	for {
		i := strings.Index(expr, "${")
		if i < 0 {
			return append(dst, expr...)
		}
		if i > 0 && expr[i-1] == '$' {
			// $${x} is a literal ${x}
			dst = append(dst, expr[:i-1]...)
			end := strings.IndexByte(expr[i:], '}')
			if end < 0 {
				return append(dst, expr[i:]...)
			}
			dst = append(dst, expr[i:i+end+1]...)
			expr = expr[i+end+1:]
			continue
		}
		dst = append(dst, expr[:i]...)
		end := strings.IndexByte(expr[i+2:], '}')
		if end < 0 {
			return append(dst, expr[i:]...)
		}
		name := expr[i+2 : i+2+end]
		if v, ok := lookup(name); ok {
			dst = append(dst, v...)
		} else {
			dst = append(dst, expr[i:i+2+end+1]...)
		}
		expr = expr[i+2+end+1:]
	}
}
