"""Big Head's scale and Marching's copy count, moved in the page, change their previews."""
import pytest
from selenium.webdriver.common.keys import Keys

from page_support import cell_with_param, open_notebook, screenshot, settled_frame, slider, slider_value


@pytest.mark.parametrize("notebook, param, key", [
    ("big-head", "scale", Keys.ARROW_RIGHT),
    ("marching", "count", Keys.ARROW_RIGHT),
])
def test_slider_changes_preview(depthbook_server, browser, artifacts_dir, notebook, param, key):
    open_notebook(browser, depthbook_server.base_url, notebook)
    cell = cell_with_param(browser, param)
    before, before_bytes = settled_frame(browser, cell)
    value_before = slider_value(browser, cell, param)

    control = slider(browser, cell, param)
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", control)
    control.send_keys(key * 10)
    assert slider_value(browser, cell, param) > value_before, f"the {param} slider did not move"

    after, after_bytes = settled_frame(browser, cell, newer_than=before.seq)
    assert after_bytes != before_bytes, f"{notebook}: the preview did not change when {param} did"
    screenshot(browser, artifacts_dir, f"{notebook}-{param}")
