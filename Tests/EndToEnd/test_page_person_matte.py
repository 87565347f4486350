"""A photo without Apple's portrait matte, uploaded in the photo cell: the server runs the learned person matte
once, and the photo cell lists it as a plane of its own, which renders."""
from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR, require_person_matte_weights
from page_support import open_notebook, screenshot, wait_for


def test_the_photo_cell_lists_the_person_matte(depthbook_server, browser, artifacts_dir):
    require_person_matte_weights()
    path = PHOTOS_DIR / "spite-lensblur-extractor__table.jpg"
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    photo_cell = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
    photo_cell.find_element(By.CSS_SELECTOR, "input.upload-photo").send_keys(str(path))
    figure = wait_for("the person matte in the photo cell", lambda: next(iter(
        browser.find_elements(By.CSS_SELECTOR, "db-cell[data-kind=photo] figure[data-plane=personMatte]")), None), timeout=60)
    assert "Person matte" in figure.text
    wait_for("the person matte's preview", lambda: figure.find_elements(By.CSS_SELECTOR, "db-preview[data-state=ready]"), timeout=60)
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'})", figure)
    screenshot(browser, artifacts_dir, "person-matte-plane")


def test_a_photo_without_depth_shows_its_estimate_once(depthbook_server, browser, artifacts_dir, tmp_path):
    """The shared iPhone portrait re-saved as a plain JPEG (no depth, no mattes) chosen in depth of field's photo
    cell: when the matte comes, the cell is attached again in place and titles the disparity as estimated, and
    each note about the photo shows once (the old listener stayed, and every note showed twice)."""
    import time

    from PIL import Image, ImageOps

    require_person_matte_weights()
    plain = tmp_path / "plain-portrait.jpg"
    with Image.open(PHOTOS_DIR / "fidmaa-portrait-analyser__jpeg_depth_data.jpg") as original:
        ImageOps.exif_transpose(original).convert("RGB").save(plain, "JPEG", quality=92)
    open_notebook(browser, depthbook_server.base_url, "depth-of-field")
    browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo] input.upload-photo").send_keys(str(plain))
    title = wait_for("the estimated disparity in the photo cell", lambda: next(iter(
        [f.text for f in browser.find_elements(By.CSS_SELECTOR, "db-cell[data-kind=photo] figure[data-plane=disparity]") if "estimated" in f.text]), None),
        timeout=120)
    assert "person matte" in title, title
    notes = lambda: [li.text for li in browser.find_elements(By.CSS_SELECTOR, "db-cell[data-kind=photo] .photo-notes li")]
    wait_for("a note that the depth is estimated", lambda: any("estimated" in note for note in notes()), timeout=120)
    time.sleep(2)  # the other cells' frames bring their notes too
    shown = notes()
    assert len(shown) == len(set(shown)), shown
    screenshot(browser, artifacts_dir, "estimated-depth-photo-cell")
