package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	ice "github.com/apache/iceberg-go"
	icecat "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// SeaTunnel's IcebergSinkCDCIT: MySQL-CDC into an Iceberg table of a Hadoop warehouse on
// local disk, in upsert mode partitioned by f_datetime, with its configs and users
// (connectors/iceberg/testdata/seatunnel) unchanged, its DDL the MySQL-CDC suite's (of which
// the Iceberg suite's mysql_cdc.sql is a part, table for table), and its checks: the table holds the
// three rows inserted, then four after two inserts, a delete and an update (f_bigint of
// row 3 is 10000); with schema changes, a column added to the source table while the job
// runs reaches the table's schema and the row written with it.

const icebergCDCWarehouse = "/tmp/seatunnel/iceberg/hadoop-cdc-sink/"

func icebergCDCFixture(name string) string { return connectorSuite("iceberg", name) }

func TestSeaTunnelIcebergSinkCDC(t *testing.T) {
	server := startPrivateMariaDB(t, true)
	// SeaTunnel's MySQL container is started with user st_user (password seatunnel), which
	// its setup.sql grants the replication privileges
	server.admin(t, "CREATE USER 'st_user'@'%' IDENTIFIED BY 'seatunnel'")
	server.script(t, icebergCDCFixture("mysql/setup.sql"), strings.NewReplacer())
	// MariaDB 10.11 has not MySQL 8's default collation, which the DDL names
	server.script(t, mysqlCDCFixture("ddl/mysql_cdc.sql"), strings.NewReplacer("utf8mb4_0900_ai_ci", "utf8mb4_unicode_520_ci"))
	db, err := sql.Open("mysql", fmt.Sprintf("mysqluser:mysqlpw@tcp(%s)/", server.hostPort()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s := &mysqlCDCSuite{server: server, db: db, addr: startDev(t)}
	const database, table = "mysql_cdc", "mysql_cdc_e2e_source_table"

	t.Run("testMysqlCdcCheckDataE2e", func(t *testing.T) {
		s.clear(t, database, table)
		icebergCDCFresh(t)
		s.submitAt(t, "4001", icebergCDCFixture("mysql_cdc_to_iceberg.conf"))
		s.exec(t, fmt.Sprintf(icebergCDCInit, database, table))
		awaitIcebergCDC(t, s, "4001", 60*time.Second, func(rows map[int64]map[string]any) string {
			if len(rows) != 3 {
				return fmt.Sprintf("%d rows, want 3", len(rows))
			}
			return ""
		})
		s.upsertDelete(t, database, table)
		awaitIcebergCDC(t, s, "4001", 120*time.Second, func(rows map[int64]map[string]any) string {
			if len(rows) != 4 {
				return fmt.Sprintf("%d rows, want 4", len(rows))
			}
			if r, ok := rows[3]; !ok || r["f_bigint"] != int64(10000) {
				return fmt.Sprintf("row 3 is %v, want f_bigint 10000", r)
			}
			return ""
		})
	})
	t.Run("testMysqlCdcCheckSchemaChangeE2e", func(t *testing.T) {
		s.clear(t, database, table)
		icebergCDCFresh(t)
		s.submitAt(t, "4002", icebergCDCFixture("mysql_cdc_to_iceberg_for_schema_change.conf"))
		s.exec(t, fmt.Sprintf(icebergCDCInit, database, table))
		// the column is added once the job has written the first rows, so that the change
		// reaches the sink in the stream, as the job runs
		awaitIcebergCDC(t, s, "4002", 120*time.Second, func(rows map[int64]map[string]any) string {
			if len(rows) != 3 {
				return fmt.Sprintf("%d rows, want 3", len(rows))
			}
			return ""
		})
		s.exec(t, fmt.Sprintf("ALTER TABLE %s.%s ADD COLUMN f_string_add text", database, table))
		s.exec(t, fmt.Sprintf(icebergCDCAddColumnRow, database, table))
		awaitIcebergCDC(t, s, "4002", 120*time.Second, func(rows map[int64]map[string]any) string {
			if len(rows) != 4 {
				return fmt.Sprintf("%d rows, want 4", len(rows))
			}
			if r := rows[100]; r["f_string_add"] != "add column field" {
				return fmt.Sprintf("row 100 is %v, want f_string_add %q", r, "add column field")
			}
			return ""
		})
		// for the next run, as SeaTunnel's test leaves it
		s.exec(t, fmt.Sprintf("ALTER TABLE %s.%s DROP COLUMN f_string_add", database, table))
	})
}

// icebergCDCFresh empties the configs' warehouse folder.
func icebergCDCFresh(t *testing.T) {
	t.Helper()
	if err := os.RemoveAll(icebergCDCWarehouse); err != nil {
		t.Fatal(err)
	}
}

// submitAt runs the config at path (reaching the test's server) under a fixed job id; the
// job is canceled when the subtest ends.
func (s *mysqlCDCSuite) submitAt(t *testing.T, id, path string) {
	t.Helper()
	submitAs(t, s.addr, id, copyWithHost(t, path, mysqlCDCHost, s.server.hostPort()))
}

// awaitIcebergCDC waits until check finds the table's rows (by id, the columns id,
// f_bigint and, where the table has it, f_string_add) as it wants.
func awaitIcebergCDC(t *testing.T, s *mysqlCDCSuite, id string, within time.Duration, check func(map[int64]map[string]any) string) {
	t.Helper()
	awaitJobDiff(t, s.addr, id, within, func() string {
		rows, ok := icebergCDCRows(t)
		if !ok {
			return "the table is not there yet"
		}
		return check(rows)
	})
}

// icebergCDCRows reads the sink table with iceberg-go (its equality deletes applied); false
// while the table does not exist.
func icebergCDCRows(t *testing.T) (map[int64]map[string]any, bool) {
	t.Helper()
	ctx := context.Background()
	cat, err := icecat.Load(ctx, "e2e", ice.Properties{"type": "hadoop", "warehouse": "file://" + icebergCDCWarehouse})
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := cat.LoadTable(ctx, table.Identifier{"seatunnel_namespace", "iceberg_sink_table"})
	if err != nil {
		return nil, false
	}
	_, recs, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]map[string]any{}
	for rec, err := range recs {
		if err != nil {
			t.Fatal(err)
		}
		sc := rec.Schema()
		for i := 0; i < int(rec.NumRows()); i++ {
			r := map[string]any{}
			for _, name := range []string{"id", "f_bigint", "f_string_add"} {
				if idx := sc.FieldIndices(name); len(idx) > 0 {
					r[name] = arrowValue(rec.Column(idx[0]), i)
				}
			}
			id, _ := r["id"].(int64)
			out[id] = r
		}
		rec.Release()
	}
	return out, true
}

// arrowValue is a value of an integer or string column, nil when null.
func arrowValue(col arrow.Array, i int) any {
	if col.IsNull(i) {
		return nil
	}
	switch c := col.(type) {
	case *array.Int32:
		return int64(c.Value(i))
	case *array.Int64:
		return c.Value(i)
	case *array.String:
		return c.Value(i)
	case *array.LargeString:
		return c.Value(i)
	}
	return col.ValueStr(i)
}

// The rows of IcebergSinkCDCIT: the three it starts with, and the one written after the
// column f_string_add was added.
var (
	icebergCDCInit = "INSERT INTO %s.%s " + cdcE2EColumns + " ) VALUES " +
		fmt.Sprintf(cdcE2ERow, 1, "12.345", 255, 2022) + " ), " +
		fmt.Sprintf(cdcE2ERow, 2, "112.345", 22, 2013) + " ), " +
		fmt.Sprintf(cdcE2ERow, 3, "112.345", 22, 2021) + " )"
	icebergCDCAddColumnRow = "INSERT INTO %s.%s " + cdcE2EColumns + ", f_string_add ) VALUES " +
		fmt.Sprintf(cdcE2ERow, 100, "12.345", 255, 1992) + ", 'add column field' )"
)
