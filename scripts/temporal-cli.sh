#!/usr/bin/env bash
# Builds Temporal's own CLI (the `temporal` command users start and watch jobs with) once into
# bin/tools/temporal, from the Go module proxy, for the tests that drive Strait through it.
# Prints the binary's path.
#
#   scripts/temporal-cli.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
version=${STRAIT_TEMPORAL_CLI_VERSION:-v1.5.1}
bin="$root/bin/tools/temporal"
stamp="$root/bin/tools/temporal.version"

if [ ! -x "$bin" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$version" ]; then
	mkdir -p "$root/bin/tools"
	echo "building the Temporal CLI $version into bin/tools (once)" >&2
	GOTOOLCHAIN=local GOBIN="$root/bin/tools" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$version"
	echo "$version" >"$stamp"
fi
echo "$bin"
