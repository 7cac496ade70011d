// Package text is the text and csv file formats of the file connectors, as SeaTunnel's
// TextDeserializationSchema and TextSerializationSchema read and write them: lines split at
// a field delimiter that is a Java regular expression (Delimiter) or, for csv, a character
// with quoting (Lines), values read from text by type with nested values behind the
// separators \u0002, \u0003... (Values), and values written the same way (Encoder). Values
// also reads the text of excel cells and xml elements.
package text
