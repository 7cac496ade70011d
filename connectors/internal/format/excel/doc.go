// Package excel is the excel file format of the file connectors: workbooks (.xlsx), as
// SeaTunnel's ExcelReadStrategy and ExcelGenerator read and write them. A sheet is read
// row by row with excelize's Rows iterator and written with its StreamWriter, so a large
// sheet never sits in memory whole: excelize holds the compressed workbook and unzips a
// sheet larger than 16 MiB to a temporary file it streams from; the StreamWriter spills
// written rows to a temporary file the same way.
package excel
