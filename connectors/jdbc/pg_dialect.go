package jdbc

import (
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/types"
)

// pgDialect is PostgreSQL's SQL: double-quoted names, INSERT ... ON CONFLICT, and the
// column types of SeaTunnel's PostgresTypeConverter.
type pgDialect struct{}

func (pgDialect) name() string { return dialectPostgres }

func (pgDialect) quoteIdent(s string) string { return pgwire.QuoteIdent(s) }

func (pgDialect) quoteTable(t pgwire.TableName) string { return t.Quoted() }

// upsertClause updates every column but the key's from EXCLUDED; a table of key columns
// only does nothing on a conflict.
func (pgDialect) upsertClause(cols []string, pk []int) string {
	isPK := map[int]bool{}
	var pkCols []string
	for _, i := range pk {
		isPK[i] = true
		pkCols = append(pkCols, cols[i])
	}
	var excluded []string
	for i := range cols {
		if !isPK[i] {
			excluded = append(excluded, fmt.Sprintf("%s = EXCLUDED.%s", cols[i], cols[i]))
		}
	}
	if len(excluded) == 0 {
		return fmt.Sprintf("ON CONFLICT (%s) DO NOTHING", strings.Join(pkCols, ", "))
	}
	return fmt.Sprintf("ON CONFLICT (%s) DO UPDATE SET %s", strings.Join(pkCols, ", "), strings.Join(excluded, ", "))
}

func (pgDialect) columnType(col catalog.Column) (string, error) { return ddlType(col.Type, col.Length) }

// ddlType is the PostgreSQL column type a SeaTunnel type is created as, as SeaTunnel's
// PostgresTypeConverter does it; maps and rows become jsonb.
func ddlType(t types.DataType, length int64) (string, error) {
	switch t.Kind {
	case types.Boolean:
		return "boolean", nil
	case types.TinyInt, types.SmallInt:
		return "smallint", nil
	case types.Int:
		return "integer", nil
	case types.BigInt:
		return "bigint", nil
	case types.Float:
		return "real", nil
	case types.Double:
		return "double precision", nil
	case types.Decimal:
		p, s := t.Precision, t.Scale
		if p <= 0 {
			p, s = 38, 18
		}
		if p > 1000 {
			p = 1000
		}
		return fmt.Sprintf("numeric(%d,%d)", p, s), nil
	case types.String:
		if length > 0 && length <= 10485760 {
			return fmt.Sprintf("varchar(%d)", length), nil
		}
		return "text", nil
	case types.Bytes:
		return "bytea", nil
	case types.Date:
		return "date", nil
	case types.Time:
		return "time", nil
	case types.Timestamp:
		return "timestamp", nil
	case types.Array:
		if t.Elem == nil {
			return "", fmt.Errorf("array without an element type")
		}
		switch t.Elem.Kind {
		case types.Array, types.Map, types.Row, types.Null:
			return "", fmt.Errorf("type %s has no PostgreSQL array type", t)
		}
		e, err := ddlType(*t.Elem, 0)
		if err != nil {
			return "", err
		}
		return e + "[]", nil
	case types.Map, types.Row:
		return "jsonb", nil
	}
	return "", fmt.Errorf("type %s has no PostgreSQL column type", t)
}
