package e2e

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// SeaTunnel's MysqlCDCWithSchemaChangeIT, run as SeaTunnel runs it: its two configs
// (MySQL-CDC with debezium.include.schema.changes into a Jdbc sink on MySQL, the second
// exactly once), its shop DDL and the four DDL files its test runs while the job runs
// (add_columns, drop_columns, change_columns, modify_columns), kept unchanged in
// connectors/mysqlcdc/testdata/seatunnel, and its checks: after each file the sink table's
// DESC equals the source's and its rows equal the source's, within SeaTunnel's 30 s (60 s
// here: the machine is shared). After add_columns, whose last ALTER adds a TIMESTAMP
// defaulting to the current time, the rows are compared as SeaTunnel does: those from id
// 128 on whole, the others without that column, whose value in each table is the time its
// ALTER ran (at most 3 s apart).

const (
	schemaQuery      = "select * from %s.%s"
	schemaDesc       = "desc %s.%s"
	schemaProjection = "select id,name,description,weight,add_column1,add_column2,add_column3 from %s.%s"
)

// awaitSame waits until each pair of queries reads the same rows, as SeaTunnel's awaits do;
// a job that stops fails at once.
func (s *mysqlCDCSuite) awaitSame(t *testing.T, id, what string, pairs ...[2]string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for n := 0; ; n++ {
		diff := ""
		for _, p := range pairs {
			if d := firstDiff(mysqlQueryRows(t, s.db, p[0]), mysqlQueryRows(t, s.db, p[1])); d != "" {
				diff += "\n" + p[1] + ": " + d
			}
		}
		if diff == "" {
			return
		}
		if n%10 == 9 {
			if st := jobStatus(t, s.addr, id); st.State != "RUNNING" {
				t.Fatalf("%s: job %s is %s (%s); the tables differ:%s", what, id, st.State, st.Error, diff)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the tables differ after 60 s:%s", what, diff)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func schemaPair(format, db, source, sink string) [2]string {
	return [2]string{fmt.Sprintf(format, db, source), fmt.Sprintf(format, db, sink)}
}

// assertSchemaEvolution is SeaTunnel's assertSchemaEvolution.
func (s *mysqlCDCSuite) assertSchemaEvolution(t *testing.T, id, sink string) {
	const db, source = "shop", "products"
	s.awaitSame(t, id, "the snapshot", schemaPair(schemaQuery, db, source, sink))

	// case 1: columns added while rows change
	s.server.script(t, mysqlCDCFixture("ddl/add_columns.sql"), strings.NewReplacer())
	s.awaitSame(t, id, "add_columns", schemaPair(schemaDesc, db, source, sink))
	s.awaitSame(t, id, "add_columns",
		schemaPair(schemaQuery+" where id >= 128", db, source, sink),
		schemaPair(schemaProjection, db, source, sink))
	s.timesClose(t, db, source, sink)

	// cases 2 to 4: columns dropped, renamed and modified while rows change
	for _, file := range []string{"drop_columns", "change_columns", "modify_columns"} {
		s.server.script(t, mysqlCDCFixture("ddl/"+file+".sql"), strings.NewReplacer())
		s.awaitSame(t, id, file, schemaPair(schemaDesc, db, source, sink))
		s.awaitSame(t, id, file, schemaPair(schemaQuery, db, source, sink))
	}
}

// timesClose is SeaTunnel's check of add_column4, which each table filled with the time
// its ALTER ran: at most 3 s apart for every row.
func (s *mysqlCDCSuite) timesClose(t *testing.T, db, source, sink string) {
	t.Helper()
	q := fmt.Sprintf(`SELECT t1.id, ABS(TIMESTAMPDIFF(SECOND, t1.add_column4, t2.add_column4))
 FROM %[1]s.%[2]s t1 INNER JOIN %[1]s.%[3]s t2 ON t1.id = t2.id`, db, source, sink)
	rows, err := s.db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int
		var diff sql.NullInt64
		if err := rows.Scan(&id, &diff); err != nil {
			t.Fatal(err)
		}
		if !diff.Valid || diff.Int64 > 3 {
			t.Fatalf("row %d: add_column4 differs by %v seconds", id, diff)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no rows to compare add_column4 of")
	}
}

// newSchemaChangeSuite is the suite's server with SeaTunnel's users and a dev server whose
// runner has slots for the configs' parallelism of 5 (one task group of five: Zeta's
// default slots are as many as a job needs).
func newSchemaChangeSuite(t *testing.T) *mysqlCDCSuite {
	t.Helper()
	return newMySQLCDCServer(t, "--slots", "8")
}

func TestSeaTunnelMySQLCDCWithSchemaChange(t *testing.T) {
	s := newSchemaChangeSuite(t)
	shop := func(t *testing.T) { s.server.script(t, mysqlCDCFixture("ddl/shop.sql"), strings.NewReplacer()) }
	shop(t)
	t.Run("testMysqlCdcWithSchemaEvolutionCase", func(t *testing.T) {
		s.submit(t, "4001", "mysqlcdc_to_mysql_with_schema_change.conf")
		s.assertSchemaEvolution(t, "4001", "mysql_cdc_e2e_sink_table_with_schema_change")
	})
	t.Run("testMysqlCdcWithSchemaEvolutionCaseExactlyOnce", func(t *testing.T) {
		shop(t) // SeaTunnel's test creates the shop database again first
		s.submit(t, "4002", "mysqlcdc_to_mysql_with_schema_change_exactly_once.conf")
		s.assertSchemaEvolution(t, "4002", "mysql_cdc_e2e_sink_table_with_schema_change_exactly_once")
	})
}
