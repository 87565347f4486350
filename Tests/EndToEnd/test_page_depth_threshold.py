"""The depth-threshold notebook in a real browser against a real server: moving the percentile slider
changes the mask preview's JPEG bytes and moves the histogram's threshold marker; wherever it sits, the
share of the plotted disparity above the marker (what the mask keeps) is the percentile the slider shows,
including the value found from the photo before the slider is first moved."""
from selenium.webdriver.common.keys import Keys

from page_support import (cell_with_param, histogram_result, marker_fraction, open_notebook, screenshot,
                          settled_frame, share_below, slider, slider_value, wait_for)

# One percent of slack on top of the width of the bin the marker falls in.
SLACK = 0.01


def assert_marker_at_percentile(histogram: dict, percentile: float) -> None:
    low, high = share_below(histogram)
    kept_low, kept_high = 1 - high, 1 - low
    assert kept_low - SLACK <= percentile / 100 <= kept_high + SLACK, (
        f"{kept_low:.3f}...{kept_high:.3f} of the disparity lies above the marker, but the slider says {percentile}%")


def test_percentile_slider_changes_preview_and_moves_marker(depthbook_server, browser, artifacts_dir):
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    before, before_bytes = settled_frame(browser, mask)
    marker_before = wait_for("the threshold cell's histogram marker", lambda: marker_fraction(browser, mask))
    # Until moved, the slider shows the cut found from the photo, and says so.
    percentile_before = wait_for("the value found from the photo", lambda: browser.execute_script(
        "const p = document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile]`);"
        "return p && p.dataset.chosen ? Number(p.dataset.chosen) : null", mask))
    assert slider_value(browser, mask, "percentile") == percentile_before
    assert_marker_at_percentile(histogram_result(browser, mask), percentile_before)
    screenshot(browser, artifacts_dir, "depth-threshold-before")

    # Lower the percentile with the keyboard, as a user would: each press is a committed change.
    control = slider(browser, mask, "percentile")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", control)
    control.send_keys(Keys.ARROW_LEFT * 30)
    percentile_after = slider_value(browser, mask, "percentile")
    assert percentile_after < percentile_before, "the arrow keys did not move the slider"
    number_field = browser.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=number]`).value", mask)
    assert float(number_field) == percentile_after, "the number field does not follow the slider"

    after, after_bytes = settled_frame(browser, mask, newer_than=before.seq)
    assert after_bytes != before_bytes, "the mask preview's bytes did not change when the percentile did"

    # Keeping less of the depth map cuts at a higher disparity: the marker moves towards the near end. The page
    # asks for histograms of charts on screen only, so look at it, as a person would.
    browser.execute_script(
        "document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-histogram`).scrollIntoView({block: 'center'})", mask)
    marker_after = wait_for("the histogram marker to move", lambda: (
        value if (value := marker_fraction(browser, mask)) is not None and value != marker_before else None))
    assert marker_after > marker_before, f"marker went from {marker_before} to {marker_after} as the percentile fell"
    chosen_tag_hidden = browser.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] .param-chosen`).hidden", mask)
    assert chosen_tag_hidden, "a value the user set is no longer marked as found from the photo"
    assert_marker_at_percentile(histogram_result(browser, mask), percentile_after)
    screenshot(browser, artifacts_dir, "depth-threshold-after")
