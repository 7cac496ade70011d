package gateway

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/contract"
)

// A job started by hand (temporal workflow start) carries its config as written: job-info
// still shows its env's secrets masked.
func TestEnvOptionsMaskSecrets(t *testing.T) {
	in := contract.JobInput{File: "job.conf", Config: `env { job.mode = BATCH, job.name = "n", some.api_key = "env-Secret", other.token = ${tok} }
source { FakeSource {} }
sink { Console {} }`, Vars: map[string]string{"tok": "var-Secret"}}
	env := envOptions(in)
	if mode, _ := env.Get("job.mode"); mode != "BATCH" {
		t.Fatalf("envOptions %v", env)
	}
	for _, k := range []string{"some.api_key", "other.token"} {
		if v, _ := env.Get(k); v != "******" {
			t.Errorf("%s = %q", k, v)
		}
	}
	for _, kv := range env {
		if strings.Contains(kv.Value, "Secret") {
			t.Errorf("envOptions show %s = %q", kv.Key, kv.Value)
		}
	}
}
