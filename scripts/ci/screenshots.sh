#!/usr/bin/env bash
# Render the summary comment, an inline comment and the eval summary in headless Chromium at
# 1,000 px and fail when anything overflows sideways (scripts/screenshots.py).
# Installs Debian's chromium when it is missing; the PNGs go to a scratch folder, not docs/.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
    chromium fonts-dejavu-core fonts-noto-color-emoji
fi
out="$(mktemp -d)"
python scripts/screenshots.py --out "$out"
echo "screenshots in $out"
