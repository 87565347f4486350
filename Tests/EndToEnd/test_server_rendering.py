"""Live rendering against a real `depthbook serve` on the bundled depth-threshold notebook: frames and their
headers, coalescing of a burst, coarse-then-full, crops, histograms, exports, a disconnect mid-render, two
viewers seeing the same frames, and a share URL giving the same recipe and the same pixels."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from test_server_support import Client, REPO_ROOT, get, post, start_server

NOTEBOOK = "depth-threshold"
SLIDER_CELL = "mask"
WIDTH = 640


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not (REPO_ROOT / "Notebooks" / f"{NOTEBOOK}.json").exists():
        pytest.fail("Notebooks/depth-threshold.json is missing")
    running = start_server(tmp_path_factory.mktemp("rendering") / "data", "--session-grace", "60")
    yield running
    running.stop()


def open_client(server) -> tuple[Client, str, dict]:
    client = Client(server)
    hello = client.ok("hello", protocol=1)
    client.resume = hello["resume"]
    opened = client.ok("openNotebook", name=NOTEBOOK, timeout=180)
    return client, hello["session"], opened


def jpeg_size(payload: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(payload))
    assert image.format == "JPEG"
    return image.size


def test_preview_frames_carry_their_header_and_a_real_jpeg(server):
    client, _, opened = open_client(server)
    photo = opened["photo"]
    result = client.ok("preview", cell=SLIDER_CELL, width=WIDTH, seq=1)
    assert result == {"cell": SLIDER_CELL, "seq": 1}
    header, payload = client.wait_frame(SLIDER_CELL, 1)
    assert header["kind"] == "preview" and header["coarse"] is False
    assert header["width"] == WIDTH
    assert header["height"] == round(WIDTH * photo["height"] / photo["width"])
    assert jpeg_size(payload) == (header["width"], header["height"])
    assert header["renderMs"] >= 0 and header["cacheHits"] >= 0 and header["cacheMisses"] >= 0
    # A plane can be previewed directly, as the page's view cells do.
    client.ok("preview", cell="photo.disparity", width=256, seq=2)
    header, payload = client.wait_frame("photo.disparity", 2)
    assert jpeg_size(payload)[0] == 256
    client.close()


def test_a_burst_of_100_changes_yields_frames_only_for_the_newest_in_order(server):
    client, _, _ = open_client(server)
    client.ok("preview", cell=SLIDER_CELL, width=WIDTH, seq=1)
    client.wait_frame(SLIDER_CELL, 1)
    client.frames.clear()
    ids = [client.send("setParams", cell=SLIDER_CELL, params={"percentile": 20 + (i % 60)}, seq=2 + i) for i in range(100)]
    for request_id in ids:
        assert client.reply(request_id)["ok"]
    client.wait_frame(SLIDER_CELL, 101, coarse=False)
    # One more render of the cell: frames of a cell leave in seq order, so any stray frame of the burst
    # would arrive before this one.
    client.ok("preview", cell=SLIDER_CELL, width=WIDTH, seq=102)
    client.wait_frame(SLIDER_CELL, 102, coarse=False)
    seqs = [h["seq"] for h, _ in client.frames if h["cell"] == SLIDER_CELL and h["seq"] <= 101]
    assert seqs[-1] == 101
    assert seqs == sorted(set(seqs)), f"frames in increasing order, none twice: {seqs}"
    # Which frames besides the last one go out depends on how the burst's arrival interleaves with renders
    # (each is the newest at the moment it is sent); the Swift session tests pin the exact case with a gate.
    # Under a loaded CI machine 31 frames were seen; an uncoalesced burst would give 100.
    assert len(seqs) <= 50, f"a burst is coalesced, not rendered 100 times: {seqs}"
    # A stale sequence number is refused; the session carries on.
    assert client.request("setParams", cell=SLIDER_CELL, params={"percentile": 50}, seq=50)["error"]["code"] == "bad_request"
    assert client.ok("listNotebooks")
    client.close()


def test_interactive_changes_get_coarse_then_full(server):
    client, _, _ = open_client(server)
    client.ok("preview", cell=SLIDER_CELL, width=WIDTH, seq=1)
    client.wait_frame(SLIDER_CELL, 1)
    client.ok("setParams", cell=SLIDER_CELL, params={"percentile": 40}, seq=2, interactive=True)
    full, _ = client.wait_frame(SLIDER_CELL, 2, coarse=False)
    coarse = [h for h, _ in client.frames if h["seq"] == 2 and h["coarse"]]
    # The coarse frame may be replaced by the full one if the page had not read it yet; when it came, it
    # came first and smaller.
    if coarse:
        assert coarse[0]["width"] == WIDTH // 2
        assert client.frames.index(next(f for f in client.frames if f[0] is coarse[0])) < \
            client.frames.index(next(f for f in client.frames if f[0] is full))
    assert full["width"] == WIDTH
    client.close()


def test_dependent_cells_follow_the_slider(server):
    client, _, _ = open_client(server)
    client.ok("preview", cell="result", width=320, seq=1)
    client.wait_frame("result", 1)
    client.ok("setParams", cell=SLIDER_CELL, params={"percentile": 30}, seq=2)
    header, _ = client.wait_frame("result", 2)
    assert header["width"] == 320
    client.close()


def test_crop_histogram_and_errors_in_place(server):
    client, _, opened = open_client(server)
    client.ok("crop", cell="result", x=100, y=120, w=200, h=150, seq=1)
    header, payload = client.wait_frame("result", 1)
    assert header["kind"] == "crop" and (header["width"], header["height"]) == (200, 150)
    assert jpeg_size(payload) == (200, 150)
    histogram = client.ok("histogram", cell=SLIDER_CELL, bins=64)
    assert len(histogram["bins"]) == 64 and histogram["min"] <= histogram["max"]
    assert histogram["marker"] is not None and histogram["min"] <= histogram["marker"] <= histogram["max"]
    # A bad parameter value is refused before it is merged, naming the parameter; the session lives on.
    refused = client.request("setParams", cell=SLIDER_CELL, params={"percentile": "lots"}, seq=2)
    assert refused["error"]["code"] == "bad_request" and "percentile" in refused["error"]["message"]
    assert client.ok("listSamples")
    client.close()


def test_export_reports_progress_and_serves_the_file(server):
    client, _, opened = open_client(server)
    request_id = client.send("export", cell="result", format="jpeg")
    reply = client.reply(request_id, timeout=300)
    assert reply["ok"], reply
    progress = [e["fraction"] for e in client.events if e.get("event") == "progress" and e.get("request") == request_id]
    assert progress and progress == sorted(progress) and progress[-1] == 1
    status, headers, body = get(server, reply["result"]["url"])
    assert status == 200 and len(body) == reply["result"]["bytes"]
    image = Image.open(io.BytesIO(body))
    assert image.size == (opened["photo"]["width"], opened["photo"]["height"])
    assert b"http://ns.depthbook.dev/1.0/" in body, "the recipe travels in the XMP"
    # Dropping the exported file back in gives the recipe back, and it still has its depth.
    status, uploaded = post(server, "/api/upload", body)
    assert status == 200, uploaded
    assert uploaded["notebook"] == opened["notebook"]
    assert uploaded["photo"]["depth"]["width"] == opened["photo"]["depth"]["width"]
    mask = client.ok("export", cell="feathered", format="png", timeout=300)
    status, _, png = get(server, mask["url"])
    assert status == 200 and png.startswith(b"\x89PNG")
    assert Image.open(io.BytesIO(png)).mode == "L"
    assert client.request("export", cell="result", format="gif")["error"]["code"] == "unsupported"
    client.close()


def test_disconnect_mid_render_then_reconnect(server):
    client, session, _ = open_client(server)
    resume = client.resume
    for seq in range(1, 6):
        client.send("preview", cell="result", width=2048, seq=seq)
    client.close()  # gone while renders are queued and running
    again = Client(server)
    hello = again.ok("hello", protocol=1, session=session, resume=resume)
    assert hello["resumed"] is True and hello["notebook"]["name"] == NOTEBOOK
    again.ok("preview", cell=SLIDER_CELL, width=WIDTH, seq=10)
    header, _ = again.wait_frame(SLIDER_CELL, 10)
    assert header["width"] == WIDTH
    assert server.alive()
    again.close()


def test_two_viewers_see_the_same_frames(server):
    editor, session, _ = open_client(server)
    watcher = Client(server)
    assert watcher.ok("hello", protocol=1, watch=session)["role"] == "watch"
    editor.ok("preview", cell=SLIDER_CELL, width=WIDTH, seq=1)
    mine = editor.wait_frame(SLIDER_CELL, 1)
    theirs = watcher.wait_frame(SLIDER_CELL, 1)
    assert mine[0] == theirs[0] and mine[1] == theirs[1]
    editor.ok("setParams", cell=SLIDER_CELL, params={"percentile": 55}, seq=2)
    assert editor.wait_frame(SLIDER_CELL, 2)[1] == watcher.wait_frame(SLIDER_CELL, 2)[1]
    editor.close()
    watcher.close()


def test_share_url_gives_the_same_recipe_and_the_same_pixels(server):
    editor, _, _ = open_client(server)
    editor.ok("setParams", cell=SLIDER_CELL, params={"percentile": 35}, seq=1)
    editor.ok("preview", cell="result", width=WIDTH, seq=2)
    _, before = editor.wait_frame("result", 2)
    saved = editor.ok("save")
    status, _, page = get(server, saved["url"])
    assert status == 200 and page == get(server, "/")[2]

    other = Client(server)
    other.ok("hello", protocol=1)
    reopened = other.ok("openNotebook", name=saved["shared"], timeout=180)
    mask = next(c for c in reopened["notebook"]["cells"] if c["id"] == SLIDER_CELL)
    assert mask["params"]["percentile"] == 35
    other.ok("preview", cell="result", width=WIDTH, seq=1)
    _, after = other.wait_frame("result", 1)
    assert after == before, "the same recipe renders the same pixels"
    editor.close()
    other.close()
