package jsonpath

// Select applies the path to doc, a JSON text, and returns the JSON text of each value it
// selects, in document order: for connectors that pick parts of a JSON document (the Http
// source's content_field and json_field) with the same path rules as the JsonPath
// transform. doc is checked first; a definite path that selects nothing is an error.
func (p *Path) Select(doc string) ([]string, error) {
	if err := Check(doc); err != nil {
		return nil, err
	}
	spans, err := p.Eval(doc, nil, nil)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = doc[s.start:s.end]
	}
	return out, nil
}
