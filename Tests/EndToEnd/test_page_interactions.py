"""The rest of what a user does to a notebook in the page, against the real server: zoom a 1:1 crop,
presenter mode by keyboard, editing the notebook's shape (add, collapse, reorder, remove cells), and
exporting through a button."""
import urllib.request

import pytest
from decimal import ROUND_HALF_UP, Decimal

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_support import (cell_ids, cell_with_param, open_notebook, screenshot, settled_frame, slider_value,
                          wait_for)
from test_server_support import Client, Server


def test_click_zooms_a_full_resolution_crop(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    settled_frame(browser, mask)
    photo = browser.execute_script("return JSON.parse(sessionStorage.getItem('depthbook.tab')).photo")
    preview = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] db-preview[data-reference="{mask}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", preview)
    preview.click()

    image = wait_for("the crop in the zoom dialog", lambda: (
        found[0] if (found := browser.find_elements(By.CSS_SELECTOR, "dialog.zoom-dialog[open] .zoom-stage img")) else None))
    wait_for("the crop to decode", lambda: browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image))
    natural = browser.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", image)
    # As large as half the screen's longer side in device pixels, within the server's largest crop (hello's limits).
    limit = hello_limits(depthbook_server)["maxCropSide"]
    side = min(limit, browser.execute_script("return Math.ceil(Math.max(innerWidth, innerHeight) * (devicePixelRatio || 1) / 2)"))
    assert natural == [min(side, photo["width"]), min(side, photo["height"])], f"the crop is {natural}, not 1:1 at full resolution"
    screenshot(browser, artifacts_dir, "zoom-crop")
    browser.find_element(By.CSS_SELECTOR, "dialog.zoom-dialog").send_keys(Keys.ESCAPE)
    wait_for("the dialog to close", lambda: not browser.find_elements(By.CSS_SELECTOR, "dialog.zoom-dialog[open]"))


def test_presenter_mode_by_keyboard(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    first, _ = settled_frame(browser, mask)
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("p")
    wait_for("presenter mode", lambda: "presenter" in body.get_attribute("class"))
    assert browser.find_element(By.CSS_SELECTOR, "button.presenter-toggle").get_attribute("aria-pressed") == "true"

    # J walks the cells, landing on each one's first control, until the percentile slider has the focus.
    for _ in range(len(cell_ids(browser))):
        focused = browser.switch_to.active_element
        if focused.get_attribute("type") == "range" and focused.find_element(By.XPATH, "ancestor::db-param").get_attribute("data-param") == "percentile":
            break
        focused.send_keys("j")
    else:
        raise AssertionError("J never reached the percentile slider")
    before = slider_value(browser, mask, "percentile")
    browser.switch_to.active_element.send_keys(Keys.SHIFT, Keys.ARROW_LEFT)
    after = slider_value(browser, mask, "percentile")
    step = float(browser.switch_to.active_element.get_attribute("step"))
    assert abs((before - after) - 10 * step) < 1e-9, f"Shift+Left moved {before} to {after}, not ten steps of {step}"
    settled_frame(browser, mask, newer_than=first.seq)
    screenshot(browser, artifacts_dir, "presenter")
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for("presenter mode to end", lambda: "presenter" not in body.get_attribute("class"))


def click_in_place(browser, element) -> None:
    """Clicks the element itself after scrolling it to the middle: previews still loading above can move the
    page under a coordinate click (seen on CI: it opened a zoom dialog instead)."""
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].click()", element)


def test_add_collapse_move_and_remove_a_cell(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    before = cell_ids(browser)

    # Add a note at the end.
    slots = browser.find_elements(By.CSS_SELECTOR, "db-add-cell")
    last = slots[-1]
    click_in_place(browser, last.find_element(By.CSS_SELECTOR, "button.add-cell-open"))
    kind = last.find_element(By.CSS_SELECTOR, "form select")
    wait_for("the add-cell form to open", kind.is_displayed)
    kind.send_keys("Note")
    click_in_place(browser, last.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    added = wait_for("the new cell", lambda: [c for c in cell_ids(browser) if c not in before])
    assert cell_ids(browser)[-1] == added[0] and len(added) == 1

    # Collapse it, then move it up one place: the server accepts the new order and the page shows it.
    card = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{added[0]}"]')
    click_in_place(browser, card.find_element(By.CSS_SELECTOR, "button.cell-toggle"))
    assert card.find_element(By.CSS_SELECTOR, ".cell-body").get_attribute("hidden") is not None
    # Moving and removing sit in the cell's one actions menu.
    click_in_place(browser, card.find_element(By.CSS_SELECTOR, ".cell-menu summary"))
    click_in_place(browser, card.find_element(By.CSS_SELECTOR, "button.cell-up"))
    wait_for("the cell to move up", lambda: cell_ids(browser) == before[:-1] + [added[0], before[-1]])
    moved = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{added[0]}"]')
    assert "collapsed" in moved.get_attribute("class"), "moving the cell forgot that it was collapsed"

    # Remove it again.
    click_in_place(browser, moved.find_element(By.CSS_SELECTOR, ".cell-menu summary"))
    click_in_place(browser, moved.find_element(By.CSS_SELECTOR, "button.cell-remove"))
    wait_for("the cell to go", lambda: cell_ids(browser) == before)


def test_export_button_gives_a_download(depthbook_server, browser):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    settled_frame(browser, mask)
    bar = browser.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] db-export')
    button = bar.find_element(By.CSS_SELECTOR, "button[data-format=png]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()

    link = wait_for("the export's download link", lambda: (
        found[0] if (found := bar.find_elements(By.CSS_SELECTOR, ".export-result a[href]")) else None), timeout=120)
    assert bar.find_element(By.TAG_NAME, "progress").get_attribute("hidden") is not None, "the progress bar stayed up"
    with urllib.request.urlopen(link.get_attribute("href"), timeout=30) as reply:
        data = reply.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "the mask export is not a PNG"
    assert formatted_size(len(data)) in bar.text, f"the page says {bar.text!r} for a {len(data)}-byte file"


@pytest.mark.parametrize("fmt", ["gif", "mp4"])
def test_loop_export_buttons_on_an_animated_step(depthbook_server, browser, fmt):
    open_notebook(browser, depthbook_server.base_url, "wiggle")
    settled_frame(browser, "frame-0")
    loop_cells = [bar.find_element(By.XPATH, "ancestor::db-cell").get_attribute("data-cell")
                  for bar in browser.find_elements(By.CSS_SELECTOR, "db-export")
                  if bar.find_elements(By.CSS_SELECTOR, f"button[data-format={fmt}]")]
    assert sorted(loop_cells) == ["frame-0", "frame-half", "frame-quarter"], f"{fmt} offered on {loop_cells}"
    bar = browser.find_element(By.CSS_SELECTOR, 'db-cell[data-cell="frame-0"] db-export')
    button = bar.find_element(By.CSS_SELECTOR, f"button[data-format={fmt}]")
    assert button.text == f"Export {fmt.upper()}"
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()

    link = wait_for(f"the {fmt}'s download link", lambda: (
        found[0] if (found := bar.find_elements(By.CSS_SELECTOR, ".export-result a[href]")) else None), timeout=300)
    assert bar.find_element(By.TAG_NAME, "progress").get_attribute("hidden") is not None, "the progress bar stayed up"
    with urllib.request.urlopen(link.get_attribute("href"), timeout=30) as reply:
        data = reply.read()
    if fmt == "gif":
        assert data[:6] == b"GIF89a", "the export is not a GIF"
    else:
        assert data[4:8] == b"ftyp", "the export is not an MP4"
    assert formatted_size(len(data)) in bar.text, f"the page says {bar.text!r} for a {len(data)}-byte file"


def formatted_size(count: int) -> str:
    """The size as the page writes it (js/dom.js formatBytes; toFixed breaks ties upwards)."""
    def one_decimal(value: Decimal) -> str:
        return str(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{one_decimal(Decimal(count) / 1024)} KB"
    return f"{one_decimal(Decimal(count) / (1024 * 1024))} MB"


def hello_limits(server) -> dict:
    """The bounds the server sends every page in its hello."""
    client = Client(Server(server.process, server.port, server.data_dir))
    try:
        return client.ok("hello", protocol=1)["limits"]
    finally:
        client.close()


def test_an_export_survives_a_reload_of_its_page(depthbook_server, browser):
    # The page reloads while its MP4 renders: the reloaded page takes the session back, and the cell's export
    # bar follows the export the server runs again, to its download link.
    open_notebook(browser, depthbook_server.base_url, "wiggle")
    settled_frame(browser, "frame-0")
    bar = browser.find_element(By.CSS_SELECTOR, 'db-cell[data-cell="frame-0"] db-export')
    for name, value in (("frames", 96), ("width", 960)):
        field = bar.find_element(By.CSS_SELECTOR, f"input.export-{name}")
        field.clear()
        field.send_keys(str(value))
    button = bar.find_element(By.CSS_SELECTOR, "button[data-format=mp4]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_for("the export's progress", lambda: "%" in bar.text, timeout=120)
    browser.refresh()

    bar = wait_for("the reloaded page's export bar following the export", lambda: next(
        (found for found in browser.find_elements(By.CSS_SELECTOR, 'db-cell[data-cell="frame-0"] db-export')
         if "resumed after the reconnect" in found.text or found.find_elements(By.CSS_SELECTOR, ".export-result a[href]")), None),
        timeout=120)
    link = wait_for("the resumed export's download link", lambda: (
        found[0] if (found := bar.find_elements(By.CSS_SELECTOR, ".export-result a[href]")) else None), timeout=300)
    with urllib.request.urlopen(link.get_attribute("href"), timeout=30) as reply:
        data = reply.read()
    assert data[4:8] == b"ftyp", "the export is not an MP4"
    assert formatted_size(len(data)) in bar.text, f"the page says {bar.text!r} for a {len(data)}-byte file"
