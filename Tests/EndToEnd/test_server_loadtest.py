"""`depthbook loadtest` against a real server: real sessions drag the depth-threshold slider and the command
prints the one JSON line the issue specifies. Checks the line's shape and consistency, not speed."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from test_server_support import Client, binary, start_server

KEYS = ["sessions", "changes", "frames", "p50_ms", "p95_ms", "max_ms", "dropped", "errors", "server_rss_mb", "first_error",
        "final_cell", "final_full_p50_ms", "final_full_p95_ms", "final_full_max_ms", "final_updates_per_s", "final_max_gap_ms",
        "photos", "photos_ready_max_ms", "slowest_final_full_p95_ms", "slowest_final_updates_per_s", "server_cpu_cores",
        "watchers", "watcher_final_full_p50_ms", "watcher_final_full_p95_ms", "slowest_watcher_final_full_p95_ms",
        "watcher_updates_per_s", "final_coarse_render_p50_ms", "final_full_render_p50_ms",
        "settle_p50_ms", "settle_p95_ms", "settle_max_ms"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("loadtest") / "data")
    yield running
    running.stop()


def run_loadtest(server, *args: str, url: str | None = None) -> dict:
    # A sanitized server beside other work answers far slower (scripts/sanitize-threads.sh sets a longer wait).
    wait = os.environ.get("DEPTHBOOK_LOADTEST_TIMEOUT_S", "60")
    done = subprocess.run([binary(), "loadtest", "--url", url or f"ws://127.0.0.1:{server.port}", *args, "--timeout", wait, "--json"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, done.stdout
    report = json.loads(lines[0])
    # Every key, in any order; `first_error` only when something failed.
    assert set(report) | {"first_error"} == set(KEYS), lines[0]
    report.setdefault("first_error", None)
    return report


def test_two_sessions_drag_the_slider(server):
    report = run_loadtest(server, "--sessions", "2", "--changes", "20", "--rate", "20", "--width", "640")
    assert report["sessions"] == 2 and report["changes"] == 40
    assert report["errors"] == 0 and report["first_error"] is None
    assert 0 < report["frames"]
    assert 0 <= report["dropped"] < report["changes"]
    assert 0 < report["p50_ms"] <= report["p95_ms"] <= report["max_ms"]
    assert report["server_rss_mb"] > 1
    # What a person watches: the last cell reading the slider's (depth-threshold's "result"), full frames for
    # every change, and its picture changing during the drag.
    assert report["final_cell"] == "result"
    assert 0 < report["final_full_p50_ms"] <= report["final_full_p95_ms"] <= report["final_full_max_ms"]
    assert report["final_updates_per_s"] > 0 and report["final_max_gap_ms"] > 0
    # The server's own render time of those frames: full ones came, and each took some time to render.
    assert report["final_full_render_p50_ms"] > 0 and report["final_coarse_render_p50_ms"] >= 0
    # Letting go: each session's last change got its full frame, one of the per-change waits above.
    assert 0 < report["settle_p50_ms"] <= report["settle_p95_ms"] <= report["settle_max_ms"] <= report["final_full_max_ms"]
    assert server.alive()


def test_a_page_scrolled_to_the_slider_still_follows_with_its_result(server):
    # The cells between slider and result are named off screen while the slider moves: the result still
    # updates during the drag and ends on a full frame for the last change.
    report = run_loadtest(server, "--sessions", "1", "--changes", "20", "--rate", "20", "--width", "320",
                          "--scrolled-to-slider")
    assert report["errors"] == 0 and report["final_cell"] == "result", json.dumps(report)
    assert report["final_updates_per_s"] > 0
    assert 0 < report["final_full_p50_ms"] <= report["final_full_max_ms"]
    assert server.alive()


def test_each_session_on_its_own_photo(server, tmp_path):
    """`--photos DIR` (issue 41): a workshop where each person brought a photo; the report names how many photos,
    the slowest session's own figures and the cores the server spent."""
    import shutil

    from conftest import PHOTOS_DIR
    for name in ("fidmaa-portrait-analyser__jpeg_depth_data.jpg", "exifr__with_deth_map.jpg"):
        shutil.copy(PHOTOS_DIR / name, tmp_path / name)
    (tmp_path / "notes.txt").write_text("not a photo")
    report = run_loadtest(server, "--sessions", "3", "--changes", "10", "--rate", "10", "--width", "640", "--photos", str(tmp_path))
    assert report["photos"] == 2 and report["sessions"] == 3, report
    assert report["errors"] == 0 and report["first_error"] is None, report
    assert report["slowest_final_full_p95_ms"] > 0 and report["slowest_final_updates_per_s"] >= 0, report
    assert report["server_cpu_cores"] > 0, report
    # The Android photo has no Apple matte: its session dragged once the learned one had come.
    assert report["photos_ready_max_ms"] > 0, report


def test_an_audience_follows_the_presenter(server):
    """`--watchers N` (issue 41): pages following session 0 view-only get its watched cell's frames; the report
    says how long each change took to reach them."""
    report = run_loadtest(server, "--sessions", "1", "--changes", "10", "--rate", "10", "--width", "640", "--watchers", "5")
    assert report["watchers"] == 5 and report["errors"] == 0, report
    assert 0 < report["watcher_final_full_p50_ms"] <= report["watcher_final_full_p95_ms"] <= report["slowest_watcher_final_full_p95_ms"], report
    # A frame reaches a watcher when it reaches the presenter (one render, sent to every page of the session):
    # the audience's figures are not those of five more renders.
    assert report["watcher_final_full_p50_ms"] <= 3 * report["final_full_p50_ms"] + 100, report


def test_a_bad_url_is_refused_with_a_message(server):
    done = subprocess.run([binary(), "loadtest", "--url", "http://nowhere"], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "ws://" in done.stderr


class TLSForwarder:
    """A TLS terminator on loopback (what nginx does in deploy/), forwarding bytes to the plain server."""

    def __init__(self, upstream_port: int, cert: str, key: str):
        import socket
        import ssl
        import threading
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.upstream_port = upstream_port
        self.stopped = False
        threading.Thread(target=self.accept_loop, daemon=True).start()

    def accept_loop(self) -> None:
        import socket
        import threading
        while not self.stopped:
            try:
                raw, _ = self.listener.accept()
                client = self.context.wrap_socket(raw, server_side=True)
            except OSError:
                continue
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def pump(source, sink) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.close()
                except OSError:
                    pass

    def stop(self) -> None:
        self.stopped = True
        self.listener.close()


def test_wss_through_a_tls_terminator(server, tmp_path):
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    forwarder = TLSForwarder(server.port, str(cert), str(key))
    try:
        base = f"wss://127.0.0.1:{forwarder.port}/ws"
        report = run_loadtest(server, "--sessions", "2", "--changes", "10", "--rate", "20", "--width", "320",
                              "--origin", f"https://127.0.0.1:{forwarder.port}", "--ca-file", str(cert), url=base)
        assert report["errors"] == 0 and report["frames"] >= 2 and report["server_rss_mb"] > 1
        # Without the certificate to trust the handshake is refused, and a page from another origin is refused
        # by the server behind the terminator: each session counts an error and gets no frame.
        for extra in (["--origin", f"https://127.0.0.1:{forwarder.port}"], ["--ca-file", str(cert), "--origin", "https://evil.example"]):
            refused = run_loadtest(server, "--sessions", "1", "--changes", "1", *extra, url=base)
            assert refused["errors"] == 1 and refused["frames"] == 0, (extra, refused)
    finally:
        forwarder.stop()


def test_cells_out_of_view_render_after_the_result_as_the_drag_ends(server):
    """A page scrolled to the slider names the cells between it and the result in every change of a drag:
    they wait while the slider moves, and the change that ends the drag renders them after the result (as
    background work, behind every session's frames in view) instead of before it in notebook order."""
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        opened = client.ok("openNotebook", name="depth-threshold")
        cells = opened["notebook"]["cells"]
        mask = next(c["id"] for c in cells if c.get("effect") == "threshold")
        shown = [c["id"] for c in cells if opened["graph"]["cells"].get(c["id"], {}).get("renders")]
        for cell in shown:
            client.ok("preview", cell=cell, width=256, seq=1)
        for cell in shown:
            client.wait_frame(cell, 1, coarse=False)
        after = shown[shown.index(mask) + 1:]
        between = [cell for cell in after if cell != "result"]
        moving = client.ok("setParams", cell=mask, params={"percentile": 40}, seq=2, interactive=True, offscreen=between)
        assert {r["cell"] for r in moving["renders"]} == {mask, "result"}, moving
        client.wait_frame("result", 2, coarse=False)
        resting = client.ok("setParams", cell=mask, params={"percentile": 41}, seq=3, interactive=False, offscreen=between)
        rendered = [r["cell"] for r in resting["renders"]]
        unseen = [cell for cell in rendered if cell in between]
        assert len(unseen) >= 3 and "result" in rendered, resting
        for cell in rendered:
            client.wait_frame(cell, 3, coarse=False)
        order = [header["cell"] for header, _ in client.frames if header["seq"] == 3]
        assert all(order.index("result") < order.index(cell) for cell in unseen), order
        # Notebook order would have put every one of them before the result.
        assert all(shown.index(cell) < shown.index("result") for cell in unseen)
    finally:
        client.close()
    assert server.alive()
