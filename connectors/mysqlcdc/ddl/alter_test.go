package ddl

import (
	"fmt"
	"strings"
	"testing"
)

// describe writes a statement's clauses compactly: op, names, type, nullability, default and
// place, so that a table test reads as the statement does.
func describe(a *Alter) string {
	var out []string
	for _, c := range a.Clauses {
		s := string(c.Op)
		if c.Name != "" {
			s += " " + c.Name
		}
		if c.NewName != "" {
			s += " " + c.NewName
		}
		if col := c.Column; col != nil {
			s += fmt.Sprintf(" %s %s/%s", col.Name, col.DataType, col.ColumnType)
			if !col.Nullable {
				s += " not null"
			}
			if col.Default != "" {
				s += " default " + col.Default
			}
			if col.Charset != "" {
				s += " charset " + col.Charset
			}
			if col.Comment != "" {
				s += " comment " + col.Comment
			}
			if col.DataType == "decimal" {
				s += fmt.Sprintf(" p%d s%d", col.Precision, col.Scale)
			}
		}
		if c.First {
			s += " first"
		}
		if c.After != "" {
			s += " after " + c.After
		}
		if c.IfExists {
			s += " if-exists"
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

func TestParseAlter(t *testing.T) {
	for _, c := range []struct {
		sql, db, table, want string
	}{
		// SeaTunnel's MysqlCDCWithSchemaChangeIT statements
		{"alter table products ADD COLUMN add_column1 varchar(64) not null default 'yy',ADD COLUMN add_column2 int not null default 1",
			"", "products", "ADD add_column1 varchar/varchar(64) not null default 'yy'; ADD add_column2 int/int not null default 1"},
		{"alter table products ADD COLUMN add_column3 float not null default 1.1", "", "products", "ADD add_column3 float/float not null default 1.1"},
		{"alter table products ADD COLUMN add_column4 timestamp not null default current_timestamp()", "", "products",
			"ADD add_column4 timestamp/timestamp not null default current_timestamp()"},
		{"alter table products drop column add_column1,drop column add_column3", "", "products", "DROP add_column1; DROP add_column3"},
		{"alter table products change add_column2 add_column int default 1 not null", "", "products",
			"CHANGE add_column2 add_column int/int not null default 1"},
		{"alter table products modify name longtext null", "", "products", "MODIFY name longtext/longtext"},
		// forms
		{"ALTER TABLE `shop`.`t` ADD `c` INT(10) UNSIGNED ZEROFILL FIRST", "shop", "t", "ADD c int/int(10) unsigned zerofill first"},
		{"ALTER TABLE t ADD COLUMN c DECIMAL(12, 4) AFTER `id`", "", "t", "ADD c decimal/decimal(12,4) p12 s4 after id"},
		{"ALTER TABLE t ADD c numeric", "", "t", "ADD c decimal/decimal(10,0) p10 s0"},
		{"ALTER TABLE t ADD c dec(7)", "", "t", "ADD c decimal/decimal(7,0) p7 s0"},
		{"ALTER TABLE t ADD (a bool, b double precision, c char)", "", "t", "ADD a tinyint/tinyint(1); ADD b double/double; ADD c char/char(1)"},
		{"alter table t add column e enum('a','b''c', 'd\\'e') not null default 'a'", "", "t", "ADD e enum/enum('a','b''c','d''e') not null default 'a'"},
		{"alter table t add s varchar(10) character set latin1 collate latin1_swedish_ci comment 'the name'", "", "t",
			"ADD s varchar/varchar(10) charset latin1 comment the name"},
		{"alter table t add s text collate utf8mb4_unicode_ci", "", "t", "ADD s text/text charset utf8mb4"},
		{"alter table t add d datetime(3) default current_timestamp(3) on update current_timestamp(3)", "", "t", "ADD d datetime/datetime(3) default current_timestamp(3)"},
		{"alter table t add b bit(8) default b'00000001', add x int default -1, add n int default null", "", "t",
			"ADD b bit/bit(8) default b'00000001'; ADD x int/int default -1; ADD n int/int"},
		{"alter table t add j json default (json_array())", "", "t", "ADD j json/json default (json_array())"},
		{"alter table t add u bigint unsigned not null", "", "t", "ADD u bigint/bigint unsigned not null"},
		{"alter table t add f float(30), add g float(7,3), add h real", "", "t", "ADD f double/double; ADD g float/float(7,3); ADD h double/double"},
		{"alter table t add n national varchar(5), add l long varchar, add v char varying(3)", "", "t",
			"ADD n varchar/varchar(5); ADD l mediumtext/mediumtext; ADD v varchar/varchar(3)"},
		{"alter table t add k int unique key, add r int references o(id) on delete set null", "", "t", "ADD k int/int; ADD r int/int"},
		{"alter table t drop c, drop column if exists d cascade", "", "t", "DROP c; DROP d if-exists"},
		{"alter table t modify column c bigint not null after a", "", "t", "MODIFY c bigint/bigint not null after a"},
		{"alter table t change c c bigint", "", "t", "MODIFY c bigint/bigint"},
		{"alter table t change column if exists c d int first", "", "t", "CHANGE c d int/int first if-exists"},
		{"alter table t rename column a to b", "", "t", "RENAME a b"},
		{"alter table t add column if not exists c int", "", "t", "ADD c int/int if-exists"},
		// clauses that change no rows are left out
		{"alter table t add index i (a, b), drop key j, add unique u (c), algorithm=inplace, lock = none", "", "t", ""},
		{"alter table t alter column c set default 3, engine = InnoDB, comment = 'x', auto_increment = 5", "", "t", ""},
		{"alter table t rename index a to b, add constraint fk foreign key (a) references o (id), drop foreign key fk", "", "t", ""},
		{"ALTER TABLE t /* a comment */ ADD c INT -- trailing\n", "", "t", "ADD c int/int"},
		{"/*!40000 ALTER TABLE t DISABLE KEYS */", "", "t", ""},
		{"alter online ignore table if exists t wait 5 add c int;", "", "t", "ADD c int/int"},
	} {
		a, err := ParseAlter(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if a.Database != c.db || a.Table != c.table || describe(a) != c.want {
			t.Errorf("%s:\n got %s.%s: %s\nwant %s.%s: %s", c.sql, a.Database, a.Table, describe(a), c.db, c.table, c.want)
		}
	}
}

func TestParseAlterCharset(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"alter table t default character set = latin1", "latin1"},
		{"alter table t charset utf8mb4 collate utf8mb4_bin", "utf8mb4"},
		{"alter table t default collate = cp1251_general_ci", "cp1251"},
		{"alter table t add c int", ""},
	} {
		a, err := ParseAlter(c.sql)
		if err != nil || a.Charset != c.want {
			t.Errorf("%s: %v, charset %q, want %q", c.sql, err, a.Charset, c.want)
		}
	}
}

func TestParseAlterUnsupported(t *testing.T) {
	for _, c := range []struct{ sql, clause, why string }{
		{"alter table t add primary key (id)", "add primary key (id)", "primary key"},
		{"alter table t drop primary key, add c int", "drop primary key", "primary key"},
		{"alter table t add c int primary key", "add c int primary key", "primary key"},
		{"alter table t add constraint pk primary key (id)", "add constraint pk primary key (id)", "primary key"},
		{"alter table t rename to u", "rename to u", "renamed"},
		{"alter table t rename u", "rename u", "renamed"},
		{"alter table t convert to character set utf8mb4", "convert to character set utf8mb4", "character set"},
		{"alter table t add c int as (a + 1) stored", "add c int as (a + 1) stored", "generated"},
		{"alter table t truncate partition p0", "truncate partition p0", "partitions"},
		{"alter table t add partition (partition p3 values less than (2000))", "add partition (partition p3 values less than (2000))", "partitions"},
		{"alter table t add c int partition by hash(c)", "partition by hash(c)", "partitions"},
		{"alter table t frobnicate", "frobnicate", "not a change of columns"},
	} {
		_, err := ParseAlter(c.sql)
		ue, ok := err.(*UnsupportedError)
		if !ok || ue.Clause != c.clause || !strings.Contains(ue.Why, c.why) {
			t.Errorf("%s: %v (%T), want the clause %q: ...%s...", c.sql, err, err, c.clause, c.why)
		}
	}
}

func TestParseAlterErrors(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"alter table", "expected a name at the end"},
		{"create table t (a int)", `expected ALTER at offset 0 ("create")`},
		{"alter table t add c", "expected a data type at the end"},
		{"alter table t add c strange", `unknown data type "strange"`},
		{"alter table t add c varchar(x)", "expected the type's arguments"},
		{"alter table t add c int not", "expected NULL"},
		{"alter table t add c int default", "expected a value"},
		{"alter table t add c int, drop", "expected a name"},
		{"alter table t add c varchar(1,2,3)", "at most two numbers"},
		{"alter table t add c int 'x'", "unexpected 'x' in the definition of column c"},
		{"alter table t add c int default 'x", "unterminated '"},
		{"alter table t add c int /* open", "unterminated comment"},
		{"alter table t add c int x y", "unexpected x"},
		{"alter table t add (c int", `expected ','`},
	} {
		_, err := ParseAlter(c.sql)
		if err == nil || IsUnsupported(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.sql, err, c.want)
		}
	}
}

// FuzzParseAlter: any text is read without a panic, and what is read names a table, and
// columns with a name, a type and a COLUMN_TYPE that starts with it.
func FuzzParseAlter(f *testing.F) {
	for _, s := range []string{
		"alter table products ADD COLUMN add_column1 varchar(64) not null default 'yy',ADD COLUMN add_column2 int not null default 1",
		"alter table t change c d int first, drop x, modify y decimal(10,2) after z",
		"alter table t add (a enum('x','y'), b set('p'))",
		"/*!40000 ALTER TABLE t DISABLE KEYS */",
		"alter table t add primary key (id)",
		"alter table `a``b`.`c` add `d` bit(3) default b'1'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		a, err := ParseAlter(sql)
		if err != nil {
			return
		}
		if a.Table == "" {
			t.Fatalf("%q: no table", sql)
		}
		for _, c := range a.Clauses {
			if col := c.Column; col != nil {
				if col.Name == "" || col.DataType == "" || !strings.HasPrefix(col.ColumnType, col.DataType) {
					t.Fatalf("%q: column %+v", sql, col)
				}
			}
			if (c.Op == Drop || c.Op == Change || c.Op == Rename) && c.Name == "" {
				t.Fatalf("%q: %s names no column", sql, c.Op)
			}
		}
	})
}
