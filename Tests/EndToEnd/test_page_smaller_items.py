"""Smaller things a person meets: several cells that cannot render on a photo are said once at the top, with a
sample to open instead; the start page takes a dropped photo, as its text says; walking the cells with J in
presenter mode leaves each one's first control on screen (cells out of view are laid out only when reached)."""
from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import PHOTOS_DIR
from page_support import cell_with_param, drop_files, nudge_slider, open_notebook, photo_facts, screenshot, settled_frame, wait_for
from test_page_presenter import big_screen, present

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def test_cells_that_cannot_render_are_said_once_at_the_top(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "makeup")
    settled_frame(browser, "glasses")
    photo = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
    photo.find_element(By.CSS_SELECTOR, ".photo-source select").send_keys("still-life")
    photo.find_element(By.CSS_SELECTOR, "button.open-photo").click()
    summary = wait_for("the summary at the top", lambda: next(iter(
        e for e in browser.find_elements(By.CSS_SELECTOR, "db-problems:not([hidden])") if "8 cells" in e.text), None))
    cells = [b.text for b in summary.find_elements(By.CSS_SELECTOR, "button.problem-cell")]
    assert sorted(cells) == sorted(["skin", "skinScaled", "result", "recipe", "hair", "hairColor", "teeth", "glasses"]), cells
    assert "photo.skin" in summary.text
    browser.execute_script("window.scrollTo(0, 0)")
    screenshot(browser, artifacts_dir, "problems-summary")
    summary.find_element(By.CSS_SELECTOR, "button.problem-sample").click()
    wait_for("the summary to go once the sample renders", lambda: not browser.find_elements(By.CSS_SELECTOR, "db-problems:not([hidden])"))


def test_the_start_page_takes_a_dropped_photo(depthbook_server, browser):
    browser.get(depthbook_server.base_url + "/")
    wait_for("the start page", lambda: browser.find_elements(By.CSS_SELECTOR, "db-start li.start-card"))
    drop_files(browser, [(PUG.name, PUG.read_bytes(), "image/heic")], target="db-start")
    wait_for("the start page to name the dropped photo", lambda: PUG.name in browser.find_element(By.CSS_SELECTOR, "db-start .notebook-description").text)


def test_walking_the_cells_in_presenter_mode_keeps_each_control_on_screen(depthbook_server, browser_factory):
    driver = big_screen(browser_factory)
    open_notebook(driver, depthbook_server.base_url, "depth-threshold")
    settled_frame(driver, cell_with_param(driver, "percentile"))
    present(driver)
    driver.execute_script("document.querySelector('db-cell').querySelector('.cell-header button').focus()")
    for _ in range(len(driver.find_elements(By.CSS_SELECTOR, "db-cell")) - 1):
        driver.switch_to.active_element.send_keys("j")
        # Give the scroll its frames to settle, then the focused control must be in the window.
        where = wait_for("the step to settle", lambda: driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => {
                const r = document.activeElement.getBoundingClientRect();
                done({cell: document.activeElement.closest('db-cell')?.dataset.cell, top: r.top, bottom: r.bottom, height: innerHeight});
            }, 300)));"""))
        assert 0 <= where["top"] and where["bottom"] <= where["height"], f"J left the focused control off screen: {where}"


def test_a_link_to_a_cell_lands_on_it(depthbook_server, browser):
    """`#feathered` puts that cell under the toolbar, and keeps it there while the pictures above arrive and
    the cells passed lay out (a plain scrollIntoView drifted by a few hundred pixels)."""
    browser.set_window_size(1280, 900)
    browser.get(f"{depthbook_server.base_url}/n/depth-threshold#feathered")
    settled_frame(browser, "feathered")
    settled_frame(browser, "mask")
    where = wait_for("the cell to settle", lambda: browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        setTimeout(() => {
            const cell = document.querySelector('db-cell[data-cell=feathered]').getBoundingClientRect();
            const bar = document.querySelector('.app-bar').getBoundingClientRect();
            const range = document.querySelector('db-cell[data-cell=feathered] input[type=range]').getBoundingClientRect();
            done({cell: cell.top, bar: bar.bottom, range: range.bottom, height: innerHeight});
        }, 3500);"""))
    assert where["bar"] <= where["cell"] <= where["bar"] + 40, f"the cell is not under the toolbar: {where}"
    assert where["range"] <= where["height"], f"its slider is off screen: {where}"


def test_choosing_a_photo_is_not_an_edit_of_the_recipe(depthbook_server, browser_factory, artifacts_dir):
    """At a laptop's 1400 px the bar is one row; choosing another photo for a bundled notebook leaves it unedited
    (no "Unsaved changes", no Revert) but undoable; the file pickers show no "No file chosen" beside "On: …", and
    a depth map chosen before its photo says it waits for one."""
    browser = browser_factory(1400, 900)
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    settled_frame(browser, cell_with_param(browser, "percentile"))
    row, tallest = browser.execute_script("""
        const row = document.querySelector('db-toolbar .toolbar-row');
        const heights = [...row.children].map(e => e.getBoundingClientRect().height);
        return [row.getBoundingClientRect().height, Math.max(...heights)];""")
    assert row < 1.5 * tallest, f"the toolbar is {row} px high at 1400 px, its tallest control {tallest} px: two rows"

    photo = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
    photo.find_element(By.CSS_SELECTOR, ".photo-source select").send_keys("Portrait (outdoor)")
    photo.find_element(By.CSS_SELECTOR, "button.open-photo").click()
    wait_for("the outdoor portrait", lambda: photo_facts(browser).get("source") == {"sample": "portrait-outdoor"})
    state = browser.find_element(By.CSS_SELECTOR, "db-toolbar .save-state").text
    assert "Unsaved" not in state, state
    assert not browser.find_element(By.CSS_SELECTOR, "db-toolbar button.revert").is_displayed()
    undo = browser.find_element(By.CSS_SELECTOR, "db-toolbar button.undo")
    assert undo.is_enabled(), "choosing the photo cannot be undone"
    undo.click()
    wait_for("the indoor portrait again", lambda: photo_facts(browser).get("source") == {"sample": "portrait"})

    # Edited, with "Unsaved." and Revert showing, the bar is still one row down to a 1280 px laptop.
    nudge_slider(browser, cell_with_param(browser, "percentile"), "percentile", Keys.ARROW_RIGHT, 2)
    wait_for("Revert offered", lambda: browser.find_element(By.CSS_SELECTOR, "db-toolbar button.revert").is_displayed())
    for width in (1400, 1280):
        browser.set_window_size(width, 900)
        row, tallest = browser.execute_script("""
            const row = document.querySelector('db-toolbar .toolbar-row');
            const heights = [...row.children].map(e => e.getBoundingClientRect().height);
            return [row.getBoundingClientRect().height, Math.max(...heights)];""")
        assert row < 1.5 * tallest, f"edited, the toolbar is {row} px high at {width} px, its tallest control {tallest} px: two rows"
    browser.set_window_size(1400, 900)

    # The pickers draw only their button (their text is transparent): the photo's name is the line above.
    colours = browser.execute_script("""
        return [...document.querySelectorAll('db-cell[data-kind=photo] .upload-form input[type=file]')]
            .map(i => getComputedStyle(i).color);""")
    assert colours and all(c in ("rgba(0, 0, 0, 0)", "transparent") for c in colours), colours
    depth = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo] input.upload-depth")
    depth.send_keys(str(PHOTOS_DIR / "depthy__flowers-depth.jpg"))
    wait_for("the waiting depth map named", lambda: "depthy__flowers-depth.jpg chosen" in browser.find_element(
        By.CSS_SELECTOR, "db-cell[data-kind=photo] .upload-status").text)
    screenshot(browser, artifacts_dir, "photo-choice-1400")
