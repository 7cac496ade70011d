// Package all links every connector into the binary: import it for its side effects.
package all

import (
	_ "github.com/strait-dev/strait/connectors/assert"
	_ "github.com/strait-dev/strait/connectors/console"
	_ "github.com/strait-dev/strait/connectors/elasticsearch"
	_ "github.com/strait-dev/strait/connectors/fake"
	_ "github.com/strait-dev/strait/connectors/http"
	_ "github.com/strait-dev/strait/connectors/iceberg"
	_ "github.com/strait-dev/strait/connectors/jdbc"
	_ "github.com/strait-dev/strait/connectors/kafka"
	_ "github.com/strait-dev/strait/connectors/localfile"
	_ "github.com/strait-dev/strait/connectors/mysqlcdc"
	_ "github.com/strait-dev/strait/connectors/postgrescdc"
	_ "github.com/strait-dev/strait/connectors/redis"
	_ "github.com/strait-dev/strait/connectors/s3file"
)
