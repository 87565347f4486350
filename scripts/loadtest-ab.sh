#!/usr/bin/env bash
# A/B of two depthbook binaries with the load test (issue 41): one session dragging at 60 changes/s, then twenty at
# 30/s, every cell in view, 736 px, on a 12 MP photo; each server fresh and alone on the machine, the BEFORE
# binary's own client for both (one measuring instrument). Prints one line per run: label, rounds, the report.
#   scripts/loadtest-ab.sh BEFORE AFTER [ROUNDS] [PHOTO]
# Extra environment for a server: BEFORE_ENV / AFTER_ENV (e.g. AFTER_ENV="DEPTHBOOK_MODELS=/nonexistent" for a
# server without the learned person matte); extra serve flags: BEFORE_FLAGS / AFTER_FLAGS (e.g. --notebooks DIR).
set -euo pipefail
# Absolute paths: each server starts from its own checkout's folder (a relative binary path then named nothing).
before=$(realpath "$1") after=$(realpath "$2") rounds=${3:-2} photo=${4:-../shared/photos/pillow_heif__pug.heic}
port=${DEPTHBOOK_AB_PORT:-8510}
photo=$(realpath "$photo")
run() {  # label binary env flags loadtest-args...
    local label=$1 binary=$2 env=$3 flags=$4
    shift 4
    local data
    data=$(mktemp -d)
    # Each binary beside its own Public/ and Notebooks/ (found next to the build folder).
    (cd "$(dirname "$binary")/../../.." && exec env $env "$binary" serve --port "$port" --data "$data" $flags >"$data/log" 2>&1) &
    local server=$!
    for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.5; done
    echo "$label $* $("$before" loadtest --url "ws://127.0.0.1:$port" --width 736 --photo "$photo" "$@" --json | tail -1)"
    kill "$server"; wait "$server" 2>/dev/null || true
    while curl -sf "http://127.0.0.1:$port/healthz" >/dev/null; do sleep 0.5; done
    rm -rf "$data"
}
for _ in $(seq 1 "$rounds"); do
    for sessions in "1 --changes 120 --rate 60" "20 --changes 60 --rate 30"; do
        # shellcheck disable=SC2086
        run before "$before" "${BEFORE_ENV:-}" "${BEFORE_FLAGS:-}" --sessions $sessions
        # shellcheck disable=SC2086
        run after "$after" "${AFTER_ENV:-}" "${AFTER_FLAGS:-}" --sessions $sessions
    done
done
