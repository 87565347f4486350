#!/usr/bin/env bash
# Renders every cell of every bundled notebook on the photos given, with `depthbook render`, at the widths the
# page asks for, two at a time; prints one line per render that did not exit 0, and a summary. A render may
# fail with a clear error (a plane the photo lacks); it must never die on a signal (a trap).
#
#   scripts/render-sweep.sh [--widths "64 368 736 2048"] PHOTO...      (default: the page's usual widths)
#   scripts/render-sweep.sh --every-width PHOTO...                       (64...2048, one by one: slow)
# A PHOTO may be IMAGE:DEPTHMAP, an image with its depth map in a separate file (which way it runs is detected).
set -uo pipefail
cd "$(dirname "$0")/.."
binary=${DEPTHBOOK_BIN:-.build/release/depthbook}
widths="64 65 368 736 737 1024 2048"
if [ "${1:-}" = "--widths" ]; then widths=$2; shift 2; fi
if [ "${1:-}" = "--every-width" ]; then widths=$(seq 64 2048); shift; fi
[ $# -gt 0 ] || { echo "usage: $0 [--widths \"W...\" | --every-width] PHOTO..." >&2; exit 2; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
jobs_file="$out/jobs"
for photo in "$@"; do
    for notebook in Notebooks/*.json; do
        cells=$(python3 -c 'import json,sys; print(" ".join(c["id"] for c in json.load(open(sys.argv[1]))["cells"] if c["kind"] != "note"))' "$notebook")
        for cell in $cells; do
            for width in $widths; do echo "$photo	$notebook	$cell	$width"; done
        done
    done
done > "$jobs_file"

render_one() {
    IFS=$'\t' read -r photo notebook cell width <<< "$1"
    local depth=()
    if [[ "$photo" == *:* ]]; then depth=(--depth "${photo#*:}"); photo=${photo%%:*}; fi
    message=$("$binary" render "$notebook" --photo "$photo" "${depth[@]}" --cell "$cell" --width "$width" -o /dev/null 2>&1)
    status=$?
    if [ $status -ge 128 ]; then
        echo "SIGNAL $((status - 128)) $(basename "$photo") $(basename "$notebook" .json)/$cell @ $width: $message"
    elif [ $status -ne 0 ]; then
        echo "error $(basename "$photo") $(basename "$notebook" .json)/$cell @ $width: ${message##*$'\n'}"
    fi
}
export -f render_one
export binary

total=$(wc -l < "$jobs_file")
tr '\n' '\0' < "$jobs_file" | xargs -0 -P 2 -I{} bash -c 'render_one "$1"' _ {} | tee "$out/failures"
signals=$(grep -c '^SIGNAL' "$out/failures")
errors=$(grep -c '^error' "$out/failures")
echo "{\"renders\": $total, \"errors\": $errors, \"signals\": $signals}"
[ "$signals" -eq 0 ]
