package ddl

import (
	"strconv"
	"strings"
)

// typeAliases are the type names MySQL reads as another: the DATA_TYPE information_schema
// shows for them.
var typeAliases = map[string]string{
	"integer": "int", "int4": "int", "int1": "tinyint", "int2": "smallint", "int3": "mediumint",
	"middleint": "mediumint", "int8": "bigint", "dec": "decimal", "numeric": "decimal", "fixed": "decimal",
	"float4": "float", "float8": "double", "real": "double", "character": "char", "nchar": "char",
	"nvarchar": "varchar", "varchar2": "varchar", "bool": "tinyint", "boolean": "tinyint",
}

// knownTypes are the data types a definition may name (after typeAliases).
var knownTypes = map[string]bool{
	"bit": true, "tinyint": true, "smallint": true, "mediumint": true, "int": true, "bigint": true,
	"decimal": true, "float": true, "double": true, "date": true, "datetime": true, "timestamp": true,
	"time": true, "year": true, "char": true, "varchar": true, "binary": true, "varbinary": true,
	"tinyblob": true, "blob": true, "mediumblob": true, "longblob": true, "tinytext": true, "text": true,
	"mediumtext": true, "longtext": true, "enum": true, "set": true, "json": true, "geometry": true,
	"point": true, "linestring": true, "polygon": true, "multipoint": true, "multilinestring": true,
	"multipolygon": true, "geometrycollection": true, "geomcollection": true, "serial": true,
	"uuid": true, "inet4": true, "inet6": true, "vector": true,
}

// column reads a column definition: its name, its type and its attributes, up to the
// clause's end, a FIRST or an AFTER.
func (p *parser) column() (*Column, error) {
	name, err := p.name()
	if err != nil {
		return nil, err
	}
	c := &Column{Name: name, Nullable: true, Length: -1}
	if err := p.dataType(c); err != nil {
		return nil, err
	}
	for !p.columnEnd() {
		if err := p.attribute(c); err != nil {
			return nil, err
		}
	}
	if c.Charset == "" && c.Collation != "" {
		c.Charset = CharsetOfCollation(c.Collation)
	}
	return c, nil
}

// columnEnd reports whether a column definition ends here.
func (p *parser) columnEnd() bool {
	t := p.peek()
	return p.clauseEnd() || t.punct(')') || t.is("FIRST") || t.is("AFTER") || t.is("PARTITION")
}

// dataType reads a type: its name (one word or two), its parentheses and its modifiers.
func (p *parser) dataType(c *Column) error {
	t := p.peek()
	if t.kind != tokWord {
		return p.errorf("expected a data type")
	}
	p.i++
	name := strings.ToLower(t.text)
	switch name {
	case "double":
		p.accept("PRECISION")
	case "national":
		if !p.accept("CHAR", "CHARACTER", "VARCHAR") {
			return p.errorf("expected CHAR or VARCHAR")
		}
		name = strings.ToLower(p.toks[p.i-1].text)
		if name != "varchar" && p.accept("VARYING") {
			name = "varchar"
		}
	case "char", "character":
		if p.accept("VARYING") {
			name = "varchar"
		}
	case "long":
		switch {
		case p.accept("VARBINARY"):
			name = "mediumblob"
		default:
			p.accept("VARCHAR")
			name = "mediumtext"
		}
	}
	boolean := name == "bool" || name == "boolean"
	if a, ok := typeAliases[name]; ok {
		name = a
	}
	if !knownTypes[name] {
		p.i--
		return p.errorf("unknown data type %q", t.text)
	}
	c.DataType = name
	args, err := p.typeArgs(c)
	if err != nil {
		return err
	}
	if boolean {
		args = "1"
	}
	zerofill := false
	for {
		switch {
		case p.accept("UNSIGNED"):
			c.Unsigned = true
		case p.accept("SIGNED"):
		case p.accept("ZEROFILL"):
			c.Unsigned, zerofill = true, true
		case p.accept("BINARY"):
			if c.Collation == "" {
				c.Collation = "binary"
			}
		case p.accept("ASCII"):
			c.Charset = "latin1"
		case p.accept("UNICODE"):
			c.Charset = "ucs2"
		case p.accept("BYTE"):
			c.Charset = "binary"
		default:
			c.ColumnType = columnType(c, args, zerofill)
			return nil
		}
	}
}

// typeArgs reads a type's parentheses: a length, a precision and a scale, or an enum's or
// a set's members. It returns their text as information_schema writes it.
func (p *parser) typeArgs(c *Column) (string, error) {
	if !p.acceptPunct('(') {
		return "", nil
	}
	var parts []string
	for {
		t := p.next()
		switch {
		case t.kind == tokString && (c.DataType == "enum" || c.DataType == "set"):
			parts = append(parts, "'"+strings.ReplaceAll(t.text, "'", "''")+"'")
		case t.kind == tokNumber && c.DataType != "enum" && c.DataType != "set":
			if _, err := strconv.Atoi(t.text); err != nil {
				p.back(t)
				return "", p.errorf("expected a whole number")
			}
			parts = append(parts, t.text)
		default:
			p.back(t)
			return "", p.errorf("expected the type's arguments")
		}
		if p.acceptPunct(')') {
			break
		}
		if err := p.expectPunct(','); err != nil {
			return "", err
		}
	}
	if len(parts) > 2 && c.DataType != "enum" && c.DataType != "set" {
		return "", p.errorf("%s takes at most two numbers", c.DataType)
	}
	if c.DataType != "enum" && c.DataType != "set" {
		c.Length, _ = strconv.Atoi(parts[0])
		if c.DataType == "decimal" {
			c.Precision = c.Length
			if len(parts) == 2 {
				c.Scale, _ = strconv.Atoi(parts[1])
			}
		}
	}
	return strings.Join(parts, ","), nil
}

// columnType writes COLUMN_TYPE: the type with its arguments (a decimal's defaults, a
// char's length of one) and unsigned, and DATA_TYPE for the aliases MySQL expands.
func columnType(c *Column, args string, zerofill bool) string {
	switch c.DataType {
	case "decimal":
		if args == "" {
			c.Precision, c.Scale = 10, 0
		}
		if c.Length >= 0 && !strings.Contains(args, ",") {
			args += ",0"
		}
		if args == "" {
			args = "10,0"
		}
	case "char", "binary":
		if args == "" {
			args, c.Length = "1", 1
		}
	case "serial":
		c.DataType, c.Unsigned, c.Nullable, c.AutoIncrement = "bigint", true, false, true
	case "float":
		// FLOAT(p) of more than 24 bits of precision is a DOUBLE
		if c.Length > 24 && !strings.Contains(args, ",") {
			c.DataType, args = "double", ""
		} else if !strings.Contains(args, ",") {
			args = ""
		}
	}
	s := c.DataType
	if args != "" {
		s += "(" + args + ")"
	}
	if c.Unsigned {
		s += " unsigned"
	}
	if zerofill {
		s += " zerofill"
	}
	return s
}

// attribute reads one attribute of a column definition.
func (p *parser) attribute(c *Column) error {
	from := p.i
	t := p.next()
	switch {
	case t.is("NOT"):
		if err := p.expect("NULL"); err != nil {
			return err
		}
		c.Nullable = false
	case t.is("NULL"):
		c.Nullable = true
	case t.is("DEFAULT"):
		v, err := p.value()
		if err != nil {
			return err
		}
		c.Default = v
		if strings.EqualFold(v, "NULL") {
			c.Default = ""
		}
	case t.is("ON"):
		if err := p.expect("UPDATE"); err != nil {
			return err
		}
		v, err := p.value()
		if err != nil {
			return err
		}
		c.OnUpdate = v
	case t.is("AUTO_INCREMENT"):
		c.AutoIncrement = true
	case t.is("UNIQUE"):
		p.accept("KEY")
	case t.is("PRIMARY") || t.is("KEY"):
		return &UnsupportedError{Clause: p.text(from), Why: "the primary key changes"}
	case t.is("COMMENT"):
		s := p.next()
		if s.kind != tokString {
			p.back(s)
			return p.errorf("expected the comment's text")
		}
		c.Comment = s.text
	case t.is("COLLATE"):
		p.acceptPunct('=')
		co, err := p.name()
		if err != nil {
			return err
		}
		c.Collation = strings.ToLower(co)
	case t.is("CHARSET") || t.is("CHARACTER"):
		if t.is("CHARACTER") {
			if err := p.expect("SET"); err != nil {
				return err
			}
		}
		cs, err := p.name()
		if err != nil {
			return err
		}
		c.Charset = strings.ToLower(cs)
	case t.is("COLUMN_FORMAT") || t.is("STORAGE"):
		p.next()
	case t.is("VISIBLE") || t.is("INVISIBLE"):
	case t.is("ENGINE_ATTRIBUTE") || t.is("SECONDARY_ENGINE_ATTRIBUTE"):
		p.acceptPunct('=')
		p.next()
	case t.is("GENERATED") || t.is("AS"):
		return &UnsupportedError{Clause: p.text(from), Why: "a generated column"}
	case t.is("CHECK"):
		return p.skipParens()
	case t.is("CONSTRAINT"):
		if !p.peek().is("CHECK") {
			p.next()
		}
		if err := p.expect("CHECK"); err != nil {
			return err
		}
		return p.skipParens()
	case t.is("REFERENCES"):
		return p.reference()
	default:
		p.back(t)
		return p.errorf("unexpected %s in the definition of column %s", t.raw, c.Name)
	}
	return nil
}

// value reads a default or ON UPDATE value and returns its text as written: a literal
// (with its sign, its character set introducer, b'...' and x'...'), a name with its
// arguments (CURRENT_TIMESTAMP(3), NOW()) or a parenthesised expression.
func (p *parser) value() (string, error) {
	from := p.i
	if p.acceptPunct('-') || p.acceptPunct('+') {
		if t := p.next(); t.kind != tokNumber {
			p.back(t)
			return "", p.errorf("expected a number")
		}
		return p.text(from), nil
	}
	t := p.next()
	switch t.kind {
	case tokNumber, tokString:
		return p.text(from), nil
	case tokWord:
		if s := p.peek(); s.kind == tokString && s.pos == t.pos+len(t.raw) {
			p.i++ // b'01', x'1f', N'text', _utf8mb4'text'
			return p.text(from), nil
		}
		if p.peek().punct('(') {
			if err := p.skipParens(); err != nil {
				return "", err
			}
		}
		return p.text(from), nil
	case tokPunct:
		if t.punct('(') {
			p.back(t)
			if err := p.skipParens(); err != nil {
				return "", err
			}
			return p.text(from), nil
		}
	}
	p.back(t)
	return "", p.errorf("expected a value")
}

// skipParens passes a parenthesised text, nested parentheses and all.
func (p *parser) skipParens() error {
	if err := p.expectPunct('('); err != nil {
		return err
	}
	for depth := 1; depth > 0; {
		t := p.next()
		switch {
		case t.kind == tokEOF:
			return p.errorf("expected %q", ')')
		case t.punct('('):
			depth++
		case t.punct(')'):
			depth--
		}
	}
	return nil
}

// reference passes a REFERENCES clause: the table, its columns and its actions.
func (p *parser) reference() error {
	if _, err := p.name(); err != nil {
		return err
	}
	if p.acceptPunct('.') {
		if _, err := p.name(); err != nil {
			return err
		}
	}
	if p.peek().punct('(') {
		if err := p.skipParens(); err != nil {
			return err
		}
	}
	for {
		switch {
		case p.accept("MATCH"):
			p.next()
		case p.accept("ON"):
			if !p.accept("DELETE", "UPDATE") {
				return p.errorf("expected DELETE or UPDATE")
			}
			switch {
			case p.accept("SET"):
				p.next()
			case p.accept("NO"):
				if err := p.expect("ACTION"); err != nil {
					return err
				}
			default:
				p.next()
			}
		default:
			return nil
		}
	}
}
