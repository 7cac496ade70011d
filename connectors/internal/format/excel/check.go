package excel

import (
	"archive/zip"
	"fmt"
	"io"
)

// excelize trusts a workbook's zip directory: it allocates every part by the size the
// directory declares before it inflates a byte. checkXLSX holds the declared sizes to what
// the parts' bytes can inflate to, and the parts to the bytes there are, before excelize
// opens the workbook.

// deflateMaxRatio is the most a deflate stream inflates: 258 bytes from about two bits.
const deflateMaxRatio = 1032

// checkXLSX checks the zip directory of a workbook of size bytes held by r: no part claims
// more than its compressed bytes inflate to, and the parts together take no more bytes than
// the workbook has (parts that share bytes make a zip bomb).
func checkXLSX(r io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return err
	}
	var total uint64
	for _, f := range zr.File {
		c, u := f.CompressedSize64, f.UncompressedSize64
		if total += c; c > uint64(size) || total > uint64(size) {
			return fmt.Errorf("part %q: its %d compressed bytes, with the parts before it, are more than the workbook's %d", f.Name, c, size)
		}
		switch f.Method {
		case zip.Store:
			if u != c {
				return fmt.Errorf("part %q: stored, it declares %d bytes in %d", f.Name, u, c)
			}
		case zip.Deflate:
			if u > c*deflateMaxRatio+64 {
				return fmt.Errorf("part %q: it declares %d bytes, more than its %d compressed bytes inflate to", f.Name, u, c)
			}
		default:
			return fmt.Errorf("part %q: compression method %d, which an xlsx workbook does not use", f.Name, f.Method)
		}
	}
	return nil
}
