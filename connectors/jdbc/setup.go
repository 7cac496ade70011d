package jdbc

import (
	"context"
	"fmt"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
)

// Setup applies the save modes before the job first writes: schema_save_mode creates the
// table (from the input table's columns and primary key), recreates it, or requires it;
// data_save_mode keeps its rows, deletes them, runs custom_sql, or requires it empty. A
// sink with a query prepares nothing, as in SeaTunnel, even when use_copy_statement writes
// to a named table instead.
func (s *Sink) Setup(ctx context.Context) error {
	c := s.cfg
	if !c.prepare {
		return nil
	}
	conn, err := c.db.openSink(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	defer conn.close()
	if err := c.setup(ctx, conn); err != nil {
		return fmt.Errorf("%s: table %s: %w", c.where, c.target, err)
	}
	return nil
}

// setup carries out schema_save_mode, then data_save_mode (unless the table was created
// just now), as SeaTunnel does.
func (c *sinkConfig) setup(ctx context.Context, t sinkConn) error {
	exists, err := t.tableExists(ctx, c)
	if err != nil {
		return err
	}
	quoted := c.db.quoteTable(c.target)
	created := false
	switch c.schemaSave {
	case recreateSchema:
		if exists {
			if err := t.exec(ctx, "DROP TABLE "+quoted); err != nil {
				return fmt.Errorf("schema_save_mode %s: %w", recreateSchema, err)
			}
		}
		if err := t.createTable(ctx, c); err != nil {
			return err
		}
		created = true
	case createWhenNotExist:
		if !exists {
			if err := t.createTable(ctx, c); err != nil {
				return err
			}
			created = true
		}
	case errorWhenNotExist:
		if !exists {
			return connector.Permanent(fmt.Errorf("does not exist (schema_save_mode %s)", errorWhenNotExist))
		}
	}
	if created {
		return nil
	}
	switch c.dataSave {
	case dropData:
		if err := t.exec(ctx, "TRUNCATE TABLE "+quoted); err != nil {
			return fmt.Errorf("data_save_mode %s: %w", dropData, err)
		}
	case customProcessing:
		if err := t.exec(ctx, c.customSQL); err != nil {
			return fmt.Errorf("custom_sql: %w", err)
		}
	case errorWhenDataExists:
		var any bool
		if err := t.queryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+quoted+")").Scan(&any); err != nil {
			return fmt.Errorf("data_save_mode %s: %w", errorWhenDataExists, err)
		}
		if any {
			return connector.Permanent(fmt.Errorf("holds rows (data_save_mode %s)", errorWhenDataExists))
		}
	}
	return nil
}

// createDDL is the CREATE TABLE of the input's columns, their nullability and the primary
// key; typeOf is the type a column (the i-th) is created as.
func (c *sinkConfig) createDDL(typeOf func(i int, col catalog.Column) (string, error)) (string, error) {
	isPK := map[int]bool{}
	for _, i := range c.pk {
		isPK[i] = true
	}
	var defs []string
	for i, col := range c.input.Columns {
		t, err := typeOf(i, col)
		if err != nil {
			return "", fmt.Errorf("column %s: %w", col.Name, err)
		}
		d := c.db.quoteIdent(c.columns[i]) + " " + t
		if !col.Nullable || isPK[i] {
			d += " NOT NULL"
		}
		defs = append(defs, d)
	}
	if len(c.pk) > 0 {
		var pk []string
		for _, i := range c.pk {
			pk = append(pk, c.db.quoteIdent(c.columns[i]))
		}
		defs = append(defs, "PRIMARY KEY ("+strings.Join(pk, ", ")+")")
	}
	return "CREATE TABLE IF NOT EXISTS " + c.db.quoteTable(c.target) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)", nil
}
