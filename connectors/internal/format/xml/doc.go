// Package xml is the xml file format of the file connectors, as SeaTunnel's XmlReadStrategy and XmlWriter have it: a root element
// (xml_root_tag, RECORDS) holding one element per row (xml_row_tag, RECORD) whose
// attributes (xml_use_attr_format = true) or child elements are the columns, by name.
// Values are text: numbers, booleans, dates, times and timestamps as the text format reads
// them, maps and arrays as JSON, a nested row as its fields joined with field_delimiter,
// bytes as their UTF-8 text. A blank value is null.
package xml
