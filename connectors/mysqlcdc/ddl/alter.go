// Package ddl reads the MySQL and MariaDB ALTER TABLE statements that change a table's
// columns, as a replica reads them from the binary log: ADD [COLUMN] (with FIRST or AFTER,
// one column or a parenthesised list), DROP [COLUMN], MODIFY [COLUMN], CHANGE [COLUMN] old
// new and RENAME COLUMN old TO new, several clauses in one statement. A column's definition
// comes out as information_schema would describe it (DATA_TYPE, COLUMN_TYPE, nullability,
// default, character set), so a source maps it with the same rules as the columns it reads
// from the server.
//
// Clauses that change nothing of a table's rows (indexes other than the primary key, a
// column's default through ALTER COLUMN, table options such as ENGINE or COMMENT, ALGORITHM
// and LOCK) are read and left out. Clauses that change the rows in ways a change of columns
// cannot say (the primary key, a rename of the table, a conversion of its character set,
// partitions, generated columns) are an *UnsupportedError naming the clause.
package ddl

import (
	"fmt"
	"strings"
)

// Op is what a clause does to a column.
type Op string

// The column clauses.
const (
	Add    Op = "ADD"
	Drop   Op = "DROP"
	Modify Op = "MODIFY"
	Change Op = "CHANGE"
	Rename Op = "RENAME"
)

// Alter is an ALTER TABLE statement's column clauses.
type Alter struct {
	// Database is the database the table name gives, "" when it names none.
	Database string
	Table    string
	Clauses  []Clause
	// Charset is the table's new default character set (DEFAULT CHARACTER SET, or the one a
	// DEFAULT COLLATE implies), "" when the statement sets none. It applies to the text
	// columns added later without a character set of their own.
	Charset string
}

// Clause is one change of a column.
type Clause struct {
	Op Op
	// Name is the column DROP, CHANGE and RENAME name (CHANGE's and RENAME's old name).
	Name string
	// NewName is RENAME COLUMN's new name.
	NewName string
	// Column is the column's new definition (ADD, MODIFY, CHANGE).
	Column *Column
	// First and After place the column (ADD, MODIFY, CHANGE).
	First bool
	After string
	// IfExists is MariaDB's IF EXISTS (IF NOT EXISTS for ADD): a clause that does not apply
	// is skipped, not an error.
	IfExists bool
}

// Column is a column definition, as information_schema.COLUMNS describes it.
type Column struct {
	Name string
	// DataType is DATA_TYPE: int, varchar, decimal, enum...
	DataType string
	// ColumnType is COLUMN_TYPE: int(11) unsigned, varchar(64), decimal(10,2), enum('a','b').
	ColumnType string
	// Precision and Scale are a decimal's (10 and 0 when the definition gives none).
	Precision, Scale int
	// Length is the number the type's parentheses give (a varchar's length, a datetime's
	// fractional digits), -1 when they give none.
	Length    int
	Unsigned  bool
	Charset   string // "" when neither a CHARACTER SET nor a COLLATE names one
	Collation string
	Nullable  bool
	// Default is the default as the statement writes it ('yy', 1, current_timestamp()),
	// "" when there is none.
	Default       string
	OnUpdate      string
	Comment       string
	AutoIncrement bool
}

// UnsupportedError is a clause that changes a table in a way a change of columns cannot
// say.
type UnsupportedError struct {
	Clause string
	Why    string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %s", e.Clause, e.Why)
}

// IsUnsupported reports whether err is an *UnsupportedError.
func IsUnsupported(err error) bool {
	_, ok := err.(*UnsupportedError)
	return ok
}

// parser walks the tokens of one statement.
type parser struct {
	src  string
	toks []token
	i    int
}

// ParseAlter reads an ALTER TABLE statement.
func ParseAlter(sql string) (*Alter, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	p := &parser{src: sql, toks: toks}
	return p.alter()
}

func (p *parser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{kind: tokEOF, pos: len(p.src)}
}

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return token{kind: tokEOF, pos: len(p.src)}
}

func (p *parser) next() token {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

// accept takes the next token when it is one of the keywords.
func (p *parser) accept(kws ...string) bool {
	for _, kw := range kws {
		if p.peek().is(kw) {
			p.i++
			return true
		}
	}
	return false
}

func (p *parser) acceptPunct(c byte) bool {
	if p.peek().punct(c) {
		p.i++
		return true
	}
	return false
}

func (p *parser) errorf(format string, args ...any) error {
	t := p.peek()
	where := "at the end"
	if t.kind != tokEOF {
		where = fmt.Sprintf("at offset %d (%q)", t.pos, t.raw)
	}
	return fmt.Errorf("%s %s", fmt.Sprintf(format, args...), where)
}

func (p *parser) expect(kw string) error {
	if !p.accept(kw) {
		return p.errorf("expected %s", kw)
	}
	return nil
}

func (p *parser) expectPunct(c byte) error {
	if !p.acceptPunct(c) {
		return p.errorf("expected %q", c)
	}
	return nil
}

// name reads an identifier, quoted or not.
func (p *parser) name() (string, error) {
	t := p.peek()
	if (t.kind == tokWord || t.kind == tokQuoted) && t.text != "" {
		p.i++
		return t.text, nil
	}
	return "", p.errorf("expected a name")
}

// ended reports whether the statement has no more clauses.
func (p *parser) ended() bool {
	t := p.peek()
	return t.kind == tokEOF || t.punct(';')
}

// clauseEnd reports whether the current clause ends here: a comma, or the statement's end.
func (p *parser) clauseEnd() bool { return p.ended() || p.peek().punct(',') }

// text is the statement's source from token from to the last token read.
func (p *parser) text(from int) string {
	if from >= len(p.toks) || p.i <= from {
		return ""
	}
	last := p.toks[p.i-1]
	return strings.TrimSpace(p.src[p.toks[from].pos : last.pos+len(last.raw)])
}

func (p *parser) alter() (*Alter, error) {
	if err := p.expect("ALTER"); err != nil {
		return nil, err
	}
	p.accept("ONLINE", "OFFLINE")
	p.accept("IGNORE")
	if err := p.expect("TABLE"); err != nil {
		return nil, err
	}
	if p.accept("IF") {
		if err := p.expect("EXISTS"); err != nil {
			return nil, err
		}
	}
	a := &Alter{}
	first, err := p.name()
	if err != nil {
		return nil, err
	}
	a.Table = first
	if p.acceptPunct('.') {
		if a.Table, err = p.name(); err != nil {
			return nil, err
		}
		a.Database = first
	}
	if p.accept("WAIT") {
		p.next()
	} else {
		p.accept("NOWAIT")
	}
	for !p.ended() {
		if err := p.clause(a); err != nil {
			return nil, err
		}
		if !p.acceptPunct(',') && !p.ended() {
			if p.peek().is("PARTITION") {
				return nil, p.unsupported(p.i, "partitions change which rows the table holds")
			}
			return nil, p.errorf("expected a comma")
		}
	}
	return a, nil
}

// unsupported is the error of the clause that starts at token from.
func (p *parser) unsupported(from int, why string) error {
	p.skipClause()
	return &UnsupportedError{Clause: p.text(from), Why: why}
}

// skipClause passes the rest of a clause, parentheses and all.
func (p *parser) skipClause() {
	depth := 0
	for !p.ended() {
		t := p.peek()
		switch {
		case t.punct('('):
			depth++
		case t.punct(')'):
			depth--
		case t.punct(',') && depth <= 0:
			return
		}
		p.i++
	}
}

func (p *parser) clause(a *Alter) error {
	from := p.i
	t := p.next()
	switch {
	case t.is("ADD"):
		return p.add(a, from)
	case t.is("DROP"):
		return p.drop(a, from)
	case t.is("MODIFY"):
		p.accept("COLUMN")
		c := Clause{Op: Modify, IfExists: p.ifExists()}
		return p.columnClause(a, c, from)
	case t.is("CHANGE"):
		p.accept("COLUMN")
		c := Clause{Op: Change, IfExists: p.ifExists()}
		var err error
		if c.Name, err = p.name(); err != nil {
			return err
		}
		return p.columnClause(a, c, from)
	case t.is("RENAME"):
		return p.rename(a, from)
	case t.is("ALTER"):
		// ALTER [COLUMN] c SET DEFAULT / DROP DEFAULT / SET [IN]VISIBLE, ALTER INDEX ...:
		// the rows stay as they are
		p.skipClause()
		return nil
	case t.is("CONVERT"):
		return p.unsupported(from, "a conversion of the table's character set changes its text columns")
	case t.is("DEFAULT") || t.is("CHARACTER") || t.is("CHARSET") || t.is("COLLATE"):
		p.i = from
		return p.tableCharset(a)
	case t.is("PARTITION") || t.is("COALESCE") || t.is("REORGANIZE") || t.is("EXCHANGE") || t.is("TRUNCATE") ||
		t.is("REMOVE") || t.is("DISCARD") || t.is("IMPORT") || t.is("REBUILD") || t.is("REPAIR") || t.is("OPTIMIZE") ||
		t.is("ANALYZE") || t.is("CHECK") && p.peek().is("PARTITION"):
		return p.unsupported(from, "partitions and tablespaces change which rows the table holds")
	case isTableOption(t):
		p.skipClause()
		return nil
	}
	return p.unsupported(from, "not a change of columns Strait follows")
}

// isTableOption is a clause that changes nothing of the rows: a table option, ALGORITHM,
// LOCK, FORCE, ORDER BY, ENABLE or DISABLE KEYS.
func isTableOption(t token) bool {
	if t.kind != tokWord {
		return false
	}
	switch strings.ToUpper(t.text) {
	case "ALGORITHM", "LOCK", "FORCE", "ORDER", "ENABLE", "DISABLE", "ENGINE", "AUTO_INCREMENT", "COMMENT",
		"ROW_FORMAT", "KEY_BLOCK_SIZE", "STATS_PERSISTENT", "STATS_AUTO_RECALC", "STATS_SAMPLE_PAGES", "CHECKSUM",
		"TABLE_CHECKSUM", "PACK_KEYS", "DELAY_KEY_WRITE", "AVG_ROW_LENGTH", "MAX_ROWS", "MIN_ROWS", "TABLESPACE",
		"ENCRYPTION", "ENCRYPTED", "ENCRYPTION_KEY_ID", "COMPRESSION", "INSERT_METHOD", "CONNECTION", "DATA", "INDEX",
		"PAGE_CHECKSUM", "PAGE_COMPRESSED", "PAGE_COMPRESSION_LEVEL", "TRANSACTIONAL", "SECONDARY_ENGINE",
		"ENGINE_ATTRIBUTE", "SECONDARY_ENGINE_ATTRIBUTE", "WITH", "WITHOUT", "IETF_QUOTES", "SEQUENCE",
		"AUTOEXTEND_SIZE", "UNION", "STORAGE":
		return true
	}
	return false
}

// ifExists reads MariaDB's IF EXISTS.
func (p *parser) ifExists() bool {
	if p.peek().is("IF") && p.peekAt(1).is("EXISTS") {
		p.i += 2
		return true
	}
	return false
}

func (p *parser) ifNotExists() bool {
	if p.peek().is("IF") && p.peekAt(1).is("NOT") && p.peekAt(2).is("EXISTS") {
		p.i += 3
		return true
	}
	return false
}

// add reads ADD [COLUMN] col_def [FIRST | AFTER c], ADD [COLUMN] (col_def, ...), and the
// ADDs of keys and constraints.
func (p *parser) add(a *Alter, from int) error {
	column := p.accept("COLUMN")
	if !column {
		switch t := p.peek(); {
		case t.is("PRIMARY"):
			return p.unsupported(from, "the primary key changes")
		case t.is("CONSTRAINT"):
			// CONSTRAINT [symbol] PRIMARY KEY | UNIQUE | FOREIGN KEY | CHECK
			p.i++
			if !p.peek().is("PRIMARY") && !p.peek().is("UNIQUE") && !p.peek().is("FOREIGN") && !p.peek().is("CHECK") {
				p.i++
			}
			if p.peek().is("PRIMARY") {
				return p.unsupported(from, "the primary key changes")
			}
			p.skipClause()
			return nil
		case t.is("INDEX") || t.is("KEY") || t.is("UNIQUE") || t.is("FULLTEXT") || t.is("SPATIAL") ||
			t.is("FOREIGN") || t.is("CHECK") || t.is("PERIOD") || t.is("SYSTEM"):
			p.skipClause()
			return nil
		case t.is("PARTITION"):
			return p.unsupported(from, "partitions change which rows the table holds")
		}
	}
	ifNot := p.ifNotExists()
	if p.acceptPunct('(') {
		for {
			col, err := p.column()
			if err != nil {
				return err
			}
			a.Clauses = append(a.Clauses, Clause{Op: Add, Column: col, IfExists: ifNot})
			if p.acceptPunct(')') {
				return nil
			}
			if err := p.expectPunct(','); err != nil {
				return err
			}
			if p.peek().is("PRIMARY") || p.peek().is("INDEX") || p.peek().is("KEY") || p.peek().is("UNIQUE") || p.peek().is("CONSTRAINT") {
				return p.unsupported(from, "keys in a list of added columns")
			}
		}
	}
	return p.columnClause(a, Clause{Op: Add, IfExists: ifNot}, from)
}

// columnClause reads a column definition and its place, and adds the clause.
func (p *parser) columnClause(a *Alter, c Clause, from int) error {
	col, err := p.column()
	if err != nil {
		if ue, ok := err.(*UnsupportedError); ok {
			p.skipClause()
			return &UnsupportedError{Clause: p.text(from), Why: ue.Why}
		}
		return err
	}
	c.Column = col
	if err := p.place(&c); err != nil {
		return err
	}
	if c.Op == Change && c.Name == col.Name {
		c.Op, c.Name = Modify, ""
	}
	a.Clauses = append(a.Clauses, c)
	return nil
}

// place reads FIRST or AFTER c.
func (p *parser) place(c *Clause) error {
	switch {
	case p.accept("FIRST"):
		c.First = true
	case p.accept("AFTER"):
		var err error
		if c.After, err = p.name(); err != nil {
			return err
		}
	}
	return nil
}

// drop reads DROP [COLUMN] [IF EXISTS] c [RESTRICT | CASCADE] and the DROPs of keys.
func (p *parser) drop(a *Alter, from int) error {
	if !p.accept("COLUMN") {
		switch t := p.peek(); {
		case t.is("PRIMARY"):
			return p.unsupported(from, "the primary key changes")
		case t.is("INDEX") || t.is("KEY") || t.is("FOREIGN") || t.is("CHECK") || t.is("CONSTRAINT") || t.is("SYSTEM") || t.is("PERIOD"):
			p.skipClause()
			return nil
		case t.is("PARTITION"):
			return p.unsupported(from, "partitions change which rows the table holds")
		}
	}
	c := Clause{Op: Drop, IfExists: p.ifExists()}
	var err error
	if c.Name, err = p.name(); err != nil {
		return err
	}
	p.accept("RESTRICT", "CASCADE")
	a.Clauses = append(a.Clauses, c)
	return nil
}

// rename reads RENAME COLUMN a TO b; RENAME INDEX and KEY change no rows, RENAME [TO | AS]
// another table is not a change of columns.
func (p *parser) rename(a *Alter, from int) error {
	switch {
	case p.accept("COLUMN"):
		c := Clause{Op: Rename}
		var err error
		if c.Name, err = p.name(); err != nil {
			return err
		}
		if err := p.expect("TO"); err != nil {
			return err
		}
		if c.NewName, err = p.name(); err != nil {
			return err
		}
		a.Clauses = append(a.Clauses, c)
		return nil
	case p.peek().is("INDEX") || p.peek().is("KEY"):
		p.skipClause()
		return nil
	}
	return p.unsupported(from, "the table is renamed")
}

// tableCharset reads [DEFAULT] CHARACTER SET [=] cs [[DEFAULT] COLLATE [=] co] and
// [DEFAULT] COLLATE [=] co.
func (p *parser) tableCharset(a *Alter) error {
	for !p.clauseEnd() {
		p.accept("DEFAULT")
		switch {
		case p.accept("CHARSET"), p.peek().is("CHARACTER") && p.peekAt(1).is("SET") && p.accept("CHARACTER") && p.accept("SET"):
			p.acceptPunct('=')
			cs, err := p.name()
			if err != nil {
				return err
			}
			a.Charset = strings.ToLower(cs)
		case p.accept("COLLATE"):
			p.acceptPunct('=')
			co, err := p.name()
			if err != nil {
				return err
			}
			if a.Charset == "" {
				a.Charset = CharsetOfCollation(co)
			}
		default:
			return p.errorf("expected CHARACTER SET or COLLATE")
		}
	}
	return nil
}

// CharsetOfCollation is the character set a collation belongs to: the part of its name
// before the first underscore (utf8mb4_general_ci is utf8mb4's).
func CharsetOfCollation(co string) string {
	co = strings.ToLower(co)
	if i := strings.IndexByte(co, '_'); i > 0 {
		return co[:i]
	}
	return co
}

// back returns t, just read, to the input (the end of the input is never taken).
func (p *parser) back(t token) {
	if t.kind != tokEOF {
		p.i--
	}
}
