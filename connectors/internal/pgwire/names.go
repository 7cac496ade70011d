package pgwire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// QuoteIdent quotes a PostgreSQL identifier.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// TableName is a schema-qualified table.
type TableName struct {
	Schema string // "" leaves it to search_path
	Table  string
}

// ParseTableName reads "table", "schema.table" or "database.schema.table" (the database
// part must be database, unless database is "").
func ParseTableName(s, database string) (TableName, error) {
	parts := strings.Split(strings.TrimSpace(s), ".")
	for _, p := range parts {
		if p == "" {
			return TableName{}, fmt.Errorf("bad table name %q", s)
		}
	}
	switch len(parts) {
	case 1:
		return TableName{Table: parts[0]}, nil
	case 2:
		return TableName{Schema: parts[0], Table: parts[1]}, nil
	case 3:
		if database != "" && parts[0] != database {
			return TableName{}, fmt.Errorf("table %q is in database %s, the connection's is %s", s, parts[0], database)
		}
		return TableName{Schema: parts[1], Table: parts[2]}, nil
	}
	return TableName{}, fmt.Errorf("bad table name %q: more than three parts", s)
}

func (t TableName) String() string {
	if t.Schema == "" {
		return t.Table
	}
	return t.Schema + "." + t.Table
}

// Quoted is the table as SQL names it.
func (t TableName) Quoted() string {
	if t.Schema == "" {
		return QuoteIdent(t.Table)
	}
	return QuoteIdent(t.Schema) + "." + QuoteIdent(t.Table)
}

// ErrorText renders a PostgreSQL error with its detail and hint; other errors as they are.
func ErrorText(err error) string {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	msg := pe.Message
	if pe.Detail != "" {
		msg += "; " + pe.Detail
	}
	if pe.Hint != "" {
		msg += " (hint: " + pe.Hint + ")"
	}
	return fmt.Sprintf("%s (SQLSTATE %s)", msg, pe.Code)
}
