#!/usr/bin/env bash
# ThreadSanitizer over the code whose threads share state: the server's suites (sessions, render pool, transport,
# stores), then the protocol, hostile-client and load-test runs end to end, against a sanitized build of the real
# server and of the load-test client (one binary). Any report fails the run and is printed.
#
# Locks are `Locked` (NSLock, a pthread mutex the sanitizer intercepts), not Synchronization's Mutex, whose
# futex calls it cannot see (every access a Mutex guards would be reported).
set -euo pipefail
cd "$(dirname "$0")/.."

build=(-c release -Xswiftc -enable-testing --sanitize=thread --scratch-path .build-tsan)
swift build "${build[@]}" --build-tests
binary="$(swift build "${build[@]}" --show-bin-path)/depthbook"
# (grep reads all of nm's output: with -q it would stop early and pipefail would count nm's broken pipe.)
nm "$binary" | grep __tsan_init >/dev/null || { echo "$binary is not built with ThreadSanitizer"; exit 1; }

reports=$(mktemp -d)
# One file per process that found a race (none otherwise); a process with a report also exits with 66.
export TSAN_OPTIONS="log_path=$reports/race"
status=0
swift test "${build[@]}" --skip-build --filter DepthbookServerTests --skip NotebookStoreContractTests || status=1
# The PostgreSQL contract on its own: beside the render-heavy suites the sanitized client misses its 15 s connect
# time-out on two cores.
swift test "${build[@]}" --skip-build --filter NotebookStoreContractTests || status=1
# Not the two-session drag: it asserts that frames arrive during a one-second drag, which a sanitized server,
# several times slower, does not render in time. The other load-test runs drive the same client and server.
DEPTHBOOK_BIN="$binary" python3 -m pytest -q Tests/EndToEnd/test_server_protocol.py \
    Tests/EndToEnd/test_server_hostile.py Tests/EndToEnd/test_server_hostile_round_two.py \
    Tests/EndToEnd/test_server_loadtest.py -k "not test_two_sessions_drag_the_slider" || status=1

if compgen -G "$reports/race*" >/dev/null; then
    echo "---- ThreadSanitizer reports ----"
    cat "$reports"/race*
    exit 1
fi
exit $status
