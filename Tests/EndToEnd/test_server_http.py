"""HTTP beside the socket against a real `depthbook serve`: the page, its types and caching, share URLs,
health, path traversal of every kind, and uploads (every file in ../shared/photos/bad/ is refused cleanly)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_server_support import PHOTOS_DIR, REPO_ROOT, get, post, sha256, start_server


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A server over a throwaway Public/ with a symlink pointing outside it and a secret beside it."""
    base = tmp_path_factory.mktemp("site")
    public = base / "public"
    (public / "js").mkdir(parents=True)
    (public / "index.html").write_text("<!doctype html><title>page</title>")
    (public / "js" / "main.js").write_text("export const x = 1;\n")
    (public / "js" / "mod.mjs").write_text("export {};\n")
    (public / "img.webp").write_bytes(b"RIFF\0\0\0\0WEBP")
    (base / "secret.txt").write_text("top secret")
    os.symlink(base / "secret.txt", public / "leak.txt")
    os.symlink(base, public / "up")
    data = base / "data"
    server = start_server(data, "--upload-limit-mb", "2", public=public, notebooks=base / "notebooks")
    yield server
    server.stop()


def test_health_and_page(site):
    assert get(site, "/healthz")[0:3:2] == (200, b"ok")
    status, headers, body = get(site, "/")
    assert status == 200 and body.startswith(b"<!doctype html>")
    assert headers["content-type"].startswith("text/html")
    assert headers["cache-control"] == "no-cache"


def test_share_urls_serve_the_page(site):
    page = get(site, "/")[2]
    for path in ["/n/depth-threshold", "/n/0123456789abcdef0123"]:
        status, headers, body = get(site, path)
        assert status == 200 and body == page, path
    assert get(site, "/n/not%20valid!")[0] == 404


def test_types_and_revalidation(site):
    status, headers, _ = get(site, "/js/main.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert get(site, "/js/mod.mjs")[1]["content-type"].startswith("text/javascript")
    status, headers, _ = get(site, "/img.webp")
    assert headers["content-type"] == "image/webp" and "max-age" in headers["cache-control"]
    etag = get(site, "/js/main.js")[1]["etag"]
    status, _, body = get(site, "/js/main.js", {"If-None-Match": etag})
    assert status == 304 and body == b""


@pytest.mark.parametrize("path", [
    "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/js/../../secret.txt",
    "/js/%2e%2e/%2e%2e/secret.txt", "/..%2f..%2fsecret.txt", "/leak.txt", "/up/secret.txt", "/%2fetc%2fpasswd",
    "//etc/passwd", "/etc/passwd", "/.%2e/secret.txt", "/js/..%5c..%5csecret.txt", "/%00/secret.txt",
    "/exports/../secret.txt", "/exports/%2e%2e%2fsecret.txt", "/exports/..%2f..%2fsecret.txt", "/exports//etc/passwd",
])
def test_nothing_outside_public_is_served(site, path):
    status, _, body = get(site, path)
    assert status in (400, 403, 404), (path, status)
    assert b"secret" not in body and b"root:" not in body


def test_every_bad_photo_is_refused_and_leaves_nothing(site):
    bad = sorted((PHOTOS_DIR / "bad").iterdir())
    assert bad, "../shared/photos/bad/ is empty"
    refused = []
    for photo in bad:
        status, reply = post(site, "/api/upload", photo.read_bytes())
        if "invalid_id" in photo.name and status == 200:
            # The photos' README: this odd file may load; then it must be a real photo.
            assert reply["photo"]["width"] > 0 and reply["upload"] == sha256(photo.read_bytes())
            continue
        assert status == 400, (photo.name, status, reply)
        assert reply["error"]["message"], photo.name
        refused.append(photo)
    assert len(refused) >= 3
    assert site.alive()
    uploads = site.data_dir / "uploads"
    stored = [p.name for p in uploads.iterdir()] if uploads.exists() else []
    for photo in refused:
        assert not any(name.startswith(sha256(photo.read_bytes())) for name in stored), photo.name
    assert not any(name.startswith(".") for name in stored), stored


def test_garbage_empty_and_oversized_uploads(site):
    status, reply = post(site, "/api/upload", b"definitely not a photo")
    assert status == 400 and "HEIC, JPEG or PNG" in reply["error"]["message"]
    assert post(site, "/api/upload", b"")[0] == 400
    status, reply = post(site, "/api/upload", b"\xff\xd8\xff" + os.urandom(3 * 1024 * 1024))
    assert status == 413 and "at most" in reply["error"]["message"]
    assert site.alive()
    assert get(site, "/healthz")[0] == 200


def test_a_real_photo_upload_is_stored_by_its_hash(site):
    photo = PHOTOS_DIR / "depthy__flowers-image.jpg"
    facts = {entry["file"]: entry for entry in json.loads((PHOTOS_DIR / "facts.json").read_text())}
    data = photo.read_bytes()
    status, reply = post(site, "/api/upload", data)
    assert status == 200, reply
    assert reply["upload"] == sha256(data)
    assert reply["photo"]["width"] == facts[photo.name]["width"]
    assert reply["photo"]["height"] == facts[photo.name]["height"]
    assert reply["photo"]["source"] == {"upload": sha256(data)}
    stored = site.data_dir / "uploads" / f"{sha256(data)}.jpg"
    assert stored.read_bytes() == data
    # The same file again is the same upload, still one file.
    assert post(site, "/api/upload", data)[1]["upload"] == reply["upload"]

    depth = (PHOTOS_DIR / "depthy__flowers-depth.jpg").read_bytes()
    status, paired = post(site, f"/api/upload?depthFor={reply['upload']}", depth)
    assert status == 200, paired
    assert paired["upload"] != reply["upload"]
    assert paired["photo"]["depth"]["kind"] == "disparity"
    # depthy's map is brighter where things are farther: with no `brighter`, the server works that out.
    assert paired["photo"]["depth"]["polarity"] == "brighterFarther" and paired["photo"]["depth"]["polarityDetected"] is True, paired
    assert (site.data_dir / "uploads" / f"{paired['upload']}.pair").read_text().splitlines()[-1] == "detect"
    status, refused = post(site, "/api/upload?depthFor=" + "0" * 64, depth)
    assert status == 400 and "upload the image first" in refused["error"]["message"]
    # The same map marked brighter-is-farther is another pair; a polarity that is neither is refused.
    status, farther = post(site, f"/api/upload?depthFor={reply['upload']}&brighter=farther", depth)
    assert status == 200 and farther["upload"] not in (paired["upload"], reply["upload"]), farther
    assert (site.data_dir / "uploads" / f"{farther['upload']}.pair").read_text().splitlines()[-1] == "farther"
    assert farther["photo"]["depth"]["polarity"] == "brighterFarther" and farther["photo"]["depth"]["polarityDetected"] is False, farther
    status, refused = post(site, f"/api/upload?depthFor={reply['upload']}&brighter=sideways", depth)
    assert status == 400 and "nearer" in refused["error"]["message"] and "farther" in refused["error"]["message"]
    leftovers = [p.name for p in (site.data_dir / "uploads").iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_unknown_methods_and_paths(site):
    assert get(site, "/api/upload")[0] == 405
    assert post(site, "/elsewhere", b"x")[0] == 404


def test_serve_from_any_folder_finds_its_page_and_notebooks(tmp_path):
    """Started from a folder that holds neither Public/ nor Notebooks/, the server finds both itself (next to
    the executable, an installed share folder, or the checkout it was built in) instead of answering 404."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server = start_server(tmp_path / "data", cwd=elsewhere, find_assets=True)
    try:
        status, headers, body = get(server, "/")
        assert status == 200 and headers["content-type"].startswith("text/html"), (status, body[:200])
        assert b"<html" in body.lower()
        status, _, _ = get(server, "/n/depth-threshold")
        assert status == 200
        assert any("notebooks" in line and "Notebooks" in line for line in server.output), server.output
    finally:
        server.stop()

