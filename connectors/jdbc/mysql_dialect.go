package jdbc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/connectors/internal/mysqltype"
	"github.com/strait-dev/strait/types"
)

// mysqlDialect is the SQL of MySQL and MariaDB: back-quoted names, INSERT ... ON DUPLICATE
// KEY UPDATE, and the types of SeaTunnel's MySqlTypeConverter.
type mysqlDialect struct{}

func (mysqlDialect) name() string { return dialectMySQL }

func (mysqlDialect) quoteIdent(s string) string { return mysqlQuote(s) }

// mysqlQuote quotes a MySQL identifier.
func mysqlQuote(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// upsertClause updates every column from the row that collided, as SeaTunnel's MySQL
// dialect does (VALUES(c), which MySQL 8 still accepts and MariaDB requires).
func (mysqlDialect) upsertClause(cols []string, _ []int) string {
	set := make([]string, len(cols))
	for i, c := range cols {
		set[i] = c + " = VALUES(" + c + ")"
	}
	return "ON DUPLICATE KEY UPDATE " + strings.Join(set, ", ")
}

// Limits of MySQL's column types, as SeaTunnel's converter has them.
const (
	mysqlMaxPrecision   = 65
	mysqlMaxScale       = 30
	mysqlMaxTimeScale   = 6
	mysqlMaxVarbinary   = 1<<16 - 4
	mysqlDefaultDecimal = 38
	mysqlDefaultScale   = 18
)

// columnType is the MySQL column a SeaTunnel column is created as: its source type when it
// is a MySQL type that reads back as the column's type (so a MySQL source's bit(8), json or
// enum stay what they are), else SeaTunnel's MySqlTypeConverter.reconvert of its type.
func (d mysqlDialect) columnType(col catalog.Column) (string, error) {
	if st := strings.TrimSpace(col.SourceType); st != "" {
		if mt, err := parseMySQLType(st); err == nil && mt.base != "timestamp" {
			if c, err := mt.column(col.Name); err == nil && c.Type.String() == col.Type.String() {
				return st, nil
			}
		}
	}
	return mysqlDDLType(col)
}

// mysqlDDLType is SeaTunnel's reconvert of a column's type.
func mysqlDDLType(col catalog.Column) (string, error) {
	t := col.Type
	switch t.Kind {
	case types.Boolean:
		return "tinyint(1)", nil
	case types.TinyInt:
		return "tinyint", nil
	case types.SmallInt:
		return "smallint", nil
	case types.Int:
		return "int", nil
	case types.BigInt:
		return "bigint", nil
	case types.Float:
		return "float", nil
	case types.Double:
		return "double", nil
	case types.Decimal:
		return mysqlDecimalDDL(t.Precision, t.Scale), nil
	case types.Bytes:
		n := col.Length
		switch {
		case n <= 0:
			return fmt.Sprintf("varbinary(%d)", mysqlMaxVarbinary/2), nil
		case n < mysqlMaxVarbinary:
			return fmt.Sprintf("varbinary(%d)", n), nil
		case n < 1<<24:
			return "mediumblob", nil
		}
		return "longblob", nil
	case types.String:
		n := col.Length
		switch {
		case n <= 0:
			return "longtext", nil
		case n < 1<<8:
			return fmt.Sprintf("varchar(%d)", n), nil
		case n < 1<<16:
			return "text", nil
		case n < 1<<24:
			return "mediumtext", nil
		}
		return "longtext", nil
	case types.Date:
		return "date", nil
	case types.Time:
		if s := min(col.Scale, mysqlMaxTimeScale); s > 0 {
			return fmt.Sprintf("time(%d)", s), nil
		}
		return "time", nil
	case types.Timestamp:
		if s := min(col.Scale, mysqlMaxTimeScale); s > 0 {
			return fmt.Sprintf("datetime(%d)", s), nil
		}
		return "datetime", nil
	}
	return "", fmt.Errorf("type %s has no MySQL column type", t)
}

// mysqlDecimalDDL fits a decimal into MySQL's: no precision is decimal(38,18); above 65
// digits the scale gives up what the precision must, and the scale is at most 30.
func mysqlDecimalDDL(p, s int) string {
	switch {
	case p <= 0:
		p, s = mysqlDefaultDecimal, mysqlDefaultScale
	case p > mysqlMaxPrecision:
		s = max(0, s-(p-mysqlMaxPrecision))
		p = mysqlMaxPrecision
	}
	s = min(max(s, 0), mysqlMaxScale)
	return fmt.Sprintf("decimal(%d,%d)", p, s)
}

// mysqlType is a MySQL column type as SHOW COLUMNS and information_schema write it:
// decimal(20,0) unsigned, enum('a','b'), tinyint(1), datetime(6).
type mysqlType struct {
	full     string // as written, lower case
	base     string // decimal, enum, tinyint, ...
	args     []int  // the numbers in parentheses
	unsigned bool
	members  []string // of enum and set
}

// parseMySQLType reads a column type.
func parseMySQLType(s string) (mysqlType, error) {
	t := mysqlType{full: strings.ToLower(strings.TrimSpace(s))}
	rest := t.full
	i := strings.IndexAny(rest, "( ")
	if i < 0 {
		i = len(rest)
	}
	t.base, rest = rest[:i], rest[i:]
	if strings.HasPrefix(rest, "(") {
		j := strings.LastIndexByte(rest, ')')
		if j < 0 {
			return t, fmt.Errorf("type %q: unbalanced parentheses", s)
		}
		inner := rest[1:j]
		rest = rest[j+1:]
		if t.base == "enum" || t.base == "set" {
			t.members = mysqltype.Members(inner)
		} else {
			for _, a := range strings.Split(inner, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(a))
				if err != nil {
					return t, fmt.Errorf("type %q: bad size %q", s, a)
				}
				t.args = append(t.args, n)
			}
		}
	}
	for _, w := range strings.Fields(rest) {
		switch w {
		case "unsigned":
			t.unsigned = true
		case "signed", "zerofill":
		default:
			if t.base == "double" && w == "precision" {
				continue
			}
			return t, fmt.Errorf("type %q: unknown word %q", s, w)
		}
	}
	if t.base == "" {
		return t, fmt.Errorf("type %q: no type name", s)
	}
	return t, nil
}

// arg is the i-th number in parentheses, def without it.
func (t mysqlType) arg(i int, def int) int {
	if i < len(t.args) {
		return t.args[i]
	}
	return def
}

// mysqlDecoding is how a column's text value becomes a row value.
type mysqlDecoding uint8

const (
	myInt     mysqlDecoding = iota // integers, year
	myBool                         // tinyint(1)
	myBitBool                      // bit(1): one byte
	myDecimal                      // decimal, bigint unsigned
	myFloat
	myDouble
	myString // text, enum, set, json
	myBytes  // binary, blob, bit(n), geometry
	myDate
	myTime
	myDatetime
)

// mysqlColumn is a column of a MySQL table or query as the connector reads it.
type mysqlColumn struct {
	catalog.Column
	dec mysqlDecoding
}

// column maps a MySQL column type to its SeaTunnel type as SeaTunnel's MySqlTypeConverter
// does: tinyint(1) and bit(1) are booleans, unsigned integers widen to the next type
// (bigint unsigned to decimal(20,0)), decimal keeps its precision and scale (one digit more
// when unsigned; above 38 digits decimal(38,18)), text, enum, set and json are strings,
// binary types, bit(n) and geometry bytes, year an int, datetime and timestamp timestamps.
func (t mysqlType) column(name string) (mysqlColumn, error) {
	c := mysqlColumn{Column: catalog.Column{Name: name, Nullable: true, SourceType: t.full}}
	set := func(k types.Kind, d mysqlDecoding) { c.Type, c.dec = types.Of(k), d }
	switch t.base {
	case "bit":
		if n := t.arg(0, 1); n > 1 {
			set(types.Bytes, myBytes)
			c.Length = int64((n + 7) / 8)
		} else {
			set(types.Boolean, myBitBool)
		}
	case "tinyint":
		switch {
		case t.unsigned:
			set(types.SmallInt, myInt)
		case t.full == "tinyint(1)":
			set(types.Boolean, myBool)
		default:
			set(types.TinyInt, myInt)
		}
	case "smallint":
		set(types.SmallInt, myInt)
		if t.unsigned {
			set(types.Int, myInt)
		}
	case "mediumint", "year":
		set(types.Int, myInt)
	case "int", "integer":
		set(types.Int, myInt)
		if t.unsigned {
			set(types.BigInt, myInt)
		}
	case "bigint":
		set(types.BigInt, myInt)
		if t.unsigned {
			c.Type, c.dec, c.Length = types.DecimalOf(20, 0), myDecimal, 20
		}
	case "float":
		set(types.Float, myFloat)
	case "double", "real":
		set(types.Double, myDouble)
	case "decimal", "numeric", "dec", "fixed":
		p, s := t.arg(0, 10), t.arg(1, 0)
		switch {
		case t.unsigned:
			p++
		case p > mysqlDefaultDecimal:
			p, s = mysqlDefaultDecimal, mysqlDefaultScale
		}
		c.Type, c.dec, c.Length, c.Scale = types.DecimalOf(p, s), myDecimal, int64(p), s
	case "enum", "set":
		set(types.String, myString)
		c.Length = 100
		for _, m := range t.members {
			c.Length = max(c.Length, int64(len(m)))
		}
	case "char", "varchar":
		set(types.String, myString)
		c.Length = int64(t.arg(0, 4))
	case "tinytext", "text", "mediumtext", "longtext":
		set(types.String, myString)
		c.Length = textLengths[t.base]
	case "json":
		set(types.String, myString)
	case "binary", "varbinary":
		set(types.Bytes, myBytes)
		c.Length = int64(t.arg(0, 1))
	case "tinyblob", "blob", "mediumblob", "longblob":
		set(types.Bytes, myBytes)
		c.Length = textLengths[strings.Replace(t.base, "blob", "text", 1)]
	case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection", "geomcollection":
		set(types.Bytes, myBytes)
	case "date":
		set(types.Date, myDate)
	case "time":
		set(types.Time, myTime)
		c.Scale = t.arg(0, 0)
	case "datetime", "timestamp":
		set(types.Timestamp, myDatetime)
		c.Scale = t.arg(0, 0)
	default:
		return c, fmt.Errorf("column %s: type %s is not supported (SeaTunnel's MySQL type converter maps no such type)", name, t.full)
	}
	return c, nil
}

// textLengths are the byte lengths of the text (and blob) kinds.
var textLengths = map[string]int64{"tinytext": 1<<8 - 1, "text": 1<<16 - 1, "mediumtext": 1<<24 - 1, "longtext": 1<<32 - 1}
