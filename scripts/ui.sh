#!/usr/bin/env bash
# Builds the dashboard's pages (dashboard/web) into dashboard/dist, which the binary embeds:
# npm installs the locked packages (dagre, esbuild) into dashboard/web/node_modules, esbuild
# bundles the scripts. Node.js and npm are installed from Debian when missing. Nothing is
# rebuilt when dist is newer than every source.
#
#   scripts/ui.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
web=$root/dashboard/web
dist=$root/dashboard/dist

if [ -f "$dist/app.js" ] && [ -z "$(find "$web/src" "$web/package.json" "$web/package-lock.json" -newer "$dist/app.js" -print -quit)" ]; then
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "installing Node.js and npm (Debian's packages)" >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >&2
fi
cd "$web"
if [ ! -x node_modules/.bin/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	npm ci --no-audit --no-fund --loglevel=error >&2
fi
mkdir -p "$dist"
npm run --silent build >&2
echo "dashboard built into dashboard/dist" >&2
