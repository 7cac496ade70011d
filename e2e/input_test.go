package e2e

import (
	"strings"
	"testing"
)

// Bad input that plans must still be refused clearly: a config larger than Temporal takes
// as a workflow input (over its 2 MiB payload limit, and over its 4 MiB gRPC message limit)
// exits 2 naming the file, its size and the limits.
func TestConfigTooLargeForTemporal(t *testing.T) {
	for _, mib := range []int{3, 5} {
		var b strings.Builder
		b.WriteString("env { job.mode = BATCH }\nsource { FakeSource { row.num = 1, schema = { fields { id = bigint } } } }\nsink { Console {} }\n")
		for b.Len() < mib<<20 {
			b.WriteString("# " + strings.Repeat("x", 78) + "\n")
		}
		f := writeFile(t, "big.conf", b.String())
		code, out := run(t, "run", f)
		for _, want := range []string{f, "MiB", "Temporal refused as too large", "limit.blobSize.error"} {
			if !strings.Contains(out, want) {
				t.Errorf("%d MiB: the refusal does not say %q:\n%s", mib, want, tail(out, 5))
			}
		}
		if code != 2 {
			t.Errorf("%d MiB: exit %d, want 2", mib, code)
		}
	}
}
