#!/usr/bin/env bash
# Installs Debian's chromium when missing, for the test that loads a running job's page in
# the Temporal Web UI headless, and prints the browser's path.
#
#   scripts/chromium.sh
set -euo pipefail

if ! command -v chromium >/dev/null 2>&1; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "installing chromium (Debian's package)" >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
fi
command -v chromium
