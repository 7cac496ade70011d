package gateway

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 description of every endpoint the gateway serves; a test
// holds it and the routes to each other.
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPI answers /openapi.json.
func (g *gateway) openAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openAPIDoc)
	return nil
}
