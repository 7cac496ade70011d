//go:build !noembed

package admin

import (
	"os"
	"testing"

	"go.temporal.io/server/common/dynamicconfig"
)

// TestDynamicConfig loads temporal-config/dynamicconfig.yaml as the Temporal server does:
// every key must be one the server knows (a misspelt key is silently ignored by a running
// server) and every value valid for it.
func TestDynamicConfig(t *testing.T) {
	const file = "../temporal-config/dynamicconfig.yaml"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lr := dynamicconfig.LoadYamlFile(b)
	if err := lr.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, w := range lr.Warnings {
		t.Errorf("%s: %v", file, w)
	}
	if len(lr.Map) < 10 {
		t.Errorf("%s: %d settings, want the limits Strait counts on", file, len(lr.Map))
	}
}
