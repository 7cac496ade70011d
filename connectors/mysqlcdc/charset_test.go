package mysqlcdc

import (
	"testing"
	"time"

	"github.com/strait-dev/strait/connector"
)

// Text columns in other character sets than UTF-8 (SeaTunnel's test table has a gbk column)
// read the same from the snapshot, which the server converts, and from the log, which holds
// the stored bytes.
func TestCharsets(t *testing.T) {
	db := newTestDB(t)
	db.exec(t, `CREATE TABLE cs (id INT PRIMARY KEY, g VARCHAR(10) COLLATE gbk_bin, j VARCHAR(10) CHARACTER SET sjis,
		b VARCHAR(10) CHARACTER SET big5, k VARCHAR(10) CHARACTER SET euckr, l2 VARCHAR(10) CHARACTER SET latin2,
		r VARCHAR(10) CHARACTER SET cp1251, l1 TEXT CHARACTER SET latin1)`)
	const values = "'中文', 'カナ漢字', '中文', '한국어', 'Łódź', 'Привет', 'déjà €'"
	db.exec(t, "INSERT INTO cs VALUES (1, "+values+")")
	h := newHarness(t, mustSource(t, db.conf("cs", ""), connector.Streaming), 1, nil, nil)
	h.Until("the snapshot", time.Minute, func() bool { return len(h.Rows) == 1 })
	db.exec(t, "INSERT INTO cs VALUES (2, "+values+")")
	h.Until("the change", time.Minute, func() bool { return len(h.Rows) == 2 })
	want := []string{"+I 1,中文,カナ漢字,中文,한국어,Łódź,Привет,déjà €", "+I 2,中文,カナ漢字,中文,한국어,Łódź,Привет,déjà €"}
	wantRows(t, "rows", h.Rows, want)
}
