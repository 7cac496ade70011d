package gateway

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

// docOperations reads the document's operations as "METHOD /path", following each path's
// $ref to its path item.
func docOperations(t *testing.T) map[string]bool {
	t.Helper()
	var doc struct {
		OpenAPI    string                                `json:"openapi"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			PathItems map[string]map[string]json.RawMessage `json:"pathItems"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	ops := map[string]bool{}
	for path, item := range doc.Paths {
		if raw, ok := item["$ref"]; ok {
			var ref string
			if err := json.Unmarshal(raw, &ref); err != nil {
				t.Fatal(err)
			}
			name, ok := strings.CutPrefix(ref, "#/components/pathItems/")
			if item = doc.Components.PathItems[name]; !ok || item == nil {
				t.Fatalf("%s: $ref %s names no path item", path, ref)
			}
		}
		for method, op := range item {
			var o struct {
				OperationID string                     `json:"operationId"`
				Responses   map[string]json.RawMessage `json:"responses"`
			}
			if err := json.Unmarshal(op, &o); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			if o.OperationID == "" || o.Responses["200"] == nil {
				t.Fatalf("%s %s: no operationId or 200 answer", method, path)
			}
			ops[strings.ToUpper(method)+" "+path] = true
		}
	}
	return ops
}

// routeOperations are the routes as the document writes them: "GET /job-info/{$}" and
// "GET /job-info" are one path.
func routeOperations() map[string]bool {
	g := &gateway{}
	ops := map[string]bool{}
	for _, r := range g.routes() {
		p := strings.TrimSuffix(strings.TrimSuffix(r.pattern, "{$}"), "/")
		ops[p] = true
	}
	return ops
}

// Every route the gateway serves is in openapi.json, and every operation there is served.
func TestOpenAPICoversTheRoutes(t *testing.T) {
	doc, routes := docOperations(t), routeOperations()
	var missing, extra []string
	for r := range routes {
		if !doc[r] {
			missing = append(missing, r)
		}
	}
	for d := range doc {
		if !routes[d] {
			extra = append(extra, d)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("served but not in openapi.json: %v\nin openapi.json but not served: %v", missing, extra)
	}
	if len(routes) < 40 {
		t.Fatalf("only %d routes", len(routes))
	}
}
