#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests (tests/services/api/web), if missing.
# Idempotent: does nothing when /usr/bin/chromium is already there. Browser builds are
# never downloaded by Playwright/Selenium; the tests drive this system browser.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "browser-up: /usr/bin/chromium is missing; run as root (apt-get install -y chromium)" >&2
  exit 1
fi
echo "installing Debian chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version
