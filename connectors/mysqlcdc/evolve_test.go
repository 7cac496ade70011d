package mysqlcdc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
)

// describeChange writes a change's columns as op, name, type and source type, place.
func describeChange(c *connector.SchemaChange) string {
	var out []string
	for _, cc := range c.Columns {
		s := string(cc.Op)
		if cc.Name != "" {
			s += " " + cc.Name
		}
		if cc.Op != connector.DropColumn {
			s += fmt.Sprintf(" %s %s %s", cc.Column.Name, cc.Column.Type, cc.Column.SourceType)
			if !cc.Column.Nullable {
				s += " not null"
			}
			if cc.Default != "" {
				s += " default " + cc.Default
			}
		}
		if cc.First {
			s += " first"
		}
		if cc.After != "" {
			s += " after " + cc.After
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// The log's ALTERs of a captured table change the columns the later rows are decoded with,
// and each is passed on after the rows before it, in the order of the log.
func TestSchemaChangesFollowed(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE ev (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO ev VALUES (1, 'one')")
	h := newHarness(t, mustSource(t, db.conf("ev", "schema-changes.enabled = true"), connector.Streaming), 1, nil, nil)
	h.Until("the snapshot", time.Minute, func() bool { return len(h.Rows) == 1 && h.Readers[0].(*reader).stream != nil })
	steps := []string{
		"INSERT INTO ev VALUES (2, 'two')",
		"ALTER TABLE ev ADD COLUMN score INT NOT NULL DEFAULT 7 AFTER id, ADD note TEXT",
		"INSERT INTO ev VALUES (3, 30, 'three', 'n3')",
		"UPDATE ev SET name = 'one!' WHERE id = 1",
		"ALTER TABLE ev DROP COLUMN name",
		"INSERT INTO ev VALUES (4, 40, 'n4')",
		"ALTER TABLE ev CHANGE score points BIGINT NULL, MODIFY note VARCHAR(5) FIRST",
		"INSERT INTO ev VALUES ('n5', 5, 50)",
		"ALTER TABLE ev ADD INDEX by_points (points)", // changes no rows: not passed on
		"INSERT INTO ev VALUES ('n6', 6, NULL)",
	}
	db.exec(t, steps...)
	h.Until("the changes", time.Minute, func() bool { return len(h.Rows) == 8 })
	want := []string{
		"+I 1,one",
		"+I 2,two",
		"+I 3,30,three,n3",
		"-U 1,7,one,null", "+U 1,7,one!,null",
		"+I 4,40,n4",
		"+I n5,5,50",
		"+I n6,6,null",
	}
	if got := show(h.Rows); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	type seen struct {
		after int
		desc  string
	}
	var got []seen
	for _, c := range h.Changes {
		if c.Change.Table != db.name+".ev" || c.Change.Dialect != "MySQL" || !strings.HasPrefix(c.Change.ID, db.name+".ev@") {
			t.Fatalf("change %+v", c.Change)
		}
		got = append(got, seen{c.After, describeChange(c.Change)})
	}
	wantChanges := []seen{
		{2, "ADD score int int not null default 7 after id; ADD note string text"},
		{5, "DROP name"},
		{6, "CHANGE score points bigint bigint; MODIFY note string varchar(5) first"},
	}
	if fmt.Sprint(got) != fmt.Sprint(wantChanges) {
		t.Fatalf("changes\n%v\nwant\n%v", got, wantChanges)
	}
	if h.Changes[0].Change.Statement != steps[1] {
		t.Fatalf("statement %q", h.Changes[0].Change.Statement)
	}
	// the source's catalog table follows: its columns now
	var names []string
	for _, c := range h.Readers[0].(*reader).src.byID[db.name+".ev"].table.Columns {
		names = append(names, c.Name+":"+c.Type.String())
	}
	if strings.Join(names, " ") != "note:string id:int points:bigint" {
		t.Fatalf("table columns %v", names)
	}
}

// A restore from a checkpoint taken between two ALTERs decodes the rows after it with the
// columns of the checkpoint's position (not the server's, which changed since), and passes
// on the ALTER after the checkpoint once, not the one before it.
func TestSchemaChangesRestored(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, "CREATE TABLE ev (id INT PRIMARY KEY, name VARCHAR(20))")
	conf := db.conf("ev", "schema-changes.enabled = true")
	h := newHarness(t, mustSource(t, conf, connector.Streaming), 1, nil, nil)
	h.Until("the stream", time.Minute, func() bool { return h.Readers[0].(*reader).stream != nil })
	db.exec(t, "ALTER TABLE ev ADD COLUMN score INT", "INSERT INTO ev VALUES (1, 'one', 10)")
	h.Until("the first change", time.Minute, func() bool { return len(h.Rows) == 1 })
	es, states := h.Checkpoint(1)
	var split splitData
	for _, sp := range states[0] {
		if sp.ID == streamSplitID {
			if err := json.Unmarshal(sp.Data, &split); err != nil {
				t.Fatal(err)
			}
		}
	}
	if split.Stream == nil || len(split.Stream.Tables) != 1 || len(split.Stream.Tables[0].Table.Columns) != 3 {
		t.Fatalf("the log split keeps no tables: %+v", split.Stream)
	}
	db.exec(t, "INSERT INTO ev VALUES (2, 'two', 20)", "ALTER TABLE ev DROP COLUMN name", "INSERT INTO ev VALUES (3, 30)")
	h.Until("the second change", time.Minute, func() bool { return len(h.Rows) == 3 })
	h.Close()

	// the server's table is (id, score) now; the restored source starts from (id, name, score)
	r := newHarness(t, mustSource(t, conf, connector.Streaming), 1, es, states)
	if tables := r.Readers[0].(connector.SchemaChangeReader).Tables(); len(tables) != 1 || len(tables[0].Columns) != 3 {
		t.Fatalf("the restored reader's tables %+v, want the checkpoint's (id, name, score)", tables)
	}
	r.Until("the rows after the checkpoint", time.Minute, func() bool { return len(r.Rows) == 2 })
	if got := strings.Join(show(r.Rows), "|"); got != "+I 2,two,20|+I 3,30" {
		t.Fatalf("restored rows %s", got)
	}
	if len(r.Changes) != 1 || r.Changes[0].After != 1 || describeChange(r.Changes[0].Change) != "DROP name" {
		t.Fatalf("restored changes %+v", r.Changes)
	}
}

// Statements that change a captured table in ways a change of columns cannot say fail,
// naming the statement; SeaTunnel 2.3.8's debezium.include.schema.changes enables the
// following as schema-changes.enabled does.
func TestSchemaChangesRefused(t *testing.T) {
	db := newTestDB(t)
	for _, c := range []struct{ ddl, why string }{
		{"ALTER TABLE %s ADD COLUMN c INT, ADD PRIMARY KEY (c)", "the primary key changes"},
		{"ALTER TABLE %s RENAME TO %s_old", "the table is renamed"},
		{"RENAME TABLE %s TO %s_old", "not a change of its columns"},
		{"DROP TABLE %s", "not a change of its columns"},
	} {
		t.Run(strings.Fields(c.ddl)[0]+" "+c.why, func(t *testing.T) {
			table := fmt.Sprintf("r%d", len(c.why))
			db.exec(t, "CREATE TABLE "+table+" (id INT, name TEXT)")
			h := newHarness(t, mustSource(t, db.conf(table, `debezium { include.schema.changes = true }
table-names-config = [{ table = "`+db.name+"."+table+`", primaryKeys = [id] }]`), connector.Streaming), 1, nil, nil)
			h.Until("the stream", time.Minute, func() bool { return h.Readers[0].(*reader).stream != nil })
			stmt := strings.ReplaceAll(c.ddl, "%s", table)
			db.exec(t, stmt)
			if strings.HasPrefix(stmt, "DROP") {
				stmt = "DROP TABLE `" + table + "`" // as the server logs it
			}
			err := h.UntilErr(time.Minute)
			if !strings.Contains(err.Error(), stmt) || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("got %v, want the statement and %q", err, c.why)
			}
		})
	}
}
