package jdbc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/strait-dev/strait/connector"
)

// A schema change on MySQL and MariaDB: one ALTER TABLE per change (ADD, DROP, MODIFY and
// CHANGE COLUMN, FIRST and AFTER kept), with the column's MySQL type and default as the
// source wrote them when the source is MySQL (see schemachange.go).

// mysqlAlter is the ALTER TABLE of a change on MySQL, given the target's columns (by lower-case
// name, updated as the clauses go); "" when the target shows it applied.
func (c *sinkConfig) mysqlAlter(ch *connector.SchemaChange, have map[string]bool) (string, error) {
	var clauses []string
	for _, cc := range ch.Columns {
		a := columnAlter{cc: cc, name: c.targetName(cc.Column.Name), old: c.targetName(cc.Name), nullable: cc.Column.Nullable}
		switch cc.Op {
		case connector.DropColumn:
			if !have[strings.ToLower(a.old)] {
				continue
			}
			delete(have, strings.ToLower(a.old))
			clauses = append(clauses, "DROP COLUMN "+mysqlQuote(a.old))
			continue
		case connector.AddColumn:
			if have[strings.ToLower(a.name)] {
				continue
			}
		case connector.ChangeColumn:
			if !have[strings.ToLower(a.old)] && have[strings.ToLower(a.name)] {
				a.cc.Op = connector.ModifyColumn // renamed already: its definition still applies
			}
		}
		var err error
		if a.typ, a.dflt, err = mysqlColumnDef(ch, cc); err != nil {
			return "", fmt.Errorf("column %s: %w", cc.Column.Name, err)
		}
		clauses = append(clauses, a.mysqlClause(have, c))
		if a.cc.Op == connector.ChangeColumn {
			delete(have, strings.ToLower(a.old))
		}
		have[strings.ToLower(a.name)] = true
	}
	if len(clauses) == 0 {
		return "", nil
	}
	return "ALTER TABLE " + c.db.quoteTable(c.target) + " " + strings.Join(clauses, ", "), nil
}

func (a columnAlter) mysqlClause(have map[string]bool, c *sinkConfig) string {
	var b strings.Builder
	switch a.cc.Op {
	case connector.AddColumn:
		b.WriteString("ADD COLUMN " + mysqlQuote(a.name))
	case connector.ModifyColumn:
		b.WriteString("MODIFY COLUMN " + mysqlQuote(a.name))
	default:
		b.WriteString("CHANGE COLUMN " + mysqlQuote(a.old) + " " + mysqlQuote(a.name))
	}
	b.WriteString(" " + a.typ)
	if a.nullable {
		b.WriteString(" NULL")
	} else {
		b.WriteString(" NOT NULL")
	}
	if a.dflt != "" {
		b.WriteString(" DEFAULT " + a.dflt)
	}
	if a.cc.Column.Comment != "" {
		b.WriteString(" COMMENT " + mysqlString(a.cc.Column.Comment))
	}
	switch after := c.targetName(a.cc.After); {
	case a.cc.First:
		b.WriteString(" FIRST")
	case a.cc.After != "" && have[strings.ToLower(after)]:
		b.WriteString(" AFTER " + mysqlQuote(after))
	}
	return b.String()
}

// mysqlColumnDef is a changed column's MySQL type and default: those the source wrote when
// it is MySQL, else its type's and a plain default's.
func mysqlColumnDef(ch *connector.SchemaChange, cc connector.ColumnChange) (typ, dflt string, err error) {
	if ch.Dialect == dialectMySQL && cc.Column.SourceType != "" {
		return cc.Column.SourceType, cc.Default, nil
	}
	if typ, err = (mysqlDialect{}).columnType(cc.Column); err != nil {
		return "", "", err
	}
	return typ, plainDefault(cc, mysqlString), nil
}

func mysqlString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

func (w *myWriter) rebuild(ctx context.Context) error { return w.prepare(ctx) }

// alterStatements is the change's ALTER TABLE, given the target's columns; none when the
// table shows it applied.
func (w *myWriter) alterStatements(_ context.Context, ch *connector.SchemaChange, have map[string]bool) ([]string, error) {
	stmt, err := w.cfg.mysqlAlter(ch, have)
	if err != nil || stmt == "" {
		return nil, err
	}
	return []string{stmt}, nil
}

// execAlter runs the ALTER TABLE.
func (w *myWriter) execAlter(ctx context.Context, stmts []string) error {
	if err := w.wait(); err != nil {
		return err
	}
	for _, stmt := range stmts {
		slog.Info("Jdbc applies a schema change", "plugin", w.cfg.where, "statement", stmt)
		if _, err := w.sess.ExecContext(ctx, stmt); err != nil {
			err = fmt.Errorf("%s: table %s: %s: %w", w.cfg.where, w.cfg.target, stmt, err)
			if mysqlRefused(err) {
				return connector.Permanent(err)
			}
			return err
		}
	}
	return nil
}

// raced reports the errors of a column added, dropped or renamed by someone else meanwhile.
func (w *myWriter) raced(err error) bool { return mysqlRaced(err) }

// mysqlRaced reports the errors of a column added, dropped or renamed by someone else
// meanwhile: ER_DUP_FIELDNAME, ER_CANT_DROP_FIELD_OR_KEY and ER_BAD_FIELD_ERROR.
func mysqlRaced(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1060 || me.Number == 1091 || me.Number == 1054)
}

// targetColumns are the columns the table has, by lower-case name.
func (w *myWriter) targetColumns(ctx context.Context) (map[string]bool, error) {
	if err := w.wait(); err != nil {
		return nil, err
	}
	rows, err := w.sess.QueryContext(ctx, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", w.cfg.target.Schema, w.cfg.target.Table)
	if err != nil {
		return nil, fmt.Errorf("%s: table %s: read its columns: %w", w.cfg.where, w.cfg.target, err)
	}
	defer rows.Close()
	return w.cfg.columnNames(rows)
}
