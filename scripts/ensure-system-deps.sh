#!/usr/bin/env bash
# Installs what the tests need from Debian when it is missing: Chromium's
# headless shell for the browser tests and the size check, Chromium itself for
# Lighthouse and the test of pages' icons, PostgreSQL for the server tests, a
# Java runtime for the Nu HTML checker (npm run lint:nu), Dovecot's IMAP server
# for the bounce mailbox's tests (each test runs its own on loopback; the
# system service the package starts is stopped). Never downloads a browser
# build.
# With --bench, also wrk, the load generator of `npm run bench`.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromium-headless-shell ] || missing+=(chromium-headless-shell)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v java >/dev/null || missing+=(default-jre-headless)
[ -x /usr/sbin/dovecot ] || missing+=(dovecot-imapd)
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
# The tests start Dovecot with configurations of their own; the system's is not needed.
if [[ " ${missing[*]} " == *" dovecot-imapd "* ]] && [ -f /run/dovecot/master.pid ]; then
  /usr/sbin/dovecot stop 2>/dev/null || true
fi
