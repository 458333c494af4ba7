#!/usr/bin/env bash
# `npm run test:faults`: the fault, endurance and scale suite
# (tests/server/faults/, docs/decisions/051-two-suites.md), on its own after
# `npm test`, as CI runs it. The same PostgreSQL, helpers and compile cache as
# the server tests.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_CONFIG_HOME="$scratch/config" XDG_CACHE_HOME="$scratch/cache" XDG_DATA_HOME="$scratch/data"
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-${TMPDIR:-/tmp}/node-compile-cache}"

bash scripts/ensure-system-deps.sh
started=$SECONDS
vitest run --project faults "$@"
echo "== faults passed ($((SECONDS - started)) s)"
