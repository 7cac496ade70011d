package gateway_test

import (
	"net/http"
	"strings"
	"testing"
)

// A refused submit is logged with the planner's error, which quotes the Jdbc url it could
// not read: the line the gateway keeps for /log shows the url's password masked.
func TestRefusedRequestLogMasksSecrets(t *testing.T) {
	const password = "gw-Log-Pass-31"
	conf := `{"env": {"job.mode": "BATCH"},
  "source": [{"plugin_name": "Jdbc", "url": "jdbc:postgres://app:` + password + `@127.0.0.1:1/db", "query": "select 1"}],
  "sink": [{"plugin_name": "Console"}]}`
	if code, b := call(t, "POST", "/submit-job", conf); code != http.StatusBadRequest || !strings.Contains(string(b), "is not a PostgreSQL JDBC url") {
		t.Fatalf("submit with a bad url: %d %s", code, b)
	}
	code, b := call(t, "GET", "/log/strait-gateway.log", "")
	if code != http.StatusOK {
		t.Fatalf("the gateway's log: %d %s", code, b)
	}
	var refused string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "gateway: request refused") && strings.Contains(l, "is not a PostgreSQL JDBC url") {
			refused = l
		}
	}
	if refused == "" {
		t.Fatalf("the refusal is not in the gateway's log:\n%s", b)
	}
	if strings.Contains(refused, password) || !strings.Contains(refused, "jdbc:postgres://app:******@127.0.0.1:1/db") {
		t.Fatalf("the refusal shows the password, or not the url masked: %s", refused)
	}
}
