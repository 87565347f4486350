"""`depthbook loadtest` against a real server: real sessions drag the depth-threshold slider and the command
prints the one JSON line the issue specifies. Checks the line's shape and consistency, not speed."""
from __future__ import annotations

import json
import subprocess

import pytest

from test_server_support import binary, start_server

KEYS = ["sessions", "changes", "frames", "p50_ms", "p95_ms", "max_ms", "dropped", "errors", "server_rss_mb"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("loadtest") / "data")
    yield running
    running.stop()


def run_loadtest(server, *args: str) -> dict:
    done = subprocess.run([binary(), "loadtest", "--url", f"ws://127.0.0.1:{server.port}", *args, "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, done.stdout
    assert list(json.loads(lines[0]).keys()) == KEYS, lines[0]
    return json.loads(lines[0])


def test_two_sessions_drag_the_slider(server):
    report = run_loadtest(server, "--sessions", "2", "--changes", "20", "--rate", "20", "--width", "640")
    assert report["sessions"] == 2 and report["changes"] == 40
    assert report["errors"] == 0
    assert 0 < report["frames"]
    assert 0 <= report["dropped"] < report["changes"]
    assert 0 < report["p50_ms"] <= report["p95_ms"] <= report["max_ms"]
    assert report["server_rss_mb"] > 1
    assert server.alive()


def test_a_bad_url_is_refused_with_a_message(server):
    done = subprocess.run([binary(), "loadtest", "--url", "http://nowhere"], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "ws://" in done.stderr
