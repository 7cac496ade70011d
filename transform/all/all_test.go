package all_test

import (
	"testing"

	"github.com/strait-dev/strait/connector"
	_ "github.com/strait-dev/strait/transform/all"
)

func TestRegistered(t *testing.T) {
	for _, name := range []string{"Copy", "FieldMapper", "Filter", "FilterRowKind", "JsonPath", "Replace", "RowKindExtractor", "Split", "jsonpath", "FILTER"} {
		if _, _, ok := connector.LookupTransform(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
}
