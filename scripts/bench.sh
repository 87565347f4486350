#!/usr/bin/env bash
# Runs Depthbook's benchmark and the peer libraries in the same run on this machine, then prints, per pipeline
# and size, our median, the fastest peer's median and the ratio (ours / peer; below 1 is faster).
#
#   scripts/bench.sh [--sizes preview,full,real] [--pipelines P1,P2,P3] [--repeat 7]
#
# Env: PEERS (default "cv2 vips pillow numpy jpeg": which ../shared/peers/peer_*.py to run), PEERS_DIR,
# OUT (JSON lines, default /tmp/depthbook_bench.jsonl), ROUNDS (default 1: how many times Depthbook and the
# peers run, alternately; each side's fastest median counts, so a slow spell of a shared machine does not
# decide a ratio). Installs the peers' Python packages and libvips if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS_DIR=${PEERS_DIR:-../shared/peers}
PEERS=${PEERS:-"cv2 vips pillow numpy jpeg"}
OUT=${OUT:-/tmp/depthbook_bench.jsonl}

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi
if ! python3 -c "import numpy, scipy, cv2, pyvips, turbojpeg, PIL, pillow_heif" 2>/dev/null; then
  echo "installing the peers' Python packages" >&2
  python3 -m pip install --quiet numpy scipy opencv-python-headless pyvips 'PyTurboJPEG<2' pillow pillow-heif \
    >&2 || python3 -m pip install --quiet --break-system-packages numpy scipy opencv-python-headless pyvips 'PyTurboJPEG<2' pillow pillow-heif >&2
fi
if ! ldconfig -p | grep -q libvips.so.42; then
  echo "installing libvips42" >&2
  { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq libvips42 libturbojpeg0; } >&2
fi

swift build -c release --product depthbook >&2
# Let the build's writes reach the disk first: writeback competes for the two cores in the first timings.
sync
sleep 2
: > "$OUT"
for round in $(seq 1 "${ROUNDS:-1}"); do
  echo "== round $round: depthbook" >&2
  .build/release/depthbook bench --json "$@" | tee -a "$OUT"
  for peer in $PEERS; do
    echo "== round $round: peer $peer" >&2
    (cd "$PEERS_DIR" && OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python3 "peer_$peer.py" "$@") | tee -a "$OUT" || echo "peer $peer failed" >&2
  done
done
python3 scripts/bench_compare.py "$OUT"
