"""A photo without depth (issue 36, item 4), against a real `depthbook serve`: the shared iPhone portrait re-saved
as a plain JPEG (its pixels only: no depth, no mattes, no XMP) is uploaded, opens with depth estimated from the
person matte (made in the background: the upload's reply says it is coming, a `photo` event brings it), says so
in its facts and frames, and depth of field renders on it with the subject sharp and the background blurred; the
point cloud says why it cannot."""
from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops, ImageFilter, ImageOps, ImageStat

from conftest import require_person_matte_weights
from test_server_support import Client, PHOTOS_DIR, post, start_server

ESTIMATED = "estimated (from the person matte)"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_person_matte_weights()
    running = start_server(tmp_path_factory.mktemp("estimated-depth") / "data")
    yield running
    running.stop()


def plain_jpeg() -> bytes:
    """The iPhone XS portrait upright, 1158 px wide, saved by PIL: nothing but the picture."""
    with Image.open(PHOTOS_DIR / "fidmaa-portrait-analyser__jpeg_depth_data.jpg") as original:
        upright = ImageOps.exif_transpose(original).convert("RGB")
    upright = upright.resize((1158, round(1158 * upright.height / upright.width)))
    out = io.BytesIO()
    upright.save(out, "JPEG", quality=92)
    return out.getvalue()


def detail(image: Image.Image, box: tuple[int, int, int, int]) -> float:
    """Mean band-pass energy (Gaussian σ 1 minus σ 4) of the grey picture inside `box`: the detail a lens blur
    takes away, above the frame's JPEG noise (a 3×3 edge filter mostly measures that noise on a plain wall)."""
    grey = image.convert("L")
    band = ImageChops.difference(grey.filter(ImageFilter.GaussianBlur(1)), grey.filter(ImageFilter.GaussianBlur(4)))
    return ImageStat.Stat(band.crop(box)).mean[0]


def test_a_plain_jpeg_opens_with_estimated_depth_and_renders_depth_of_field(server):
    body = plain_jpeg()
    status, uploaded = post(server, "/api/upload", body)
    assert status == 200, uploaded
    # Answered before the network ran: no depth yet, the matte (and with it the estimate) coming.
    assert uploaded["photo"].get("coming") == ["personMatte"] and not uploaded["photo"].get("depth"), uploaded["photo"]
    client = Client(server)
    client.ok("hello", protocol=1)
    client.ok("openNotebook", name="depth-of-field", timeout=180)
    opened = client.ok("openPhoto", photo={"upload": uploaded["upload"]}, timeout=180)
    facts = opened["photo"]
    if facts.get("coming"):
        facts = client.wait_event(lambda e: e.get("event") == "photo", "the photo with its estimated depth", timeout=180)["photo"]
    depth = facts["depth"]
    assert depth["estimated"] == ESTIMATED and depth["kind"] == "disparity", depth

    client.ok("preview", cell="portrait", width=580, seq=1)
    header, payload = client.wait_frame("portrait", 1, timeout=300, coarse=False)
    assert any("estimated from the person matte" in note for note in header.get("notes", [])), header
    client.ok("preview", cell="photo", width=580, seq=2)
    _, photo_payload = client.wait_frame("photo", 2, timeout=300, coarse=False)
    result, photo = Image.open(io.BytesIO(payload)), Image.open(io.BytesIO(photo_payload))
    assert result.size == photo.size
    w, h = result.size
    # The face (glasses, nose and chin) and the wall on either side above the head (the left one with its corner).
    face = (int(0.35 * w), int(0.3 * h), int(0.65 * w), int(0.5 * h))
    corners = [(0, 0, int(0.27 * w), int(0.3 * h)), (int(0.78 * w), 0, w, int(0.25 * h))]
    kept_face = detail(result, face) / detail(photo, face)
    kept_background = sum(detail(result, box) for box in corners) / sum(detail(photo, box) for box in corners)
    print(f"estimated-depth e2e: detail kept on the face {kept_face:.3f}, in the background {kept_background:.3f}")
    assert kept_face >= 0.8, kept_face
    assert kept_background <= 0.5, kept_background

    client.ok("openNotebook", name="point-cloud", timeout=180)
    client.ok("openPhoto", photo={"upload": uploaded["upload"]}, timeout=180)
    client.ok("preview", cell="front", width=320, seq=3)
    with pytest.raises(AssertionError, match="estimated"):
        client.wait_frame("front", 3, timeout=120)
    client.close()
