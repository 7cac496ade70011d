package mysqlcdc

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/strait-dev/strait/catalog"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connectors/internal/binlog"
	"github.com/strait-dev/strait/connectors/internal/mysqltype"
	"github.com/strait-dev/strait/connectors/mysqlcdc/ddl"
	"github.com/strait-dev/strait/row"
	"github.com/strait-dev/strait/types"
)

// cdcTable is one captured table: its catalog table and how its values are decoded.
type cdcTable struct {
	table  *catalog.Table
	id     string // database.table: the table id of its rows
	name   tableName
	cols   []column
	sql    string         // SELECT of every column
	key    string         // the integer column snapshot splits are ranges of; "" for one split
	keyCol int            // its index
	keyIdx []int          // the primary key's columns (configured or the table's)
	dbz    *debeziumTable // with format compatible_debezium_json: how its changes are written
	// charset is the table's default character set: that of a text column added without
	// one of its own
	charset string
}

// decoding says how a column's values become Strait values.
type decoding uint8

const (
	decInt       decoding = iota // a signed integer of the column's kind
	decUint                      // an unsigned integer, widened
	decUint64                    // BIGINT UNSIGNED: decimal(20,0)
	decBool                      // TINYINT(1) and BIT(1)
	decBits                      // BIT(n): bytes
	decFloat                     // FLOAT
	decDouble                    // DOUBLE
	decDecimal                   // DECIMAL
	decString                    // text types, JSON
	decEnum                      // ENUM: the member's name
	decSet                       // SET: the members' names joined by commas
	decBytes                     // binary types, GEOMETRY
	decDate                      // DATE
	decTime                      // TIME
	decDatetime                  // DATETIME: the local date and time
	decTimestamp                 // TIMESTAMP: an instant, shown in server-time-zone
	decYear                      // YEAR
)

// column is one column of a captured table.
type column struct {
	name    string
	dataTyp string // DATA_TYPE: int, varchar...
	colTyp  string // COLUMN_TYPE: int(10) unsigned...
	typ     types.DataType
	dec     decoding
	bits    int // BIT's width
	members []string
	enc     encoding.Encoding // a text column's character set, when it is not UTF-8 or ASCII: the log has its bytes
	frac    int               // DATETIME's and TIMESTAMP's digits of fractional seconds
	// what it was made of (columnOf's arguments), kept with the log split's tables
	prec, scale int
	charset     string
}

// resolve learns one table's columns, keys and split column.
func (s *Source) resolve(ctx context.Context, db *sql.DB, o *config.Options, key string, n tableName, pk []string) (*cdcTable, error) {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COALESCE(NUMERIC_PRECISION, 0),
			COALESCE(NUMERIC_SCALE, 0), COALESCE(DATETIME_PRECISION, 0), COALESCE(CHARACTER_SET_NAME, ''), COLUMN_KEY, COLUMN_COMMENT
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, n.db, n.table)
	if err != nil {
		return nil, fmt.Errorf("%s: look up table %s: %s", s.where, n, errorText(err))
	}
	defer rows.Close()
	t := &cdcTable{name: n, id: n.String(), keyCol: -1}
	tbl := &catalog.Table{Path: catalog.TablePath{Database: n.db, Table: n.table}}
	var pkCols []string
	for rows.Next() {
		var name, dataType, colType, nullable, charset, colKey, comment string
		var prec, scale, dtPrec int64
		if err := rows.Scan(&name, &dataType, &colType, &nullable, &prec, &scale, &dtPrec, &charset, &colKey, &comment); err != nil {
			return nil, fmt.Errorf("%s: look up table %s: %s", s.where, n, errorText(err))
		}
		c, err := columnOf(name, dataType, colType, int(prec), int(scale), charset)
		if err != nil {
			return nil, o.Errorf(key, "table %s, column %q: %v", n, name, err)
		}
		c.frac = int(dtPrec)
		t.cols = append(t.cols, c)
		tbl.Columns = append(tbl.Columns, catalog.Column{Name: name, Type: c.typ, Nullable: nullable == "YES",
			Scale: c.typ.Scale, Comment: comment, SourceType: colType})
		if colKey == "PRI" {
			pkCols = append(pkCols, name)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: look up table %s: %s", s.where, n, errorText(err))
	}
	if len(t.cols) == 0 {
		return nil, o.Errorf(key, "table %s does not exist (or user %s may not read it)", n, s.bcfg.User)
	}
	if len(pkCols) > 0 {
		// in the key's own order
		if pkCols, err = primaryKey(ctx, db, n); err != nil {
			return nil, fmt.Errorf("%s: read the primary key of table %s: %s", s.where, n, errorText(err))
		}
		tbl.PrimaryKey = &catalog.PrimaryKey{Name: "PRIMARY", Columns: pkCols}
	}
	if pk != nil {
		for _, c := range pk {
			if tbl.ColumnIndex(c) < 0 {
				return nil, o.Errorf("table-names-config", "table %s has no column %q for its primary key", n, c)
			}
		}
		tbl.PrimaryKey = &catalog.PrimaryKey{Name: "pk_" + n.table, Columns: pk}
	}
	var sel []string
	for _, c := range t.cols {
		sel = append(sel, quoteIdent(c.name))
	}
	t.sql = "SELECT " + strings.Join(sel, ", ") + " FROM " + quoteIdent(n.db) + "." + quoteIdent(n.table)
	if tbl.PrimaryKey != nil {
		for _, c := range tbl.PrimaryKey.Columns {
			t.keyIdx = append(t.keyIdx, tbl.ColumnIndex(c))
		}
		if j := t.keyIdx[0]; t.cols[j].typ.Kind.IsInteger() && t.cols[j].dec != decUint64 {
			t.key, t.keyCol = t.cols[j].name, j
		}
	}
	t.table = tbl
	if s.evolve {
		if t.charset, err = tableCharset(ctx, db, n); err != nil {
			return nil, fmt.Errorf("%s: read the character set of table %s: %s", s.where, n, errorText(err))
		}
	}
	return t, nil
}

// tableCharset reads a table's default character set: that of its collation.
func tableCharset(ctx context.Context, db *sql.DB, n tableName) (string, error) {
	var collation sql.NullString
	err := db.QueryRowContext(ctx, "SELECT TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", n.db, n.table).Scan(&collation)
	if err != nil {
		return "", err
	}
	return ddl.CharsetOfCollation(collation.String), nil
}

func primaryKey(ctx context.Context, db *sql.DB, n tableName) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`, n.db, n.table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// charsets are the character sets of text columns Strait reads: those the server sends as
// UTF-8 bytes (nil), and those whose bytes the log holds as they are stored, decoded here.
// The snapshot's text comes converted to the session's utf8mb4 by the server.
var charsets = map[string]encoding.Encoding{
	"": nil, "utf8": nil, "utf8mb3": nil, "utf8mb4": nil, "ascii": nil, "binary": nil,
	"latin1": charmap.Windows1252, // MySQL's latin1 is cp1252
	"latin2": charmap.ISO8859_2, "greek": charmap.ISO8859_7, "hebrew": charmap.ISO8859_8, "latin5": charmap.ISO8859_9,
	"latin7": charmap.ISO8859_13, "cp1250": charmap.Windows1250, "cp1251": charmap.Windows1251,
	"cp1256": charmap.Windows1256, "cp1257": charmap.Windows1257, "koi8r": charmap.KOI8R, "koi8u": charmap.KOI8U,
	"cp850": charmap.CodePage850, "cp852": charmap.CodePage852, "cp866": charmap.CodePage866,
	"gbk": simplifiedchinese.GBK, "gb2312": simplifiedchinese.GBK, "gb18030": simplifiedchinese.GB18030,
	"big5": traditionalchinese.Big5, "sjis": japanese.ShiftJIS, "cp932": japanese.ShiftJIS,
	"ujis": japanese.EUCJP, "eucjpms": japanese.EUCJP, "euckr": korean.EUCKR,
}

// charsetNames lists charsets for errors.
const charsetNames = "utf8, utf8mb4, ascii, latin1, latin2, latin5, latin7, greek, hebrew, cp1250, cp1251, cp1256, cp1257, cp850, cp852, cp866, koi8r, koi8u, gbk, gb2312, gb18030, big5, sjis, cp932, ujis, eucjpms and euckr"

// columnOf maps a MySQL column to its Strait type, as SeaTunnel's MySQL type converter does:
// TINYINT(1) and BIT(1) are booleans, unsigned integers widen to the next type (BIGINT
// UNSIGNED to decimal(20,0)), DECIMAL keeps its precision and scale (one more digit when
// unsigned; above 38 digits decimal(38,18)), text, ENUM, SET and JSON are strings, binary
// types, BIT(n) and GEOMETRY bytes, YEAR an int, DATETIME and TIMESTAMP timestamps.
func columnOf(name, dataType, colType string, prec, scale int, charset string) (column, error) {
	c := column{name: name, dataTyp: strings.ToLower(dataType), colTyp: strings.ToLower(colType), prec: prec, scale: scale, charset: charset}
	unsigned := strings.Contains(c.colTyp, "unsigned")
	enc, ok := charsets[charset]
	if !ok {
		return c, fmt.Errorf("character set %s is not supported (Strait reads %s text)", charset, charsetNames)
	}
	c.enc = enc
	switch c.dataTyp {
	case "tinyint":
		switch {
		case strings.HasPrefix(c.colTyp, "tinyint(1)") && !unsigned:
			c.typ, c.dec = types.Of(types.Boolean), decBool
		case unsigned:
			c.typ, c.dec = types.Of(types.SmallInt), decUint
		default:
			c.typ, c.dec = types.Of(types.TinyInt), decInt
		}
	case "smallint":
		c.typ, c.dec = intType(unsigned, types.SmallInt, types.Int)
	case "mediumint":
		c.typ, c.dec = types.Of(types.Int), decInt
		if unsigned {
			c.dec = decUint
		}
	case "int", "integer":
		c.typ, c.dec = intType(unsigned, types.Int, types.BigInt)
	case "bigint":
		c.typ, c.dec = types.Of(types.BigInt), decInt
		if unsigned {
			c.typ, c.dec = types.DecimalOf(20, 0), decUint64
		}
	case "float":
		c.typ, c.dec = types.Of(types.Float), decFloat
	case "double", "real", "double precision":
		c.typ, c.dec = types.Of(types.Double), decDouble
	case "decimal", "numeric":
		if unsigned {
			prec++
		}
		if prec > 38 {
			prec, scale = 38, min(scale, 18)
		}
		c.typ, c.dec = types.DecimalOf(prec, scale), decDecimal
	case "bit":
		c.bits = 1
		if i := strings.IndexByte(c.colTyp, '('); i >= 0 {
			c.bits, _ = strconv.Atoi(strings.TrimSuffix(c.colTyp[i+1:], ")"))
		}
		c.typ, c.dec = types.Of(types.Bytes), decBits
		if c.bits <= 1 {
			c.typ, c.dec = types.Of(types.Boolean), decBool
		}
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "json":
		c.typ, c.dec = types.Of(types.String), decString
	case "enum", "set":
		c.typ, c.dec = types.Of(types.String), decEnum
		if c.dataTyp == "set" {
			c.dec = decSet
		}
		c.members = mysqltype.TypeMembers(colType)
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob",
		"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection", "geomcollection":
		c.typ, c.dec = types.Of(types.Bytes), decBytes
	case "date":
		c.typ, c.dec = types.Of(types.Date), decDate
	case "time":
		c.typ, c.dec = types.Of(types.Time), decTime
	case "datetime":
		c.typ, c.dec = types.Of(types.Timestamp), decDatetime
	case "timestamp":
		c.typ, c.dec = types.Of(types.Timestamp), decTimestamp
	case "year":
		c.typ, c.dec = types.Of(types.Int), decYear
	default:
		return c, fmt.Errorf("type %s is not supported", colType)
	}
	return c, nil
}

func intType(unsigned bool, signed, widened types.Kind) (types.DataType, decoding) {
	if unsigned {
		return types.Of(widened), decUint
	}
	return types.Of(signed), decInt
}

// ---- values of the snapshot (the text protocol) ----

// fromText decodes a value of the snapshot, which the server sends as text (the session's
// time zone is UTC).
func (c *column) fromText(v *row.Value, b []byte, loc *time.Location) error {
	if b == nil {
		v.SetNull()
		return nil
	}
	switch c.dec {
	case decInt, decUint, decYear:
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("bad integer %q", b)
		}
		v.SetScalar(c.typ.Kind, n)
	case decUint64, decDecimal:
		return c.decimal(v, b)
	case decBool:
		if c.dataTyp == "bit" {
			v.SetScalar(types.Boolean, int64(b[len(b)-1]&1))
			return nil
		}
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return fmt.Errorf("bad boolean %q", b)
		}
		v.SetScalar(types.Boolean, boolInt(n != 0))
	case decBits, decBytes:
		*v = row.BytesValue(b)
	case decFloat:
		f, err := strconv.ParseFloat(string(b), 32)
		if err != nil {
			return fmt.Errorf("bad float %q", b)
		}
		*v = row.FloatValue(float32(f))
	case decDouble:
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return fmt.Errorf("bad double %q", b)
		}
		*v = row.DoubleValue(f)
	case decString, decEnum, decSet:
		v.SetString(string(b))
	case decDate:
		t, ok := parseTemporal(string(b))
		if !ok {
			return fmt.Errorf("bad date %q", b)
		}
		setDate(v, t)
	case decTime:
		t, ok := parseTime(string(b))
		if !ok {
			return fmt.Errorf("bad time %q", b)
		}
		return c.setTime(v, t)
	case decDatetime, decTimestamp:
		t, ok := parseTemporal(string(b))
		if !ok {
			return fmt.Errorf("bad date and time %q", b)
		}
		if c.dec == decTimestamp && t.Year != 0 {
			u := time.Date(t.Year, time.Month(t.Month), t.Day, t.Hour, t.Minute, t.Second, t.Micros*1000, time.UTC)
			setTimestamp(v, u.UnixMicro(), loc)
			return nil
		}
		setDatetime(v, t)
	}
	return nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// parseTemporal reads 2024-02-29 and 2024-02-29 13:45:56.123456.
func parseTemporal(s string) (binlog.Temporal, bool) {
	var t binlog.Temporal
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return t, false
	}
	var ok1, ok2, ok3 bool
	t.Year, ok1 = atoi(s[0:4])
	t.Month, ok2 = atoi(s[5:7])
	t.Day, ok3 = atoi(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return t, false
	}
	if len(s) == 10 {
		return t, true
	}
	c, ok := parseTime(s[11:])
	t.Hour, t.Minute, t.Second, t.Micros = c.Hour, c.Minute, c.Second, c.Micros
	return t, ok && s[10] == ' '
}

// parseTime reads [-]838:59:59.000000.
func parseTime(s string) (binlog.Temporal, bool) {
	var t binlog.Temporal
	if strings.HasPrefix(s, "-") {
		t.Negative, s = true, s[1:]
	}
	frac := ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s, frac = s[:i], s[i+1:]
	}
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return t, false
	}
	var ok1, ok2, ok3 bool
	t.Hour, ok1 = atoi(parts[0])
	t.Minute, ok2 = atoi(parts[1])
	t.Second, ok3 = atoi(parts[2])
	if frac != "" {
		frac = (frac + "000000")[:6]
		var ok bool
		if t.Micros, ok = atoi(frac); !ok {
			return t, false
		}
	}
	return t, ok1 && ok2 && ok3
}

func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// ---- values of the log ----

// fromLog decodes a value of a row image of the log.
func (c *column) fromLog(v *row.Value, x *binlog.Value, loc *time.Location) error {
	if x.Null || x.Absent {
		v.SetNull()
		return nil
	}
	switch c.dec {
	case decInt:
		v.SetScalar(c.typ.Kind, x.Int)
	case decUint:
		v.SetScalar(c.typ.Kind, int64(x.Uint()))
	case decYear:
		v.SetScalar(types.Int, x.Int)
	case decUint64:
		*v = row.DecimalValue(new(big.Int).SetUint64(x.Uint()), 0)
	case decDecimal:
		return c.decimal(v, x.Bytes)
	case decBool:
		v.SetScalar(types.Boolean, boolInt(x.Int != 0))
	case decBits:
		n := (c.bits + 7) / 8
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], uint64(x.Int))
		*v = row.BytesValue(buf[8-n:])
	case decBytes:
		*v = row.BytesValue(x.Bytes)
	case decFloat:
		*v = row.FloatValue(float32(x.Float))
	case decDouble:
		*v = row.DoubleValue(x.Float)
	case decString:
		if c.enc != nil {
			s, err := c.enc.NewDecoder().Bytes(x.Bytes)
			if err != nil {
				return fmt.Errorf("text not in its character set: %v", err)
			}
			v.SetString(string(s))
			return nil
		}
		v.SetString(string(x.Bytes))
	case decEnum:
		switch {
		case x.Int == 0:
			v.SetString("")
		case int(x.Int) <= len(c.members):
			v.SetString(c.members[x.Int-1])
		default:
			return fmt.Errorf("ENUM index %d beyond its %d members", x.Int, len(c.members))
		}
	case decSet:
		var b strings.Builder
		for i, m := range c.members {
			if x.Int&(1<<i) != 0 {
				if b.Len() > 0 {
					b.WriteByte(',')
				}
				b.WriteString(m)
			}
		}
		v.SetString(b.String())
	case decDate:
		setDate(v, x.Time)
	case decTime:
		return c.setTime(v, x.Time)
	case decDatetime:
		setDatetime(v, x.Time)
	case decTimestamp:
		if x.Int == 0 {
			v.SetNull() // the zero TIMESTAMP
			return nil
		}
		setTimestamp(v, x.Int, loc)
	}
	return nil
}

// setDate sets a date; the zero date (0000-00-00) and dates with a zero month or day are
// NULL, as Debezium reads them.
func setDate(v *row.Value, t binlog.Temporal) {
	if t.Year == 0 || t.Month == 0 || t.Day == 0 {
		v.SetNull()
		return
	}
	d := time.Date(t.Year, time.Month(t.Month), t.Day, 0, 0, 0, 0, time.UTC)
	v.SetScalar(types.Date, d.Unix()/86400)
}

func setDatetime(v *row.Value, t binlog.Temporal) {
	if t.Year == 0 || t.Month == 0 || t.Day == 0 {
		v.SetNull()
		return
	}
	d := time.Date(t.Year, time.Month(t.Month), t.Day, t.Hour, t.Minute, t.Second, t.Micros*1000, time.UTC)
	v.SetScalar(types.Timestamp, d.UnixNano())
}

// setTimestamp sets the local date and time, in loc, of an instant given in microseconds.
func setTimestamp(v *row.Value, micros int64, loc *time.Location) {
	t := time.UnixMicro(micros).In(loc)
	_, off := t.Zone()
	v.SetScalar(types.Timestamp, (micros+int64(off)*1e6)*1000)
}

// setTime sets a time of day; MySQL's TIME also holds negative durations and durations of
// more than a day, which Strait's time type cannot.
func (c *column) setTime(v *row.Value, t binlog.Temporal) error {
	if t.Negative || t.Hour > 23 {
		sign := ""
		if t.Negative {
			sign = "-"
		}
		return fmt.Errorf("TIME value %s%02d:%02d:%02d is not a time of day, the only TIME values Strait's time type holds", sign, t.Hour, t.Minute, t.Second)
	}
	n := (int64(t.Hour)*3600+int64(t.Minute)*60+int64(t.Second))*1e9 + int64(t.Micros)*1000
	v.SetScalar(types.Time, n)
	return nil
}

// decimal reads a decimal's text into v: directly when it has the column's scale and fits
// 18 digits (the common case, without the rational arithmetic of row.ParseDecimal), else
// through row.ParseDecimal, which rescales and checks the precision.
func (c *column) decimal(v *row.Value, b []byte) error {
	if u, ok := smallDecimal(b, c.typ.Scale); ok {
		*v = row.DecimalValue(big.NewInt(u), c.typ.Scale)
		return nil
	}
	d, err := row.ParseDecimal(string(b), c.typ.Precision, c.typ.Scale)
	if err != nil {
		return fmt.Errorf("bad decimal %q: %v", b, err)
	}
	*v = d
	return nil
}

// smallDecimal reads "-123.45" as the unscaled -12345 when it has exactly scale digits after
// its point and at most 18 digits in all.
func smallDecimal(b []byte, scale int) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var u int64
	digits, after, point := 0, 0, false
	for _, ch := range b {
		switch {
		case ch == '.' && !point:
			point = true
		case ch >= '0' && ch <= '9':
			if digits++; digits > 18 {
				return 0, false
			}
			if point {
				after++
			}
			u = u*10 + int64(ch-'0')
		default:
			return 0, false
		}
	}
	if digits == 0 || after != scale {
		return 0, false
	}
	if neg {
		u = -u
	}
	return u, true
}
