package jdbc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
)

// A schema change on PostgreSQL: one transaction of ADD COLUMN, DROP COLUMN, RENAME COLUMN
// and ALTER COLUMN TYPE / SET NOT NULL / SET DEFAULT (see schemachange.go).

// pgAlter is the statements of a change on PostgreSQL, given the target's columns; none
// when the target shows it applied. typeOf is the PostgreSQL type a column is created as.
func (c *sinkConfig) pgAlter(ch *connector.SchemaChange, have map[string]bool, typeOf func(catalog.Column) (string, error)) ([]string, error) {
	t := c.target.Quoted()
	var out []string
	for _, cc := range ch.Columns {
		name, old := c.targetName(cc.Column.Name), c.targetName(cc.Name)
		q := pgwire.QuoteIdent(name)
		switch cc.Op {
		case connector.DropColumn:
			if have[strings.ToLower(old)] {
				delete(have, strings.ToLower(old))
				out = append(out, fmt.Sprintf("ALTER TABLE %s DROP COLUMN IF EXISTS %s", t, pgwire.QuoteIdent(old)))
			}
			continue
		case connector.AddColumn:
			if have[strings.ToLower(name)] {
				continue
			}
		}
		typ, err := typeOf(cc.Column)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", cc.Column.Name, err)
		}
		dflt := plainDefault(cc, quoteLiteral)
		switch cc.Op {
		case connector.AddColumn:
			s := fmt.Sprintf("ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s", t, q, typ)
			if dflt != "" {
				s += " DEFAULT " + dflt
			}
			if !cc.Column.Nullable && dflt != "" {
				s += " NOT NULL"
			}
			out = append(out, s)
			have[strings.ToLower(name)] = true
			continue
		case connector.ChangeColumn:
			if old != name && have[strings.ToLower(old)] {
				out = append(out, fmt.Sprintf("ALTER TABLE %s RENAME COLUMN %s TO %s", t, pgwire.QuoteIdent(old), q))
				delete(have, strings.ToLower(old))
				have[strings.ToLower(name)] = true
			}
		}
		parts := []string{fmt.Sprintf("ALTER COLUMN %s TYPE %s USING %s::%s", q, typ, q, typ)}
		if cc.Column.Nullable {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s DROP NOT NULL", q))
		} else {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s SET NOT NULL", q))
		}
		if dflt != "" {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s SET DEFAULT %s", q, dflt))
		} else {
			parts = append(parts, fmt.Sprintf("ALTER COLUMN %s DROP DEFAULT", q))
		}
		out = append(out, fmt.Sprintf("ALTER TABLE %s %s", t, strings.Join(parts, ", ")))
	}
	return out, nil
}

func (w *writer) rebuild(ctx context.Context) error { return w.reprepare(ctx) }

// alterStatements are the change's statements, given the target's columns.
func (w *writer) alterStatements(ctx context.Context, ch *connector.SchemaChange, have map[string]bool) ([]string, error) {
	return w.cfg.pgAlter(ch, have, func(col catalog.Column) (string, error) { return columnType(ctx, w.conn, col) })
}

// raced reports duplicate_column and undefined_column: another writer was first.
func (w *writer) raced(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "42701" || pe.Code == "42703")
}

// targetColumns are the columns the table has, by lower-case name.
func (w *writer) targetColumns(ctx context.Context) (map[string]bool, error) {
	return pgTargetColumns(ctx, w.conn, w.cfg)
}

func pgTargetColumns(ctx context.Context, conn *pgx.Conn, c *sinkConfig) (map[string]bool, error) {
	rows, err := conn.Query(ctx, "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped", c.target.Quoted())
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: read its columns: %w", c.where, c.target, err)
	}
	defer rows.Close()
	return c.columnNames(rows)
}

// execAlter runs a change's statements in one transaction.
func (w *writer) execAlter(ctx context.Context, stmts []string) error {
	if len(stmts) == 0 {
		return nil
	}
	tx, err := w.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%s: table %s: %w", w.cfg.where, w.cfg.target, err)
	}
	for _, s := range stmts {
		slog.Info("Jdbc applies a schema change", "plugin", w.cfg.where, "statement", s)
		if _, err := tx.Exec(ctx, s); err != nil {
			_ = tx.Rollback(ctx)
			err = fmt.Errorf("%s: table %s: %s: %w", w.cfg.where, w.cfg.target, s, err)
			if refused(err) {
				return connector.Permanent(err)
			}
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s: table %s: commit the schema change: %w", w.cfg.where, w.cfg.target, err)
	}
	return nil
}

// reprepare drops the writer's statements and prepares those of its new columns.
func (w *writer) reprepare(ctx context.Context) error {
	if err := w.conn.DeallocateAll(ctx); err != nil {
		return err
	}
	w.main, w.insert, w.update, w.delete, w.bulkUpsert, w.bulkDelete, w.copy = nil, nil, nil, nil, nil, nil, ""
	if err := w.prepare(ctx); err != nil {
		return err
	}
	w.resetBuf()
	return nil
}
