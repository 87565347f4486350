"""Recipes restore onto the original in Firefox ESR (WebDriver BiDi): the pug and then its export are chosen in
the photo cell's file input (BiDi's input.setFiles, as the file picker would), the export's recipe is restored
in another Firefox that never saw the pug, on the pug the studio still has, and exporting again gives the first
export's pixels within 2/255 (both exports decoded)."""
from __future__ import annotations

import pytest

from conftest import PHOTOS_DIR
from firefox_page import PHOTO_INPUT, click_answer, nudge, open_in_firefox, text_of
from page_support import cell_with_param, export_from_page, photo_facts, pixel_difference, settled_frame, wait_for

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"
RESTORED_SLACK = 2


def percentile(firefox, cell: str) -> float:
    return float(firefox.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`).value", cell))


@pytest.mark.timeout(900)
def test_a_restored_export_gives_the_original_exports_pixels_in_firefox(depthbook_server, firefox_factory, tmp_path, artifacts_dir):
    url = f"{depthbook_server.base_url}/n/depth-threshold"
    author = firefox_factory()
    open_in_firefox(author, url)
    author.set_files(PHOTO_INPUT, [str(PUG)])
    wait_for("the pug to open", lambda: photo_facts(author).get("width") == 4032)
    original = photo_facts(author)["source"]
    mask = cell_with_param(author, "percentile")
    settled_frame(author, "result")
    nudge(author, mask, "percentile", "ArrowLeft", 17)
    cut = percentile(author, mask)
    settled_frame(author, "result")
    first = export_from_page(author, "result")
    exported = tmp_path / "pug-result.jpg"
    exported.write_bytes(first)

    reader = firefox_factory()
    open_in_firefox(reader, url)
    assert percentile(reader, mask) != cut and photo_facts(reader).get("source") != original
    reader.set_files(PHOTO_INPUT, [str(exported)])
    assert "pug-result.jpg" in click_answer(reader, "recipe")
    wait_for("the recipe on the original", lambda: photo_facts(reader).get("source") == original and percentile(reader, mask) == cut)
    settled_frame(reader, "result")
    assert text_of(reader, "db-cell[data-kind=photo] .photo-name strong") == PUG.name
    again = export_from_page(reader, "result")

    mean, largest, size = pixel_difference(first, again)
    print(f"firefox: restored export vs original export ({size[0]}x{size[1]}, cut {cut}): mean |diff| {mean:.4f}, max |diff| {largest} of 255")
    assert largest <= RESTORED_SLACK, f"the restored export differs by up to {largest}/255 (mean {mean:.3f})"
    reader.save_screenshot(str(artifacts_dir / "firefox-recipe-restored-on-original.png"))
