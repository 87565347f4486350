"""`depthbook render` and `depthbook wiggle` run as a user runs them, on real photos, and real photos turned by
their EXIF orientation (3, 6, 8): copies made here with exiftool, which rewrites only the tag, so the upright
picture is known independently (Pillow's `exif_transpose` of the same file).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

from conftest import PHOTOS_DIR, REPO_ROOT, require_person_matte_weights

IMAGE = PHOTOS_DIR / "depthy__flowers-image.jpg"
DEPTH = PHOTOS_DIR / "depthy__flowers-depth.jpg"
PORTRAIT = PHOTOS_DIR / "fidmaa-portrait-analyser__jpeg_depth_data.jpg"  # MPF disparity and matte
NOTEBOOK = REPO_ROOT / "Notebooks" / "depth-threshold.json"


def run(depthbook_bin: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([depthbook_bin, *map(str, arguments)], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)


def pixels(path: Path) -> np.ndarray:
    return np.asarray(ImageOps.exif_transpose(Image.open(path)).convert("RGB"), dtype=np.float64)


def test_render_a_cell_at_full_size_is_the_photo_itself(depthbook_bin, tmp_path):
    out = tmp_path / "photo.jpg"
    done = run(depthbook_bin, "render", NOTEBOOK, "--photo", IMAGE, "--depth", DEPTH, "--cell", "photo", "-o", out)
    assert done.returncode == 0, done.stderr
    rendered, original = pixels(out), pixels(IMAGE)
    assert rendered.shape == original.shape
    # Decoded and encoded again as JPEG: equal up to the encoder's loss.
    assert np.abs(rendered - original).mean() < 3


def test_render_width_and_an_effect_cell(depthbook_bin, tmp_path):
    photo, result = tmp_path / "photo.jpg", tmp_path / "result.jpg"
    for cell, out in (("photo", photo), ("result", result)):
        done = run(depthbook_bin, "render", NOTEBOOK, "--photo", IMAGE, "--depth", DEPTH, "--cell", cell, "--width", 340, "-o", out)
        assert done.returncode == 0, done.stderr
        assert Image.open(out).size == (340, 600)  # 680×1200 scaled to 340 wide
    # The effect changed the picture: Noir foreground over a darkened background.
    changed = np.abs(pixels(photo) - pixels(result)).mean(axis=2)
    assert (changed > 12).mean() > 0.3


def test_render_refuses_what_it_cannot_do_with_a_clear_message(depthbook_bin, tmp_path):
    done = run(depthbook_bin, "render", NOTEBOOK, "--photo", IMAGE, "--depth", DEPTH, "--cell", "no-such-cell", "-o", tmp_path / "x.jpg")
    assert done.returncode != 0 and "no-such-cell" in done.stderr
    done = run(depthbook_bin, "render", NOTEBOOK, "--photo", tmp_path / "missing.jpg", "-o", tmp_path / "x.jpg")
    assert done.returncode != 0 and "missing.jpg" in done.stderr
    assert not (tmp_path / "x.jpg").exists(), "nothing written on failure"


def test_render_on_a_photo_without_depth_estimates_it_from_the_person_matte(depthbook_bin, tmp_path):
    """The command line mattes a photo as the studio does: the portrait's pixels alone (re-encoded, so no MPF
    disparity, no matte) render depth of field with the person sharp and the background blurred; without the
    matte the same photo is refused, saying why."""
    require_person_matte_weights()
    plain = tmp_path / "plain.jpg"
    Image.open(PORTRAIT).convert("RGB").save(plain, quality=95)
    notebook = REPO_ROOT / "Notebooks" / "depth-of-field.json"
    refused = run(depthbook_bin, "render", notebook, "--photo", plain, "--no-person-matte", "--width", 400, "-o", tmp_path / "x.jpg")
    assert refused.returncode != 0 and "taken without depth" in refused.stderr, refused.stderr

    out, matte = tmp_path / "dof.jpg", tmp_path / "matte.jpg"
    done = run(depthbook_bin, "render", notebook, "--photo", plain, "--width", 400, "-o", out)
    assert done.returncode == 0, done.stderr
    # Apple's matte of the original, read independently of the run above, says where the person is.
    done = run(depthbook_bin, "render", notebook, "--photo", PORTRAIT, "--cell", "photo.portraitEffectsMatte", "--width", 400, "-o", matte)
    assert done.returncode == 0, done.stderr
    person = pixels(matte)[..., 0] > 200
    background = pixels(matte)[..., 0] < 30
    original = np.asarray(Image.open(plain).convert("RGB").resize((400, pixels(out).shape[0]), Image.LANCZOS), dtype=np.float64)
    # Sharpness kept: the result's detail (mean step between neighbours) over the photo's, in each region, beside
    # the same render on the original file with Apple's measured depth.
    apple = tmp_path / "dof-apple.jpg"
    done = run(depthbook_bin, "render", notebook, "--photo", PORTRAIT, "--width", 400, "-o", apple)
    assert done.returncode == 0, done.stderr
    figures = {}
    for name, path in (("estimated", out), ("measured", apple)):
        kept = detail(pixels(path)) / np.maximum(detail(original), 1)
        figures[name] = (np.median(kept[person[:, 1:]]), np.median(kept[background[:, 1:]]))
        print(f"depth of field with {name} depth: detail kept inside the person {figures[name][0]:.2f}, "
              f"in the background {figures[name][1]:.2f}")
    (inside, outside), (apple_inside, _) = figures["estimated"], figures["measured"]
    assert inside >= apple_inside - 0.1 and outside < 0.5 * inside, figures


def detail(image: np.ndarray) -> np.ndarray:
    """Each pixel's horizontal step in grey, averaged over a 9×9 neighbourhood."""
    step = np.abs(np.diff(image.mean(axis=2), axis=1))
    kernel = np.ones(9) / 9
    step = np.apply_along_axis(lambda r: np.convolve(r, kernel, mode="same"), 1, step)
    return np.apply_along_axis(lambda c: np.convolve(c, kernel, mode="same"), 0, step)


def test_wiggle_gif_and_mp4(depthbook_bin, tmp_path):
    gif, mp4 = tmp_path / "loop.gif", tmp_path / "loop.mp4"
    for out in (gif, mp4):
        done = run(depthbook_bin, "wiggle", "--photo", IMAGE, "--depth", DEPTH, "--frames", 6, "--width", 200, "-o", out)
        assert done.returncode == 0, done.stderr
    loop = Image.open(gif)
    assert loop.n_frames == 6 and loop.size[0] == 200
    frames = []
    for index in range(loop.n_frames):
        loop.seek(index)
        frames.append(np.asarray(loop.convert("RGB"), dtype=np.float64))
    # Parallax: the frames differ from one another (not one picture repeated).
    assert all(np.abs(frames[i] - frames[i + 1]).mean() > 0.5 for i in range(len(frames) - 1))
    if not shutil.which("ffprobe"):
        pytest.fail("ffprobe (Debian's ffmpeg) is needed to read the MP4 back")
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,width,nb_read_frames",
                            "-of", "json", str(mp4)], capture_output=True, text=True, timeout=60)
    stream = json.loads(probe.stdout)["streams"][0]
    assert stream["codec_name"] == "h264" and stream["width"] == 200 and int(stream["nb_read_frames"]) == 6


def test_wiggle_refuses_bad_options(depthbook_bin, tmp_path):
    done = run(depthbook_bin, "wiggle", "--photo", IMAGE, "--depth", DEPTH, "--frames", 1, "-o", tmp_path / "x.gif")
    assert done.returncode != 0 and "frames" in done.stderr.lower()


@pytest.fixture(scope="module")
def exiftool() -> str:
    path = shutil.which("exiftool")
    if not path:
        pytest.fail("exiftool (Debian's libimage-exiftool-perl) is needed to write orientation tags")
    return path


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_exif_orientation_turns_the_photo_and_its_depth(depthbook_bin, exiftool, tmp_path, orientation):
    turned = tmp_path / f"turned-{orientation}.jpg"
    subprocess.run([exiftool, "-q", "-n", f"-Orientation={orientation}", "-o", str(turned), str(PORTRAIT)],
                   check=True, timeout=60)
    assert Image.open(turned).getexif().get(0x0112) == orientation

    facts = json.loads(run(depthbook_bin, "inspect", turned, "--json").stdout)
    upright = ImageOps.exif_transpose(Image.open(turned))
    assert (facts["width"], facts["height"]) == upright.size

    # The image: what Pillow shows for the same file.
    photo = tmp_path / "photo.jpg"
    done = run(depthbook_bin, "render", NOTEBOOK, "--photo", turned, "--cell", "photo", "--width", 400, "-o", photo)
    assert done.returncode == 0, done.stderr
    reference = np.asarray(upright.convert("RGB").resize(Image.open(photo).size, Image.BILINEAR), dtype=np.float64)
    assert np.abs(pixels(photo) - reference).mean() < 6

    # The disparity turns with it: the view of the turned file is the untouched file's view, turned.
    def disparity(path: Path, out: Path) -> np.ndarray:
        done = run(depthbook_bin, "render", NOTEBOOK, "--photo", path, "--cell", "disparity", "--width", 240, "-o", out)
        assert done.returncode == 0, done.stderr
        return np.asarray(Image.open(out).convert("L"), dtype=np.float64)

    base = Image.fromarray(disparity(PORTRAIT, tmp_path / "d1.jpg").astype(np.uint8))
    turn = {3: Image.ROTATE_180, 6: Image.ROTATE_270, 8: Image.ROTATE_90}[orientation]
    expected = np.asarray(base.transpose(turn), dtype=np.float64)
    got = disparity(turned, tmp_path / f"d{orientation}.jpg")
    expected = np.asarray(Image.fromarray(expected.astype(np.uint8)).resize((got.shape[1], got.shape[0]), Image.BILINEAR), dtype=np.float64)
    assert got.shape == expected.shape
    assert np.abs(got - expected).mean() < 8
    # And not similar by chance: the unturned disparity is far from the turned view.
    if orientation == 3:
        assert np.abs(got - np.asarray(base, dtype=np.float64)).mean() > 3 * np.abs(got - expected).mean()
    else:
        assert got.shape != np.asarray(base).shape
