# Strait: `make run` runs the example job on an embedded Temporal server, `make test` runs
# every test. Both work on a fresh machine with Go installed.

GO      ?= go
BIN     := bin/strait
PKGS    := ./...
export GOTOOLCHAIN := local

.PHONY: all build build-noembed run test test-short e2e vet fuzz bench proto clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/strait

# A worker/runner-only binary without the embedded Temporal server.
build-noembed:
	$(GO) build -tags noembed -o bin/strait-noembed ./cmd/strait

run: build
	$(BIN) run examples/fake_to_console.conf

vet:
	$(GO) vet $(PKGS)

test: build vet
	$(GO) test -count=1 -timeout 20m $(PKGS)

# The SeaTunnel end-to-end configs kept in testdata, run unchanged by the built binary.
e2e: build
	$(GO) test -count=1 -run 'TestSeaTunnel' ./e2e/

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=60s ./planner/hocon/
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=30s ./types/

bench: build
	$(GO) test -run='^$$' -bench=. -benchmem ./row/ ./taskrunner/ ./connectors/... ./transform/...
	$(GO) run ./bench/e2e -strait $(BIN)

clean:
	rm -rf bin
