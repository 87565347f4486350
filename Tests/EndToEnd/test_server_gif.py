"""GIF and MP4 export against a real `depthbook serve` on the bundled wiggle notebook: the catalog says which effects
animate, an animated step exports as a looping GIF with the requested frames (a progress event per frame),
an MP4 of the same loop reads back in ffprobe, and a still cell's export is refused."""
from __future__ import annotations

import io

import pytest
from PIL import Image, ImageSequence

from test_server_support import Client, REPO_ROOT, get, start_server

NOTEBOOK = "wiggle"
CELL = "frame-quarter"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not (REPO_ROOT / "Notebooks" / f"{NOTEBOOK}.json").exists():
        pytest.fail("Notebooks/wiggle.json is missing")
    running = start_server(tmp_path_factory.mktemp("gif") / "data", "--session-grace", "60")
    yield running
    running.stop()


def open_client(server) -> tuple[Client, dict]:
    client = Client(server)
    client.ok("hello", protocol=1)
    return client, client.ok("openNotebook", name=NOTEBOOK, timeout=180)


def export_loop(server, client, fmt: str, frames: int, width: int, mime: str) -> bytes:
    """Exports the wiggle cell's loop, checks the progress events (one per frame, in order, ending at 1) and
    the download, and returns the file's bytes."""
    request_id = client.send("export", cell=CELL, format=fmt, frames=frames, width=width)
    reply = client.reply(request_id, timeout=300)
    assert reply["ok"], reply
    progress = [e["fraction"] for e in client.events if e.get("event") == "progress" and e.get("request") == request_id]
    assert progress == sorted(progress) and progress[-1] == 1
    assert len(progress) >= frames + 1, f"expected a progress event per frame, got {progress}"
    url = reply["result"]["url"]
    assert url.startswith("/exports/") and url.endswith(f".{fmt}")
    status, headers, body = get(server, url)
    assert status == 200 and len(body) == reply["result"]["bytes"]
    assert headers.get("content-type", "").startswith(mime)
    return body


def test_catalog_marks_only_wiggle_animated(server):
    client = Client(server)
    client.ok("hello", protocol=1)
    effects = client.ok("effects")["effects"]
    assert all(isinstance(e.get("animated"), bool) for e in effects)
    assert [e["id"] for e in effects if e["animated"]] == ["wiggle"]
    client.close()


def test_gif_export_of_the_wiggle_cell(server):
    client, opened = open_client(server)
    photo = opened["photo"]
    body = export_loop(server, client, "gif", frames=6, width=200, mime="image/gif")
    image = Image.open(io.BytesIO(body))
    assert image.format == "GIF"
    assert image.n_frames == 6
    assert image.size == (200, round(200 * photo["height"] / photo["width"]))
    assert image.info.get("loop") == 0, "the loop repeats forever"
    frames = [frame.convert("RGB").tobytes() for frame in ImageSequence.Iterator(image)]
    assert len(set(frames)) > 1, "the frames of the loop should differ"
    client.close()


def test_gif_export_of_a_still_cell_is_refused(server):
    client, _ = open_client(server)
    for cell in ("disparity", "photo"):
        error = client.request("export", cell=cell, format="gif")["error"]
        assert error["code"] == "unsupported", error
        assert "does not animate" in error["message"] and "wiggle" in error["message"]
    bad = client.request("export", cell=CELL, format="gif", frames=1)["error"]
    assert bad["code"] == "bad_request" and "frames" in bad["message"]
    assert server.alive()
    client.close()


def ffprobe(path) -> dict:
    """What FFmpeg's own prober reads from a file: a reader independent of the server's encoder."""
    import json
    import shutil
    import subprocess
    if not shutil.which("ffprobe"):
        pytest.fail("ffprobe is needed: apt-get install -y ffmpeg (scripts/install-deps.sh test does it)")
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                          "stream=codec_name,width,height,nb_read_frames,pix_fmt:format=format_name", "-of", "json", str(path)],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return json.loads(out)


def test_mp4_export_of_the_wiggle_cell(server, tmp_path):
    client, opened = open_client(server)
    photo = opened["photo"]
    body = export_loop(server, client, "mp4", frames=8, width=320, mime="video/mp4")
    path = tmp_path / "wiggle.mp4"
    path.write_bytes(body)
    facts = ffprobe(path)
    stream = facts["streams"][0]
    height = round(320 * photo["height"] / photo["width"])
    assert stream["codec_name"] == "h264" and stream["pix_fmt"] == "yuv420p"
    assert int(stream["nb_read_frames"]) == 8
    assert (stream["width"], stream["height"]) == (320, height - height % 2)
    assert "mp4" in facts["format"]["format_name"]
    # A still cell animates no more as a video than as a GIF.
    assert client.request("export", cell="photo", format="mp4")["error"]["code"] == "unsupported"
    client.close()
