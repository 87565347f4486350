#!/usr/bin/env bash
# The whole test suite: Swift unit and integration tests, then the end-to-end tests (browser, nginx)
# against a release build of the real server.
set -euo pipefail
cd "$(dirname "$0")/.."
# CI stops at 90 minutes: each stage says how long it took, so the log shows where the time goes.
stage() { echo "==== $1 done after ${SECONDS} s in all ===="; }
scripts/install-deps.sh test
stage "installing"

# No tracked file over 1 MB: bundled samples are generated, photos stay in ../shared, packages come from apt.
large=$(git ls-files -z | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk '$1 > 1048576 { print $2 " (" $1 " bytes)" }')
if [ -n "$large" ]; then echo "tracked files over 1 MB:"; echo "$large"; exit 1; fi

# One release build with testability serves both the Swift tests and the end-to-end runs.
swift build -c release -Xswiftc -enable-testing --build-tests
stage "the release build"
# Swift Testing prints a failure where it happens, among hundreds of lines: repeat the failures at the end,
# where a reader of CI's tail sees them.
swift_log=$(mktemp)
# The render sweep (every notebook on every shared photo at the page's widths) keeps both cores busy for
# minutes: it runs on its own after the rest, so it does not push their tests past their time limits.
for selection in "--skip RenderSweepTests" "--filter RenderSweepTests"; do
    # shellcheck disable=SC2086
    if ! swift test -c release -Xswiftc -enable-testing --skip-build $selection 2>&1 | tee "$swift_log"; then
        echo "---- failed Swift tests ----"
        grep -E -A6 "recorded an issue|✘ Test .* failed|error:" "$swift_log" | head -150
        # A crash ends the process mid-run: say which tests were still running and where each thread was.
        if grep -q "Program crashed" "$swift_log"; then
            echo "---- tests started and never ended ----"
            awk '/^◇ Test .* started\.$/ && !/^◇ Test case passing/ { sub(/^◇ Test /, ""); sub(/ started\.$/, ""); open[$0] = 1 }
                 /^(✔|✘|➜) Test / { line = $0; sub(/^(✔|✘|➜) Test /, "", line); sub(/ (with [0-9]+ test cases? )?(passed|failed|skipped).*$/, "", line); delete open[line] }
                 END { for (name in open) print name }' "$swift_log" | sort | head -40
            echo "---- the crash ----"
            sed -n '/\*\*\* Program crashed/,/^Images/p' "$swift_log" | head -200
        fi
        exit 1
    fi
    stage "swift test $selection"
done

# The servers of both end-to-end passes share their generated samples (conftest.py): traced once, by the first
# server of the normal pass, instead of again by each sanitized one, where a trace takes most of a minute.
DEPTHBOOK_SAMPLES=$(mktemp -d)
export DEPTHBOOK_SAMPLES
trap 'rm -rf "$DEPTHBOOK_SAMPLES"' EXIT

# No end-to-end test found is a failure, like a pytest run that collects none (exit 5).
compgen -G "Tests/EndToEnd/test_*.py" >/dev/null || { echo "no end-to-end tests in Tests/EndToEnd"; exit 1; }
DEPTHBOOK_BIN="$(swift build -c release -Xswiftc -enable-testing --show-bin-path)/depthbook" \
    python3 -m pytest -q --durations=15 Tests/EndToEnd
stage "the end-to-end tests"

# ThreadSanitizer over what threads share (sessions, render pool, transport, stores, the load-test client): a
# build of its own, then the thread-heavy suites; any race report fails the run.
scripts/sanitize-threads.sh
stage "the sanitizer"
