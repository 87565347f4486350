"""Presenter mode for a talk, in a 1920×1080 window: the result fills the screen beside the column of
controls and follows a slider dragged several cells above it; pinning happens inside presenter mode; the
watch link is offered with a QR code the page draws itself, and opening it in another browser watches."""
from __future__ import annotations

import os
import time
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from page_support import cell_with_param, connection_text, open_notebook, photo_name, screenshot, settled_frame, slider, wait_for

# What the `qrcode` package (an independent encoder) makes of this text at level M with mask 3: version 5.
QR_TEXT = "http://192.168.1.20:8080/n/big-head?watch=0123456789abcdef0123456789abcdef"
QR_GOLDEN = ['#######.#....#..#.....###.#...#######', '#.....#.#.#.#..#.#...###..#...#.....#', '#.###.#..#.##..##.##.....###..#.###.#', '#.###.#.#####.##.#....####.##.#.###.#', '#.###.#..#.#.###...#.#....##..#.###.#', '#.....#..#.##.##.####.#..#..#.#.....#', '#######.#.#.#.#.#.#.#.#.#.#.#.#######', '........#..#...#......##..###........', '#.##.###..###.##..##.#..#..##.#..#.##', '..##.....#.....#..#.#..####.##...#.#.', '.#.#..#..##.#...##########..###.#.#..', '####.#....#...#.#...#.####...#.##.#..', '#...####..###.######.....#.#..###.###', '.#..#...###....#.###.......#..#.##..#', '.##...#.##......#..#..#..#..#.#...#..', '.....#...#.##.##.....##.#.##.##....##', '#.#...###...##.#.#.####.####...#.###.', '.....#.#.#...##..###.###.###..##..###', '.###.#####...#...#....#.##.#..###.###', '...###...#.#########..#.#.#.#####..#.', '..#...####.#.#.#####.#..#.......##..#', '.#.#.#....#..##.##.###.##.#......#.#.', '#.#.#####.#.#.#.#.#..#.#.##..#.#...#.', '.####...#..###.###.##.#..#.#.#..#.#..', '.###..########.##..#..#..#.#.####.#.#', '.####..######....#.#.......####.##.##', '.#....###.###....######.##...####.##.', '#..##..##.#....#....##.........#.#...', '....#####..#......#.#######.#########', '........#...##.#......##.####...#..##', '#######.##.#.#.#..#.#...##..#.#.###.#', '#.....#.##....#.####..##....#...#....', '#.###.#......##.#..#.#.##...#####..##', '#.###.#.###..####..##..####...#.#...#', '#.###.#.####.###.#..#..#.##...#.##...', '#.....#...###..#..###...##......#.#..', '#######.###...#.##....#..#.....##.###']

STAGE_JS = """
    const stage = document.querySelector('db-pinned:not([hidden])');
    const preview = stage?.querySelector('db-preview');
    if (!preview) return null;
    const box = preview.getBoundingClientRect(), element = preview.querySelector('img'), img = element?.getBoundingClientRect();
    const inside = img ? img.left >= box.left - 1 && img.right <= box.right + 1 && img.top >= box.top - 1 && img.bottom <= box.bottom + 1 : false;
    // The picture as drawn inside its element (object-fit: contain): its own shape, scaled to fit.
    const scale = element?.naturalWidth ? Math.min(img.width / element.naturalWidth, img.height / element.naturalHeight) : 0;
    const drawn = scale ? [scale * element.naturalWidth, scale * element.naturalHeight] : [0, 0];
    return {reference: preview.dataset.reference, state: preview.dataset.state, seq: Number(preview.dataset.seq ?? -1),
            bytes: Number(preview.dataset.bytes ?? 0), area: box.width * box.height / (innerWidth * innerHeight),
            image: img ? [img.width, img.height] : null, inside, window: [innerWidth, innerHeight], drawn,
            picture: drawn[0] * drawn[1] / (innerWidth * innerHeight), fill: drawn[0] * drawn[1] / (box.width * box.height),
            column: document.querySelector('main').getBoundingClientRect().width};"""


def stage(driver) -> dict | None:
    return driver.execute_script(STAGE_JS)


def big_screen(browser_factory):
    """A 1920×1080 window on a 1920×1080 screen (headless Chromium's screen is 800×600 otherwise, and fullscreen
    takes the screen's size)."""
    return browser_factory(1920, 1080, ("--screen-info={0,0 1920x1080}",))


def held_still(driver, element) -> bool:
    """Whether `element` stays where it is over a fifth of a second (layout and scrolling have settled)."""
    where = "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];"
    first = driver.execute_script(where, element)
    time.sleep(0.2)
    return first == driver.execute_script(where, element)


def present(driver) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys("p")
    wait_for("presenter mode", lambda: "presenter" in driver.find_element(By.TAG_NAME, "body").get_attribute("class"))


def assert_portrait_beside_the_column(shown: dict) -> None:
    """A 3:4 portrait (the bundled sample) on a 16:9 screen: at full height, the most an uncropped 3:4 picture can
    cover of a 1920×1024 viewport (0.75 · 1024² / (1920 · 1024) = 40 %), in a stage as wide as the picture (no
    black bars beside it): the column of controls takes the rest."""
    width, height = shown["window"]
    assert shown["drawn"][1] >= 0.97 * height, f"the portrait is drawn {shown['drawn']} in a {shown['window']} window"
    assert shown["fill"] >= 0.95, f"the portrait fills {shown['fill']:.1%} of its stage: bars beside it"
    assert shown["column"] >= 0.5 * width, f"the column beside the portrait is {shown['column']:.0f} px of {width}"


def test_the_stage_fills_the_screen_and_follows_a_drag_upstream(depthbook_server, browser_factory, artifacts_dir):
    driver = big_screen(browser_factory)
    open_notebook(driver, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(driver, "percentile")
    settled_frame(driver, mask)
    present(driver)
    before = wait_for("the result on stage", lambda: (s if (s := stage(driver)) and s["reference"] == "result" and s["state"] == "ready" else None))
    assert_portrait_beside_the_column(before)
    assert not driver.execute_script("return document.querySelector('button.save-share').checkVisibility()"), "Save stays on screen in presenter mode"
    # The column opens on the first slider, in view and focused for the arrows (issue 39), the intro note and the
    # photo cell folded to their headers.
    wait_for("the first slider in view and focused", lambda: driver.execute_script("""
        const s = [...document.querySelectorAll('main db-cell .cell-body input[type=range]')].find((e) => e.checkVisibility());
        const r = s && s.getBoundingClientRect();
        return s && r.top >= 0 && r.bottom <= innerHeight && document.activeElement === s;"""))
    assert not driver.execute_script("return document.querySelector('db-cell[data-kind=photo] .cell-body').checkVisibility()")

    # Drag the percentile slider, five cells above the result: the stage follows before the button is let go.
    control = slider(driver, mask, "percentile")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
    # The column still settles after presenter mode opens (its width follows the first stage frame's shape): on a
    # busy machine the press once landed beside a slider that had just moved, and nothing was dragged.
    wait_for("the slider to hold still", lambda: held_still(driver, control))
    start_value = float(control.get_attribute("value"))
    drag = ActionChains(driver, duration=40)
    drag.click_and_hold(control)
    for _ in range(6):
        drag.move_by_offset(-10, 0).pause(0.25)
    drag.perform()
    wait_for("the drag to move the slider", lambda: float(control.get_attribute("value")) != start_value)
    during = wait_for("the stage to follow the drag", lambda: (s if (s := stage(driver)) and s["seq"] > before["seq"] else None))
    on_screen = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth", control)
    screenshot(driver, artifacts_dir, "presenter-stage-drag")
    ActionChains(driver).release().perform()
    assert on_screen, "the dragged slider is not on screen beside the stage"
    assert_portrait_beside_the_column(during)
    assert during["inside"], f"the picture is {during['image']} in a {during['window']} window"
    # The caption fades 2.5 s after the last move, which a busy machine can pass before this line: its text stays.
    caption = driver.execute_script("return document.querySelector('db-pinned .stage-caption').textContent")
    assert "Percentile" in caption, f"the stage does not name the value being moved: {caption!r}"

    # Pin the mask inside presenter mode from its header, then unpin from the stage.
    button = driver.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] button.cell-stage')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_for("the mask on stage", lambda: (s := stage(driver)) and s["reference"] == mask and s["state"] == "ready")
    assert button.get_attribute("aria-pressed") == "true"
    screenshot(driver, artifacts_dir, "presenter-stage-pinned-mask")
    driver.find_element(By.CSS_SELECTOR, "db-pinned button.stage-unpin").click()
    wait_for("the result back on stage", lambda: (s := stage(driver)) and s["reference"] == "result")


def test_a_landscape_photo_takes_most_of_the_screen(depthbook_server, browser_factory, artifacts_dir):
    """A 4:3 landscape (the bundled still life, chosen in the photo cell) beside the narrow column: at least 70 %
    of a 1920×1024 viewport (issue 39's bound; at full height it is 71.1 %), the column taking what it leaves."""
    driver = big_screen(browser_factory)
    open_notebook(driver, depthbook_server.base_url, "depth-threshold")
    landscape = Path(os.environ["DEPTHBOOK_SAMPLES"]) / "still-life.jpg"
    # The server writes its samples at start, in the background: first in a run, this test can be there before it.
    wait_for("the still life sample written", landscape.exists, timeout=180)
    driver.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo] input.upload-photo").send_keys(str(landscape))
    wait_for("the still life in the photo cell", lambda: "still-life" in photo_name(driver))
    present(driver)
    shown = wait_for("the landscape on stage", lambda: (s if (s := stage(driver)) and s["state"] == "ready" and s["drawn"][0] > s["drawn"][1] else None))
    screenshot(driver, artifacts_dir, "presenter-landscape")
    assert shown["picture"] >= 0.70, f"the landscape covers {shown['picture']:.1%} of the viewport: {shown}"
    assert shown["fill"] >= 0.95, f"the landscape fills {shown['fill']:.1%} of its stage: bars beside it"


def test_the_watch_link_and_its_qr_code(depthbook_server, browser_factory, artifacts_dir):
    driver = big_screen(browser_factory)
    open_notebook(driver, depthbook_server.base_url, "depth-threshold")
    settled_frame(driver, "result")
    present(driver)
    wait_for("the follow button on stage", lambda: driver.find_elements(By.CSS_SELECTOR, "db-pinned button.stage-follow"))[0].click()
    link = wait_for("the watch link", lambda: driver.execute_script("return document.querySelector('dialog.follow-dialog[open] input.follow-link')?.value"))
    session = driver.execute_script("return JSON.parse(sessionStorage.getItem('depthbook.tab')).session")
    assert link == f"{depthbook_server.base_url}/n/depth-threshold?watch={session}", link
    # The code drawn is the encoder's, four white modules around it, black on white.
    drawn = driver.execute_script("""
        const canvas = document.querySelector('dialog.follow-dialog canvas.follow-qr');
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        return import('/js/qr-code.js').then(({encodeQR}) => {
            const code = encodeQR(arguments[0]), scale = canvas.width / (code.size + 8);
            const dark = (x, y) => pixels[(Math.floor((y + 4.5) * scale) * canvas.width + Math.floor((x + 4.5) * scale)) * 4] < 128;
            return code.modules.every((row, y) => row.every((d, x) => d === dark(x, y))) && !(pixels[0] < 128);
        });""", link)
    assert drawn, "the canvas does not show the link's QR code"
    screenshot(driver, artifacts_dir, "presenter-follow-dialog")

    watcher = browser_factory(390, 844)
    watcher.get(link)
    wait_for("the phone to watch", lambda: "Watching" in connection_text(watcher))
    wait_for("the watcher's result", lambda: watcher.execute_script(
        "return document.querySelector('db-cell[data-cell=result] db-preview')?.dataset.state === 'ready'"))
    # A follow link lands on the result, not on the top of the recipe (issue 39): its picture starts on the
    # first screen.
    top = wait_for("the result on the phone's first screen", lambda: watcher.execute_script("""
        const picture = document.querySelector('db-cell[data-cell=result] db-preview');
        const top = picture.getBoundingClientRect().top;
        return top >= 0 && top < window.innerHeight ? top : null;"""))
    assert top is not None
    screenshot(watcher, artifacts_dir, "follow-link-phone")
    # The presenter moves a slider: the phone's result follows with a newer full frame (how soon is measured by
    # scripts/follow-latency.py, not here).
    seen = lambda: watcher.execute_script("""
        const p = document.querySelector('db-cell[data-cell=result] db-preview');
        return p.dataset.coarse === 'false' ? p.dataset.bytes + ':' + p.dataset.seq : null;""")
    before = wait_for("the phone's full frame", seen)
    driver.find_element(By.CSS_SELECTOR, "dialog.follow-dialog[open] button.follow-close").click()
    mask = cell_with_param(driver, "percentile")
    nudge = slider(driver, mask, "percentile")
    driver.execute_script("arguments[0].focus()", nudge)
    nudge.send_keys("\ue014", "\ue014")
    wait_for("the phone to follow the presenter's change", lambda: (now if (now := seen()) and now != before else None))


def test_the_qr_encoder_matches_an_independent_one(depthbook_server, browser):
    browser.get(depthbook_server.base_url + "/n/depth-threshold")
    rows = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        import('/js/qr-code.js').then(({encodeQR}) => {
            const code = encodeQR(arguments[0], {level: 'M', mask: 3});
            done(code.modules.map((row) => row.map((d) => (d ? '#' : '.')).join('')));
        }, (error) => done(String(error)));""", QR_TEXT)
    assert rows == QR_GOLDEN
