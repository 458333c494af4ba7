#!/usr/bin/env bash
# `npm test`: everything, in the order that fails fastest. npm puts
# node_modules/.bin first on PATH, so `node` here is the project's Node 24.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium, Vitest and friends write under ~/.config and ~/.cache: keep that out of $HOME.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_CONFIG_HOME="$scratch/config" XDG_CACHE_HOME="$scratch/cache" XDG_DATA_HOME="$scratch/data"

bash scripts/ensure-system-deps.sh

echo "== lint and types"
biome check .
tsc --noEmit

echo "== unit, component and server tests"
vitest run

echo "== browser tests (the site is built with the test settings first)"
playwright test

echo "== first-load JavaScript budget (on the build the browser tests served)"
node scripts/size.ts
