#!/usr/bin/env bash
# Installs the Debian packages the test suite needs when they are missing: Chromium (browser
# tests, driven by Playwright; never `playwright install`), Japanese fonts for screenshots, and
# PostgreSQL (the store tests start their own server on a loopback port), and nginx (the proxy
# tests run deploy/nginx/'s configuration in front of two server processes).
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
# The browser tests drive the headless shell (same build, less CPU; tests/web/conftest.py).
[ -x /usr/lib/chromium/chromium-headless-shell ] || need+=(chromium-headless-shell)
# grep reads everything (no -q): with pipefail, fc-list killed by SIGPIPE would read as missing.
fc-list 2>/dev/null | grep -i 'noto sans cjk' >/dev/null || need+=(fonts-noto-cjk)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
[ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "installing Debian packages: ${need[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" fontconfig >/dev/null
