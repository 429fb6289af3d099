#!/usr/bin/env bash
# Install the system libraries that manim (Cairo, Pango, ffmpeg), the browser tests
# (Chromium, and npm for axe-core), the classroom rooms' Redis tests (redis-server) and QR test (zbarimg, from
# zbar-tools) need, only when one is missing. Debian starts a redis-server service on
# 6379 when it installs one; the lab never uses it (tests start their own), so it is stopped.
# On macOS, print the one Homebrew line instead.
set -euo pipefail

DEBIAN_PACKAGES=(libcairo2-dev libpango1.0-dev pkg-config ffmpeg chromium redis-server zbar-tools)

if [ "$(uname -s)" = "Darwin" ]; then
  echo "On macOS, install the system packages with:"
  echo "  brew install cairo pango pkg-config ffmpeg redis zbar && brew install --cask chromium"
  exit 0
fi
if ! command -v dpkg >/dev/null 2>&1; then
  echo "No dpkg here: install ${DEBIAN_PACKAGES[*]} with your package manager." >&2
  exit 0
fi

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
# npm (for the browser tests' axe-core) may come from elsewhere than Debian (e.g. a nodejs build
# that bundles it): only a machine without any npm gets Debian's.
command -v npm >/dev/null 2>&1 || missing+=(npm)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing system packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
if [[ " ${missing[*]} " == *" redis-server "* ]]; then
  $sudo service redis-server stop >/dev/null 2>&1 || true
fi
