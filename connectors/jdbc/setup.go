package jdbc

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/internal/pgwire"
	"github.com/strait-dev/strait/types"
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
	if c.my != nil {
		return c.mysqlSetup(ctx)
	}
	conn, err := c.conn.connect(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", c.where, err)
	}
	defer conn.Close(context.Background())
	if err := c.setup(ctx, conn); err != nil {
		return fmt.Errorf("%s: table %s: %w", c.where, c.target, err)
	}
	return nil
}

func (c *sinkConfig) setup(ctx context.Context, conn *pgx.Conn) error {
	exists, err := tableExists(ctx, conn, c.target)
	if err != nil {
		return err
	}
	return c.applySaveModes(ctx, exists, saveTarget{
		quoted: c.target.Quoted(),
		exec: func(ctx context.Context, q string) error {
			_, err := conn.Exec(ctx, q)
			return err
		},
		hasRows: func(ctx context.Context, q string) (bool, error) {
			var any bool
			err := conn.QueryRow(ctx, q).Scan(&any)
			return any, err
		},
		create: func(ctx context.Context) error { return c.createTable(ctx, conn) },
	})
}

// saveTarget is what the save modes do to a sink's table, in its dialect.
type saveTarget struct {
	quoted  string // the table's name as a statement writes it
	exec    func(ctx context.Context, q string) error
	hasRows func(ctx context.Context, q string) (bool, error)
	create  func(ctx context.Context) error
}

// applySaveModes carries out schema_save_mode, then data_save_mode (unless the table was
// created just now), on a table that exists or not, as SeaTunnel does.
func (c *sinkConfig) applySaveModes(ctx context.Context, exists bool, t saveTarget) error {
	created := false
	switch c.schemaSave {
	case recreateSchema:
		if exists {
			if err := t.exec(ctx, "DROP TABLE "+t.quoted); err != nil {
				return fmt.Errorf("schema_save_mode %s: %w", recreateSchema, err)
			}
		}
		if err := t.create(ctx); err != nil {
			return err
		}
		created = true
	case createWhenNotExist:
		if !exists {
			if err := t.create(ctx); err != nil {
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
		if err := t.exec(ctx, "TRUNCATE TABLE "+t.quoted); err != nil {
			return fmt.Errorf("data_save_mode %s: %w", dropData, err)
		}
	case customProcessing:
		if err := t.exec(ctx, c.customSQL); err != nil {
			return fmt.Errorf("custom_sql: %w", err)
		}
	case errorWhenDataExists:
		any, err := t.hasRows(ctx, "SELECT EXISTS (SELECT 1 FROM "+t.quoted+")")
		if err != nil {
			return fmt.Errorf("data_save_mode %s: %w", errorWhenDataExists, err)
		}
		if any {
			return connector.Permanent(fmt.Errorf("holds rows (data_save_mode %s)", errorWhenDataExists))
		}
	}
	return nil
}

// columnType is the type a column is created as: its source type when it comes from
// PostgreSQL and that type still reads back as the column's type (SeaTunnel creates the
// columns of a PostgreSQL source with their source types: json stays json, numeric stays
// numeric), else the mapping of its SeaTunnel type.
func columnType(ctx context.Context, conn *pgx.Conn, col catalog.Column) (string, error) {
	if col.SourceType != "" && sourceTypeFits(ctx, conn, col) {
		return col.SourceType, nil
	}
	return ddlType(col.Type, col.Length)
}

// sourceTypeFits reports whether the column's source type names a type of this database
// that is read as the column's type (a transform may have changed the type since).
func sourceTypeFits(ctx context.Context, conn *pgx.Conn, col catalog.Column) bool {
	fields, err := pgwire.DescribeSQL(ctx, conn, "SELECT NULL::"+col.SourceType)
	if err != nil || len(fields) != 1 {
		return false
	}
	opts := pgwire.TypeOptions{UnboundedScale: 18}
	switch t := col.Type; {
	case t.Kind == types.Decimal:
		opts.UnboundedScale = t.Scale
	case t.Kind == types.Array && t.Elem != nil && t.Elem.Kind == types.Decimal:
		opts.UnboundedScale = t.Elem.Scale
	}
	return pgwire.ColumnOf(fields[0], opts).Type.String() == col.Type.String()
}

func tableExists(ctx context.Context, conn *pgx.Conn, t pgwire.TableName) (bool, error) {
	var oid *uint32
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1)::oid", t.Quoted()).Scan(&oid); err != nil {
		return false, fmt.Errorf("look it up: %w", err)
	}
	return oid != nil, nil
}

// createTable creates the table with the input's columns, their nullability, and the
// primary key.
func (c *sinkConfig) createTable(ctx context.Context, conn *pgx.Conn) error {
	if c.target.Schema != "" {
		if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgwire.QuoteIdent(c.target.Schema)); err != nil {
			return fmt.Errorf("create schema %s: %w", c.target.Schema, err)
		}
	}
	isPK := map[int]bool{}
	for _, i := range c.pk {
		isPK[i] = true
	}
	var defs []string
	for i, col := range c.input.Columns {
		t, err := columnType(ctx, conn, col)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.Name, err)
		}
		d := pgwire.QuoteIdent(c.columns[i]) + " " + t
		if !col.Nullable || isPK[i] {
			d += " NOT NULL"
		}
		defs = append(defs, d)
	}
	if len(c.pk) > 0 {
		var pk []string
		for _, i := range c.pk {
			pk = append(pk, pgwire.QuoteIdent(c.columns[i]))
		}
		defs = append(defs, "PRIMARY KEY ("+strings.Join(pk, ", ")+")")
	}
	sql := "CREATE TABLE IF NOT EXISTS " + c.target.Quoted() + " (\n  " + strings.Join(defs, ",\n  ") + "\n)"
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("create: %w", err)
	}
	return nil
}
