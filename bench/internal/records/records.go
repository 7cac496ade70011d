// Package records holds the record shapes the benchmarks' bare loops decode and encode, so
// that every anchor of a comparison does the same work.
package records

// Line is an input record: a JSON object of about 100 bytes.
type Line struct {
	ID     int64   `json:"id"`
	Name   string  `json:"name"`
	City   string  `json:"city"`
	Score  float64 `json:"score"`
	Active bool    `json:"active"`
	Note   string  `json:"note"`
}

// Mapped is a record after the field mapping of the Benthos comparison, which every side
// does (Strait's FieldMapper, a Bloblang mapping, Map): id kept, name renamed full_name,
// city and score kept, active and note dropped.
type Mapped struct {
	ID       int64   `json:"id"`
	FullName string  `json:"full_name"`
	City     string  `json:"city"`
	Score    float64 `json:"score"`
}

// Map is the mapping.
func Map(in *Line) Mapped {
	return Mapped{ID: in.ID, FullName: in.Name, City: in.City, Score: in.Score}
}

// FieldMapper is the mapping as Strait's FieldMapper transform block, from table t to m.
const FieldMapper = `FieldMapper { plugin_input = "t", plugin_output = "m", field_mapper = { id = id, name = full_name, city = city, score = score } }`

// Bloblang is the mapping as a Benthos mapping processor's Bloblang.
const Bloblang = `root.id = this.id
root.full_name = this.name
root.city = this.city
root.score = this.score`
