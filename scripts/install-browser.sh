#!/usr/bin/env bash
# Headless Chromium and its WebDriver for tests/test_browser.py (Debian packages; idempotent).
# Does nothing when both are installed; installs them with apt when run as root; otherwise prints
# a note and exits 0, and the browser test skips with its reason.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-browser: chromium/chromedriver missing and not root; tests/test_browser.py will skip" \
         "(as root: apt-get install chromium chromium-driver)" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: no apt-get here; install chromium and chromedriver by hand, or tests/test_browser.py will skip" >&2
    exit 0
fi
echo "install-browser: installing chromium and chromium-driver with apt-get" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; }; then
    echo "install-browser: apt-get failed; tests/test_browser.py will skip" >&2
fi
