# Strait: `make run` runs the example job on an embedded Temporal server, `make test` runs
# every test. Both work on a fresh machine with Go installed.

GO      ?= go
BIN     := bin/strait
PKGS    := ./...
export GOTOOLCHAIN := local

.PHONY: all build ui zincsearch zincsearch-stop build-noembed image test-containers compose-config run test test-short e2e vet fuzz bench proto docs clean postgres postgres-stop mariadb mariadb-stop kafka kafka-stop s3 s3-stop redis redis-stop temporal-cli chromium cluster-up cluster-down test-cluster

all: build

build: ui
	$(GO) build -o $(BIN) ./cmd/strait

# The dashboard's pages (dashboard/web, bundled by esbuild with dagre into dashboard/dist),
# which the binary embeds; npm and Node.js come from Debian when missing.
ui:
	scripts/ui.sh

# A worker/runner-only binary without the embedded Temporal server.
build-noembed: ui
	$(GO) build -tags noembed -o bin/strait-noembed ./cmd/strait

run: build
	$(BIN) run examples/fake_to_console.conf

# The images (docker/Dockerfile): static binaries and a root file system staged in bin/image,
# built FROM scratch with podman (installed from Debian when missing), tagged strait and
# strait-dev with the version and latest.
image: ui
	scripts/containers.sh image

# A whole cluster in containers (docker/compose.test.yaml): a job through the gateway, the
# container of the runner hosting it killed, every row checked once; then all removed.
test-containers: ui
	scripts/containers.sh test

# Validates docker/compose.yaml and docker/compose.test.yaml.
compose-config:
	scripts/containers.sh config

vet:
	$(GO) vet $(PKGS)

# The JDBC tests write to a PostgreSQL that scripts/postgres.sh installs (Debian's package)
# and starts on 127.0.0.1:5432 when none answers there.
export STRAIT_TEST_POSTGRES := postgres://test:test@127.0.0.1:5432/test?sslmode=disable

postgres:
	scripts/postgres.sh start

postgres-stop:
	scripts/postgres.sh stop

# The MySQL tests read and write a MariaDB that scripts/mariadb.sh installs (Debian's package)
# and starts on 127.0.0.1:3306 with the row-based binary log when none answers there.
export STRAIT_TEST_MYSQL := test:test@tcp(127.0.0.1:3306)/

mariadb:
	scripts/mariadb.sh start

mariadb-stop:
	scripts/mariadb.sh stop

# The Elasticsearch tests write to and read from ZincSearch, an Elasticsearch-compatible
# server that scripts/zincsearch.sh builds once from the Go module proxy and starts on
# 127.0.0.1:4080 (its API under /es/).
export STRAIT_TEST_ELASTICSEARCH := http://admin:strait-test-secret@127.0.0.1:4080/es

zincsearch:
	scripts/zincsearch.sh start

zincsearch-stop:
	scripts/zincsearch.sh stop

# The Redis tests write to and read from Debian's redis-server, which scripts/redis.sh installs
# and starts on 127.0.0.1:6379 with SeaTunnel's test password (and the host name redis-e2e),
# and a three-master Redis Cluster of the same binary on 127.0.0.1:7379-7381.
export STRAIT_TEST_REDIS := redis://:SeaTunnel@127.0.0.1:6379/0
export STRAIT_TEST_REDIS_CLUSTER := 127.0.0.1:7379,127.0.0.1:7380,127.0.0.1:7381

redis:
	scripts/redis.sh start
	scripts/redis.sh start-cluster

redis-stop:
	scripts/redis.sh stop

# The Kafka tests talk to kfake (franz-go's in-memory Kafka), which scripts/kafka.sh builds
# into bin/tools and starts as its own process on 127.0.0.1:9092 when no broker answers there.
export STRAIT_TEST_KAFKA := 127.0.0.1:9092

kafka:
	scripts/kafka.sh start

kafka-stop:
	scripts/kafka.sh stop

# The S3 tests (the S3 checkpoint store) talk to SeaweedFS, which scripts/s3.sh builds once
# into bin/tools/weed and starts on 127.0.0.1:8333 with the test identity and bucket.
export STRAIT_TEST_S3 := http://127.0.0.1:8333
export STRAIT_TEST_S3_ACCESS_KEY := strait-test
export STRAIT_TEST_S3_SECRET_KEY := strait-test-secret

s3:
	scripts/s3.sh start

s3-stop:
	scripts/s3.sh stop

# Temporal's own CLI, built once into bin/tools, for the tests that start and stop jobs with it.
temporal-cli:
	scripts/temporal-cli.sh >/dev/null

# Debian's chromium, for the test that loads a running job's page in the Temporal Web UI.
chromium:
	scripts/chromium.sh >/dev/null

# Temporal as users deploy it (scripts/temporal-cluster.sh): Temporal's own server on
# PostgreSQL, two frontends, two history services, matching and the internal worker each a
# process on a host (network namespace) of its own, and hosts for Strait's workers and
# runners and for the data (PostgreSQL, Kafka, S3). Needs root.
cluster-up: build
	scripts/temporal-cluster.sh up

cluster-down:
	scripts/temporal-cluster.sh down

# The cluster suite: jobs with exactly-once sinks on that cluster while its services, a
# worker, a runner and a whole host are killed; it prints the recovery time of each kill
# (also kept in bin/cluster/recovery.txt), and every process's log in bin/cluster/logs. The
# cluster is taken down afterwards.
test-cluster: cluster-up
	rm -rf bin/cluster/logs
	STRAIT_CLUSTER_REPORT=$(CURDIR)/bin/cluster/recovery.txt STRAIT_TEST_LOGS=$(CURDIR)/bin/cluster/logs \
		$(GO) test -count=1 -v -timeout 30m -run '^TestProductionCluster$$' ./e2e/; status=$$?; \
		STRAIT_CLUSTER_LOGS=$(CURDIR)/bin/cluster/logs scripts/temporal-cluster.sh down; exit $$status

# The end-to-end kill tests run clusters of their own processes that mostly wait (leases,
# read limits), so four of them share the two cores at once. The cluster suite runs before,
# alone.
test: build vet postgres mariadb kafka s3 zincsearch redis temporal-cli chromium test-containers test-cluster
	$(GO) test -count=1 -parallel 4 -timeout 40m -skip '^TestProductionCluster$$' $(PKGS)

# The SeaTunnel end-to-end configs kept in testdata, run unchanged by the built binary.
e2e: build postgres redis
	$(GO) test -count=1 -timeout 30m -run 'TestSeaTunnel' ./e2e/

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=60s ./config/hocon/
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=30s ./types/
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=60s ./transform/sql/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeBatch -fuzztime=60s ./row/codec/
	$(GO) test -run='^$$' -fuzz=FuzzParseURL -fuzztime=30s ./connectors/internal/pgwire/
	$(GO) test -run='^$$' -fuzz=FuzzPositionalParams -fuzztime=30s ./connectors/jdbc/
	$(GO) test -run='^$$' -fuzz=FuzzPattern -fuzztime=30s ./internal/javatime/
	$(GO) test -run='^$$' -fuzz=FuzzCheck -fuzztime=30s ./internal/jsonscan/
	$(GO) test -run='^$$' -fuzz=FuzzTranslate -fuzztime=30s ./internal/jregex/
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=30s ./connectors/internal/binlog/
	$(GO) test -run='^$$' -fuzz=FuzzJSON -fuzztime=30s ./connectors/internal/binlog/
	$(GO) test -run='^$$' -fuzz=FuzzMembers -fuzztime=15s ./connectors/internal/mysqltype/

# The whole-job comparisons (bench/e2e) run beside their anchors, bare Go programs doing the
# same work (bench/anchors), and the in-process probes of start-up and checkpoints
# (bench/probe), and Benthos v4 doing the same jobs (bench/benthos, a module of its own fetched
# from the module proxy), built here in the same run; results go to bin/bench/results-<date>.
bench: build build-noembed postgres mariadb s3 kafka zincsearch redis
	$(GO) test -run='^$$' -bench=. -benchmem ./row/... ./exchange/ ./taskrunner/ ./connectors/... ./transform/...
	$(GO) build -o bin/bench-anchors ./bench/anchors
	$(GO) build -o bin/bench-probe ./bench/probe
	cd bench/benthos && $(GO) build -o $(CURDIR)/bin/bench-benthos .
	$(GO) run ./bench/e2e -strait $(BIN) -out bin/bench
	STRAIT_PARQUET_JOB_BENCH=1 STRAIT_PARQUET_BENCH_MB=1024 GOMAXPROCS=1 $(GO) test -run='^$$' -bench='^BenchmarkParquetJob$$' -benchtime=1x ./connectors/file/

# Regenerates the committed protobuf code (proto/exchange/v1). It installs what it needs:
# protoc from Debian's protobuf-compiler when missing, and the Go plugins at versions that match
# google.golang.org/protobuf and google.golang.org/grpc in go.mod (kept under bin/proto-tools).
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
PROTO_TOOLS                := $(CURDIR)/bin/proto-tools

proto:
	@command -v protoc >/dev/null 2>&1 || { \
		echo "installing protoc (protobuf-compiler)"; \
		SUDO=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq protobuf-compiler; }
	@[ -x $(PROTO_TOOLS)/protoc-gen-go ] && $(PROTO_TOOLS)/protoc-gen-go --version | grep -q '$(PROTOC_GEN_GO_VERSION)$$' || \
		GOBIN=$(PROTO_TOOLS) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	@[ -x $(PROTO_TOOLS)/protoc-gen-go-grpc ] && $(PROTO_TOOLS)/protoc-gen-go-grpc --version | grep -q '$(patsubst v%,%,$(PROTOC_GEN_GO_GRPC_VERSION))$$' || \
		GOBIN=$(PROTO_TOOLS) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
	protoc -I proto \
		--plugin=protoc-gen-go=$(PROTO_TOOLS)/protoc-gen-go \
		--plugin=protoc-gen-go-grpc=$(PROTO_TOOLS)/protoc-gen-go-grpc \
		--go_out=proto --go_opt=paths=source_relative \
		--go-grpc_out=proto --go-grpc_opt=paths=source_relative \
		exchange/v1/exchange.proto

# Rewrites the option tables of the docs (between <!-- options: <plugin> <kind> --> and
# <!-- end options -->) from the plugins' specs; a test fails when they differ.
docs:
	$(GO) run ./tools/docgen docs/connectors.md docs/transforms.md

clean:
	rm -rf bin
