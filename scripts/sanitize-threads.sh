#!/usr/bin/env bash
# ThreadSanitizer over the code whose threads share state: the server's suites (sessions, render pool, transport,
# stores), the engine's cache and evaluator suites and the strip-parallel JPEG encoder's, then the protocol,
# hostile-client and load-test runs end to end, against a sanitized build of the real server and of the load-test
# client (one binary). Any report fails the run and is printed.
#
# Locks are `Locked` (NSLock, a pthread mutex the sanitizer intercepts), not Synchronization's Mutex, whose
# futex calls it cannot see (every access a Mutex guards would be reported).
set -euo pipefail
cd "$(dirname "$0")/.."

build=(-c release -Xswiftc -enable-testing --sanitize=thread --scratch-path .build-tsan)
swift build "${build[@]}" --build-tests
echo "==== the sanitized build took ${SECONDS} s ===="
binary="$(swift build "${build[@]}" --show-bin-path)/depthbook"
# (grep reads all of nm's output: with -q it would stop early and pipefail would count nm's broken pipe.)
nm "$binary" | grep __tsan_init >/dev/null || { echo "$binary is not built with ThreadSanitizer"; exit 1; }

reports=$(mktemp -d)
# One file per process that found a race (none otherwise); a process with a report also exits with 66. The
# suppressions name reports that are not races in this code (each with its reason).
export TSAN_OPTIONS="log_path=$reports/race suppressions=$PWD/scripts/tsan-suppressions.txt"
status=0
# One test at a time: a sanitized build is several times slower, and side by side on two cores the suites'
# servers missed their clients' time-outs (a PostgreSQL connect, an HTTP read).
swift test "${build[@]}" --skip-build --no-parallel --filter DepthbookServerTests || status=1
# What the engine and the codecs share between threads without the server: the cache budget, the evaluator and its
# render cache on two threads, the JPEG encoded in parallel strips (issue 37: the server's suites reach them only
# through a session).
swift test "${build[@]}" --skip-build --no-parallel \
    --filter "DepthbookEngineTests.CacheBudgetTests|DepthbookEngineTests.EvaluatorTests|DepthbookCodecsTests.StripJPEGTests" || status=1
# Not three tests that time what a person sees: the two-session and scrolled-to-slider drags assert the result
# updates during a one-second drag (a sanitized server renders its first update after the drag has ended), the
# pipelined upload that the server falls idle within its wait. The other load-test runs drive the same client
# and server, the other hostile tests the same paths. The servers read the samples the normal pass generated
# (DEPTHBOOK_SAMPLES, set by scripts/test.sh): traced here, a sample took 52 s, and the load test's first
# openNotebook gave up at 60 s (CI's failure at stop 42).
# Each load-test session waits up to 5 minutes for a reply or frame (60 s by default): beside two CPU hogs the
# sanitized server took longer than a minute to decode three uploaded photos and answer (issue 40).
DEPTHBOOK_LOADTEST_TIMEOUT_S=300 DEPTHBOOK_BIN="$binary" python3 -m pytest -q Tests/EndToEnd/test_server_protocol.py \
    Tests/EndToEnd/test_server_hostile.py Tests/EndToEnd/test_server_hostile_round_two.py \
    Tests/EndToEnd/test_server_loadtest.py \
    --durations=10 -k "not test_two_sessions_drag_the_slider and not test_a_request_pipelined_behind_an_upload_does_not_wedge_http and not test_a_page_scrolled_to_the_slider_still_follows_with_its_result" || status=1

if compgen -G "$reports/race*" >/dev/null; then
    echo "---- ThreadSanitizer reports ----"
    cat "$reports"/race*
    exit 1
fi
exit $status
