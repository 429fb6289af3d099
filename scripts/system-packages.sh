#!/usr/bin/env bash
# Install the system packages that manim (Cairo, Pango, ffmpeg), the browser tests (Chromium and its headless
# shell, and npm for axe-core), the lecture hall and the classroom rooms (HAProxy, Redis) and the QR test
# (zbarimg, from zbar-tools) and the guided notes' corpus (Bierce's The Devil's Dictionary, public domain, from
# dict-devil: core/corpus.py) need, only when one is missing. On macOS, print the one Homebrew line instead.
set -euo pipefail

DEBIAN_PACKAGES=(libcairo2-dev libpango1.0-dev pkg-config ffmpeg chromium haproxy redis-server zbar-tools dict-devil)
# Chromium's headless shell runs the browser tests with less CPU than chromium (tests/conftest.py); they
# run in chromium where a release has no such package, so a failed install of it stops nothing.
OPTIONAL_PACKAGES=(chromium-headless-shell)
# Packages that come with a system service: `make hall` starts its own HAProxy and Redis (on
# ports and with a password of its own), so a service we install is stopped and not started at
# boot. A service that was on the machine before is left as it was.
SERVICES=(haproxy redis-server)

if [ "$(uname -s)" = "Darwin" ]; then
  echo "On macOS, install the system packages with:"
  echo "  brew install cairo pango pkg-config ffmpeg haproxy redis zbar && brew install --cask chromium"
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
optional=()
for pkg in "${OPTIONAL_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || optional+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing system packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if [ ${#optional[@]} -gt 0 ]; then
  echo "Installing optional system packages: ${optional[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${optional[@]}" ||
    echo "Not installed: ${optional[*]} (the browser tests run in chromium instead)"
fi

for svc in "${SERVICES[@]}"; do
  [[ " ${missing[*]} " == *" $svc "* ]] || continue
  echo "Stopping the system $svc service that the install started (the lab starts its own)"
  if [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now "$svc" >/dev/null 2>&1 || true
  else
    $sudo service "$svc" stop >/dev/null 2>&1 || true
    $sudo systemctl disable "$svc" >/dev/null 2>&1 || $sudo update-rc.d "$svc" disable >/dev/null 2>&1 || true
  fi
done
