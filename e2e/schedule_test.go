package e2e

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestScheduleCommands drives `strait schedule` against `strait dev`: a schedule is created
// from a job config, listed, triggered (its run is an ordinary finished job) and deleted; a bad
// config is refused when the schedule is created.
func TestScheduleCommands(t *testing.T) {
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	start(t, "dev", "dev", "--headless", "--gateway", "", "--port", strconv.Itoa(port), "--checkpoint-dir", t.TempDir())
	eventually(t, 60*time.Second, "the dev server answers", func() bool {
		code, _ := run(t, "schedule", "list", "--address", addr)
		return code == 0
	})
	job := writeJob(t, `env { job.mode = "BATCH", job.name = "nightly_e2e" }
source { FakeSource { row.num = 9, schema = { fields { id = bigint } } } }
sink { Assert { rules { row_rules = [{ rule_type = MIN_ROW, rule_value = 9 }, { rule_type = MAX_ROW, rule_value = 9 }] } } }`)
	if code, out := run(t, "schedule", "create", "--address", addr, "--cron", "0 3 * * *", "nightly", job); code != 0 {
		t.Fatalf("create: exit %d\n%s", code, out)
	}
	code, out := run(t, "schedule", "list", "--address", addr, "--json")
	var list []struct{ Name, Spec, JobName string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0].Name != "nightly" ||
		list[0].Spec != "cron 0 3 * * *" || list[0].JobName != "nightly_e2e" {
		t.Fatalf("list: exit %d\n%s", code, out)
	}
	if code, out := run(t, "schedule", "trigger", "--address", addr, "nightly"); code != 0 {
		t.Fatalf("trigger: exit %d\n%s", code, out)
	}
	eventually(t, 60*time.Second, "the scheduled run finished", func() bool {
		_, out := run(t, "job", "list", "--address", addr, "--state", "FINISHED", "--json")
		return strings.Contains(out, `"nightly_e2e"`)
	})
	if code, out := run(t, "schedule", "delete", "--address", addr, "nightly"); code != 0 {
		t.Fatalf("delete: exit %d\n%s", code, out)
	}
	bad := writeFile(t, "bad.conf", `source { FakeSource { schema = { fields { id = bigint } } } }
sink { Assert { rules { field_rules = [{ field_name = id, field_type = strng }] } } }`)
	if code, out := run(t, "schedule", "create", "--address", addr, "--every", "1h", "broken", bad); code != 2 || !strings.Contains(out, "strng") {
		t.Fatalf("bad config: exit %d\n%s", code, out)
	}
}
