#!/usr/bin/env bash
# Live-drag figures for two builds of the studio, alternating, as docs/server.md quotes them:
#   scripts/live-drag-ab.sh OLD_DEPTHBOOK NEW_DEPTHBOOK [ROUNDS]
# Each round and side starts a fresh server (port 8090, a data directory per side whose bundled samples are
# generated before measuring), then prints one line per measurement: `depthbook loadtest` with twenty sessions
# on the 12 MP pug (every cell in view, then scrolled to the slider; one warm-up run first), and
# ../shared/tools/drag_measure.py in headless Chromium. Each binary serves the Public/ found beside it.
set -euo pipefail
old=$1 new=$2 rounds=${3:-2}
photo="$(cd "$(dirname "$0")/../.." && pwd)/shared/photos/pillow_heif__pug.heic"
tool="$(dirname "$photo")/../tools/drag_measure.py"
client=$new
work=$(mktemp -d)
trap 'pkill -f "serve --port 8090" || true; rm -rf "$work"' EXIT
start() {  # binary, data directory
    pkill -f "serve --port 8090" || true
    sleep 1
    "$1" serve --port 8090 --data "$2" > "$2.log" 2>&1 &
    until curl -sf -o /dev/null "http://127.0.0.1:8090/healthz"; do sleep 0.2; done
    until [ "$(ls "$2/samples" 2>/dev/null | wc -l)" -ge 3 ]; do sleep 1; done
}
for round in $(seq "$rounds"); do
    for side in old new; do
        bin=$old; [ $side = new ] && bin=$new
        mkdir -p "$work/$side"
        start "$bin" "$work/$side"
        load="$client loadtest --url ws://127.0.0.1:8090 --sessions 20 --changes 60 --rate 30 --width 736 --photo $photo"
        $load > /dev/null
        echo "$side loadtest-in-view $($load | tail -1)"
        echo "$side loadtest-scrolled $($load --scrolled-to-slider | tail -1)"
        start "$bin" "$work/$side"
        echo "$side drag $(python3 "$tool" http://127.0.0.1:8090 "$photo" depth-threshold mask percentile result)"
    done
done
