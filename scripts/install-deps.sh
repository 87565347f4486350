#!/usr/bin/env bash
# Installs what Depthbook needs on Debian 12 and skips what is already there.
#   scripts/install-deps.sh run    the C libraries the server links, and the person matte's weights (warns when they cannot be fetched)
#   scripts/install-deps.sh test   those, plus the browsers (Chromium, Firefox ESR), nginx, PostgreSQL and the Python test tools
set -euo pipefail
mode=${1:-run}

apt_packages=(libheif-dev libturbojpeg0-dev libwebsockets-dev libpng-dev libgif-dev pkg-config
              libavformat-dev libavcodec-dev libswscale-dev libavutil-dev
              libdlib-dev libblas-dev liblapack-dev
              libopencv-dnn-dev libopencv-imgproc-dev python3-onnx python3-pip)
if [ "$mode" = test ]; then
    apt_packages+=(chromium chromium-driver firefox-esr libimage-exiftool-perl nginx-light openssl ffmpeg postgresql)
fi

missing=()
for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The learned person matte's weights (a no-op when they are there and verified). Tests need them; the server
# runs without them (subjects from depth alone), so `run` only warns.
if [ "$mode" = test ]; then
    "$(dirname "$0")/install-models.sh"
elif ! "$(dirname "$0")/install-models.sh"; then
    echo "warning: the person matte's weights are not installed (scripts/install-models.sh); subjects come from depth alone" >&2
fi

if [ "$mode" = test ]; then
    python3 - <<'PY' || python3 -m pip install -q -r "$(dirname "$0")/../Tests/requirements.txt"
import importlib, sys
for m in ("numpy", "scipy", "pytest", "pytest_timeout", "selenium", "websockets", "PIL", "skimage", "jsonschema"):
    importlib.import_module(m)
PY
fi
