// Package all registers every Strait transform; import it for its side effects.
package all

import (
	_ "github.com/strait-dev/strait/transform/copy"
	_ "github.com/strait-dev/strait/transform/fieldmapper"
	_ "github.com/strait-dev/strait/transform/filter"
	_ "github.com/strait-dev/strait/transform/filterrowkind"
	_ "github.com/strait-dev/strait/transform/jsonpath"
	_ "github.com/strait-dev/strait/transform/replace"
	_ "github.com/strait-dev/strait/transform/rowkindextractor"
	_ "github.com/strait-dev/strait/transform/split"
	_ "github.com/strait-dev/strait/transform/sql"
)
