"""Recipes restore onto the original photo. An export dropped on the studio that still has its original (another
browser, which never saw that photo): the restored recipe runs on the original, and exporting again gives the
first export's pixels (within 2/255). An export dropped on a studio that does not have its original (uploads
expire, or it came from another studio): the page does not run the recipe again on the already processed
picture; it says why and asks for the original file, and the recipe then runs on that file, named as the
person's file."""
from __future__ import annotations

import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import PHOTOS_DIR, start_depthbook, stop_depthbook
from page_support import (answer_dialog, cell_with_param, drop_files, export_from_page, nudge_slider, open_notebook, photo_facts, photo_name,
                          pixel_difference, screenshot, settled_frame, slider_value, wait_for)
from test_server_support import Client, Server, post

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"
# Two exports of one recipe on one photo may differ by this much per sample (of 255), the bound.
RESTORED_SLACK = 2


def pug_export(server: Server, percentile: float) -> bytes:
    """The depth-threshold result on an uploaded pug, its cut at `percentile`, exported as another page would."""
    return export_on(server, PUG.read_bytes(), percentile)


def export_on(server: Server, photo: bytes, percentile: float) -> bytes:
    """The depth-threshold result on `photo` (uploaded), its cut at `percentile`, exported through the protocol."""
    status, uploaded = post(server, "/api/upload", photo)
    assert status == 200, uploaded
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        client.ok("openNotebook", name="depth-threshold")
        client.ok("openPhoto", photo={"upload": uploaded["upload"]})
        client.ok("setParams", cell="mask", params={"percentile": percentile}, seq=1)
        exported = client.ok("export", cell="result", format="jpeg", timeout=180)
    finally:
        client.close()
    with urllib.request.urlopen(server.http + exported["url"], timeout=60) as reply:
        return reply.read()


def test_an_export_from_elsewhere_asks_for_its_original(depthbook_server, depthbook_bin, browser, tmp_path, artifacts_dir):
    jpeg = pug_export(Server(depthbook_server.process, depthbook_server.port, depthbook_server.data_dir), 23)
    other = start_depthbook(depthbook_bin, tmp_path / "other-data", tmp_path / "other.log")
    try:
        open_notebook(browser, other.base_url, "depth-threshold")
        drop_files(browser, [("pug-result.jpg", jpeg, "image/jpeg")])
        answer_dialog(browser, "recipe")
        dialog = wait_for("the question about the original", lambda: next(iter(
            d for d in browser.find_elements(By.CSS_SELECTOR, "dialog.ask-dialog[open]") if "original" in d.text), None))
        assert "pug-result.jpg" in dialog.text and "second time" in dialog.text, dialog.text
        screenshot(browser, artifacts_dir, "recipe-original-missing")
        dialog.find_element(By.CSS_SELECTOR, "input.ask-file").send_keys(str(PUG))
        wait_for("the original to open", lambda: photo_facts(browser).get("width") == 4032)
        wait_for("the recipe's cut", lambda: slider_value(browser, "mask", "percentile") == 23)
        settled_frame(browser, "result")
        wait_for("the original's name in the photo cell", lambda: photo_name(browser) == PUG.name)
    finally:
        stop_depthbook(other)


@pytest.mark.timeout(900)
def test_a_restored_export_gives_the_original_exports_pixels(depthbook_server, browser_factory, artifacts_dir):
    """Both exports are full-resolution JPEGs compared as decoded: each encodes the frame its recipe renders,
    so the difference measures the restore; the recipe run a second time, on the export, is measured too."""
    author = browser_factory()
    open_notebook(author, depthbook_server.base_url, "depth-threshold")
    drop_files(author, [(PUG.name, PUG.read_bytes(), "image/heic")])
    wait_for("the pug to open", lambda: photo_facts(author).get("width") == 4032)
    original = photo_facts(author)["source"]
    mask = cell_with_param(author, "percentile")
    settled_frame(author, "result")
    nudge_slider(author, mask, "percentile", Keys.ARROW_LEFT, 17)
    cut = slider_value(author, mask, "percentile")
    settled_frame(author, "result")
    first = export_from_page(author, "result")

    # Another browser, on the bundled sample at the notebook's own cut, is handed the export.
    reader = browser_factory()
    open_notebook(reader, depthbook_server.base_url, "depth-threshold")
    assert slider_value(reader, mask, "percentile") != cut and photo_facts(reader).get("source") != original
    drop_files(reader, [("pug-result.jpg", first, "image/jpeg")])
    answer_dialog(reader, "recipe")
    wait_for("the recipe on the original", lambda: photo_facts(reader).get("source") == original
             and slider_value(reader, mask, "percentile") == cut)
    settled_frame(reader, "result")
    wait_for("the original's name in the photo cell", lambda: photo_name(reader) == PUG.name)
    again = export_from_page(reader, "result")

    mean, largest, size = pixel_difference(first, again)
    print(f"restored export vs original export ({size[0]}x{size[1]}, cut {cut}): mean |diff| {mean:.4f}, max |diff| {largest} of 255")
    assert largest <= RESTORED_SLACK, f"the restored export differs by up to {largest}/255 (mean {mean:.3f})"
    screenshot(reader, artifacts_dir, "recipe-restored-on-original")
    # The mistake this guards against, measured: the recipe run again on the export itself is far off.
    twice = export_on(Server(depthbook_server.process, depthbook_server.port, depthbook_server.data_dir), first, cut)
    twice_mean, twice_largest, _ = pixel_difference(first, twice)
    print(f"the recipe run again on the export vs the original export: mean |diff| {twice_mean:.2f}, max |diff| {twice_largest} of 255")
    assert twice_largest > RESTORED_SLACK
