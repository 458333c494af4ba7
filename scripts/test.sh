#!/usr/bin/env bash
# `npm test`: everything CI runs, in the order that fails fastest, with the
# slow parts side by side where they share nothing (docs/decisions/017-test-loop.md).
# npm puts node_modules/.bin first on PATH, so `node` here is the project's Node 24.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium, Vitest and friends write under ~/.config and ~/.cache: keep that out of $HOME.
scratch=$(mktemp -d)
export XDG_CONFIG_HOME="$scratch/config" XDG_CACHE_HOME="$scratch/cache" XDG_DATA_HOME="$scratch/data"

# Jobs started in the background here, each in a process group of its own
# (setsid), so that stopping this script early stops them and all they started.
background=()
cleanup() {
  for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Node's compile cache for every Node process of the run (Vitest's and
# Playwright's workers, the builds, the servers, the command line), in the folder
# the server uses by default (tests/support/compile-cache.ts): each compiles a
# file once, and later processes read it back (docs/decisions/028-how-the-suite-stays-fast.md).
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-${TMPDIR:-/tmp}/node-compile-cache}"

# The site the browser tests build and serve goes to a folder of its own (the
# same as BUILD_DIR in tests/e2e/support/site.ts): a site running from this
# checkout's build/client keeps its pages, settings and script hashes.
export BUILD_DIR=build/e2e

started=$SECONDS
phase() { echo "== $1 ($((SECONDS - started)) s)"; }

# Runs a job in the background, its output prefixed with its name.
start_job() {
  local name=$1
  shift
  setsid bash -c 'set -o pipefail; name=$1; shift; "$@" 2>&1 | sed -u "s/^/[$name] /"' \
    job "$name" "$@" &
  background+=("$!")
  eval "job_$name=$!"
}

# Waits for a background job; fails the run with its name if it failed.
finish_job() {
  local name=$1 pid_var="job_$1"
  if ! wait "${!pid_var}"; then
    echo "== $name failed"
    exit 1
  fi
  echo "== $name passed ($((SECONDS - started)) s)"
}

bash scripts/ensure-system-deps.sh

# The site with the browser tests' settings: CPU-bound, so it overlaps the
# checks below, which mostly wait. The browser tests' servers then find it built.
phase "building the site for the browser tests, beside lint, types and unit tests"
start_job build node tests/e2e/support/build-site.ts

phase "lint and types"
biome check .
tsc --noEmit
# The .astro templates, which tsc cannot read; only they are listed in
# tsconfig.astro.json, since tsc has checked every .ts file already.
npm run --silent typecheck:astro

phase "component and unit tests"
vitest run --project components --project node

# The server tests use a PostgreSQL and server processes of their own, on ports
# the system picks, and temporary directories: nothing the browser tests use.
# They mostly wait (on processes, databases and timeouts), so they run beside
# the browser tests.
phase "server tests, beside the browser tests"
start_job server vitest run --project server

finish_job build
# The built pages' HTML (html-validate, docs/decisions/034-valid-html.md) and
# the first-load JavaScript budget, on the build the browser tests serve. The
# budget mostly waits for pages to go quiet, in a server and a Chromium of its
# own: both run beside the browser tests.
phase "browser tests, beside the built pages' HTML and the first-load JavaScript budget"
start_job html node scripts/validate-html.ts
start_job size node scripts/size.ts
playwright test

finish_job html
finish_job size
finish_job server
phase "all passed"
