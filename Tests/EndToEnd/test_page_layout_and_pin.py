"""The page on a phone and the output kept in view: at 390×844 (a phone's CSS pixels, emulated as a mobile
viewport) nothing scrolls sideways, the toolbar takes at most 15 % of the height and controls are finger-sized;
a cell's output pinned from its menu follows live while a slider in another cell is dragged."""
from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from page_support import cell_with_param, open_notebook, screenshot, settled_frame, slider, wait_for


def phone(browser_factory):
    driver = browser_factory(500, 844)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    return driver


def test_phone_width_has_no_sideways_scroll_and_a_compact_toolbar(depthbook_server, browser_factory, artifacts_dir):
    driver = phone(browser_factory)
    open_notebook(driver, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(driver, "percentile")
    settled_frame(driver, mask)
    for cell in ("photo", mask, "result"):
        driver.execute_script("document.querySelector(`db-cell[data-cell='${arguments[0]}']`).scrollIntoView({block: 'start'})", cell)
        width, inner = driver.execute_script("return [document.scrollingElement.scrollWidth, innerWidth]")
        assert inner == 390, f"the viewport is {inner} px wide, not the phone's 390"
        assert width <= inner, f"at cell {cell} the page is {width} px wide in a {inner} px window: it scrolls sideways"
    bar, height = driver.execute_script("return [document.querySelector('.app-bar').getBoundingClientRect().height, innerHeight]")
    assert bar <= 0.15 * height, f"the toolbar takes {bar:.0f} of {height} px"
    # Every control on screen is at least 44 px in both directions (touch targets).
    small = driver.execute_script("""
        return [...document.querySelectorAll('button, select, input, summary')].filter((e) => {
            const r = e.getBoundingClientRect();
            return e.checkVisibility() && r.bottom > 0 && r.top < innerHeight && e.type !== 'file' && (r.height < 44 || r.width < 44);
        }).map((e) => `${e.tagName} ${e.className} ${e.textContent.trim().slice(0, 20)}`);""")
    assert not small, f"controls smaller than 44 px: {small}"
    screenshot(driver, artifacts_dir, "phone-390")

    # A thumb drags the percentile slider: touch down on its knob, slide left, lift.
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    control = slider(driver, mask, "percentile")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
    before = float(control.get_attribute("value"))
    box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", control)
    x = box[0] + box[2] * before / 100
    y = box[1] + box[3] / 2
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 9):
        driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x - 4 * step, "y": y}]})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    (after,) = wait_for("the slider to follow the thumb", lambda: (v := float(control.get_attribute("value"))) < before and (v,))
    assert 0 < after < before, f"the thumb moved the slider from {before} to {after}"


def test_a_pinned_output_follows_a_drag_in_another_cell(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    settled_frame(browser, "result")
    card = browser.find_element(By.CSS_SELECTOR, "db-cell[data-cell='result']")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", card)
    card.find_element(By.CSS_SELECTOR, ".cell-menu summary").click()
    card.find_element(By.CSS_SELECTOR, "button.cell-pin").click()

    def pinned():
        return browser.execute_script("""
            const p = document.querySelector('db-pinned:not([hidden]) db-preview[data-reference=result]');
            return p && p.dataset.state === 'ready' ? {seq: Number(p.dataset.seq), bytes: Number(p.dataset.bytes)} : null;""")
    before = wait_for("the pinned output to show the result", pinned)

    # Drag the threshold's slider, far above the result: the pinned copy changes before the button is let go.
    control = slider(browser, mask, "percentile")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
    drag = ActionChains(browser, duration=40)
    drag.click_and_hold(control)
    for _ in range(6):
        drag.move_by_offset(-12, 0).pause(0.25)
    drag.perform()
    during = wait_for("the pinned output to follow the drag", lambda: (lambda now: now if now and now["seq"] > before["seq"] else None)(pinned()))
    result_top = browser.execute_script("return document.querySelector(\"db-cell[data-cell='result']\").getBoundingClientRect().top")
    assert result_top > browser.execute_script("return innerHeight"), "the result cell itself was on screen: the pin proves nothing"
    screenshot(browser, artifacts_dir, "pinned-during-drag")
    ActionChains(browser).release().perform()
    assert during["bytes"] != before["bytes"], "the pinned picture did not change with the cut"
