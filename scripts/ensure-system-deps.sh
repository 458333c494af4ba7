#!/usr/bin/env bash
# Installs what the tests need from Debian when it is missing: Chromium's
# headless shell for the browser tests and the size check, Chromium itself for
# Lighthouse and the test of pages' icons, PostgreSQL for the server tests, a
# Java runtime for the Nu HTML checker (npm run lint:nu). Never downloads a
# browser build.
# With --bench, also wrk, the load generator of `npm run bench`.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v java >/dev/null || missing+=(default-jre-headless)
[ "${1:-}" != --bench ] || command -v wrk >/dev/null || missing+=(wrk)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "Missing system packages: ${missing[*]}. Install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "Installing ${missing[*]} from Debian…"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
