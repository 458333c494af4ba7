#!/usr/bin/env bash
# `npm test`: everything CI runs, side by side where it shares nothing, with
# the browser tests started as early as they can be
# (docs/decisions/028-how-the-suite-stays-fast.md).
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
# Likewise the spam model, by the hash of what it is trained from
# (scripts/spam-model.ts): a clean clone copies it rather than train it again.
export SPAM_MODEL_CACHE="${SPAM_MODEL_CACHE:-${TMPDIR:-/tmp}/ewe-spam-models}"
# And Playwright's compiled test files, which it would otherwise keep in TMPDIR.
export PLAYWRIGHT_TRANSFORM_CACHE_DIR="${PLAYWRIGHT_TRANSFORM_CACHE_DIR:-${TMPDIR:-/tmp}/playwright-transform-cache-$(id -u)}"
# Everything else the run's processes write to the system's temporary folder (the
# browser tests' servers' data folders, Chromium's profiles, PostgreSQL's clusters,
# the checks' scratch files) goes with the run: a folder of its own, removed by
# `cleanup`, which the `postgres` user may pass through (0711) to its cluster.
mkdir "$scratch/tmp"
chmod 711 "$scratch" "$scratch/tmp"
export TMPDIR="$scratch/tmp"

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

# Waits for each of the named background jobs in turn (list the shortest
# first) and fails the run if any failed, naming each. A failed job does not
# stop the others: the browser tests' servers and the server tests' PostgreSQL
# are stopped by their runners, which a signal from here would cut short.
# (`wait PID` also reports a job that ended before it was called; `wait -n`
# does not.)
finish_jobs() {
  local name pid_var failed=()
  for name in "$@"; do
    pid_var="job_$name"
    if wait "${!pid_var}"; then
      echo "== $name passed ($((SECONDS - started)) s)"
    else
      echo "== $name failed ($((SECONDS - started)) s)"
      failed+=("$name")
    fi
  done
  if ((${#failed[@]} > 0)); then
    echo "== failed: ${failed[*]}"
    exit 1
  fi
}

bash scripts/ensure-system-deps.sh

# The browser tests and the server tests are the two long jobs, as long as
# each other. The browser tests need the site built with their settings: the
# build comes first. The server tests need no build (they run the sources,
# with a PostgreSQL, server processes, ports and temporary folders of their
# own, and mostly wait on them): they start at once, beside the build
# (docs/decisions/078-the-server-tests-beside-the-build.md). So do the checks
# that need no build (lint, types, the component and unit tests). The checks
# are only CPU, with nothing that waits on a clock of its own, so they run at
# a lower priority (nice): they take the CPU the other jobs leave idle,
# instead of slowing them. Where Linux groups each session's processes for
# its scheduler (autogrouping, /proc/self/autogroup, on on the project's
# machine), a nice weighs only within its own session, and each job is a
# session (setsid): there the checks weigh as much as any job. Their session
# niced to 10 was measured and not kept: beside others' work they ended with
# the server tests, or after them (docs/benchmarks.md, "Test suite", session 60).
phase "building the site for the browser tests, beside the server tests, lint, types and unit tests"
start_job build node tests/e2e/support/build-site.ts
start_job server vitest run --project server
start_job checks nice -n 10 bash -c 'biome check . && knip && npm run --silent typecheck:ts &&
  vitest run --project components --project node'
# typecheck:ts is TypeScript 7, the compiler in native code, on one thread:
# the same findings as tsc 6 for a quarter of its CPU. It cannot read the
# .astro templates: typecheck:astro checks only them (below).

finish_jobs build
# Then everything else beside the browser tests, as soon as the site is built:
# the checks and the server tests above, still running; and the built pages'
# HTML with html-validate
# (docs/decisions/034-valid-html.md). The first-load JavaScript budget
# (`npm run size`) and the W3C Nu checker (`npm run lint:nu`) are not tests:
# CI runs them after this, on this build (.ci/run, docs/decisions/051-two-suites.md).
# The .astro templates (tsconfig.astro.json), with TypeScript 6, whose API
# astro check uses: after the build, whose content sync wrote the types they
# import (.astro/), so the check does not sync them again (--noSync).
phase "browser tests, beside the server tests, the built pages' HTML and the templates' types"
start_job browser playwright test
start_job html node scripts/validate-html.ts
start_job astro nice -n 10 npm run --silent typecheck:astro -- --noSync
finish_jobs html astro checks server browser
phase "all passed"
