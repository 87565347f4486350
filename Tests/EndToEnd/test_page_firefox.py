"""The depth-threshold notebook in Firefox ESR (over WebDriver BiDi, see firefox_bidi.py), against the real
server: the page opens and connects, the percentile slider moved by real key presses changes the mask
preview's JPEG bytes and moves the histogram's threshold marker to the slider's percentile."""
from page_support import (cell_with_param, connection_text, histogram_result, marker_fraction, settled_frame,
                          share_below, wait_for)

SLACK = 0.01


def percentile_of(browser, cell: str) -> float:
    return float(browser.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`).value", cell))


def test_depth_threshold_in_firefox(depthbook_server, firefox, artifacts_dir):
    firefox.get(f"{depthbook_server.base_url}/n/depth-threshold")
    wait_for("the cells", lambda: firefox.execute_script("return document.querySelectorAll('db-cell').length"))
    wait_for("the connection", lambda: "Connected" in connection_text(firefox))
    user_agent = firefox.execute_script("return navigator.userAgent")
    assert "Firefox/" in user_agent, f"not Firefox: {user_agent}"

    mask = cell_with_param(firefox, "percentile")
    before, before_bytes = settled_frame(firefox, mask)
    marker_before = wait_for("the histogram marker", lambda: marker_fraction(firefox, mask))
    percentile_before = percentile_of(firefox, mask)

    firefox.execute_script(
        "const r = document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`);"
        "r.scrollIntoView({block: 'center'}); r.focus();", mask)
    firefox.press(*["ArrowLeft"] * 30)
    percentile_after = percentile_of(firefox, mask)
    assert percentile_after < percentile_before, "the arrow keys did not move the slider in Firefox"

    after, after_bytes = settled_frame(firefox, mask, newer_than=before.seq)
    assert after_bytes != before_bytes, "the mask preview's bytes did not change in Firefox"
    # The page asks for histograms of charts on screen: look at it. Keeping less moves the cut to the near end.
    firefox.execute_script(
        "document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-histogram`).scrollIntoView({block: 'center'})", mask)
    marker_after = wait_for("the marker to move", lambda: (
        value if (value := marker_fraction(firefox, mask)) is not None and value != marker_before else None))
    assert marker_after > marker_before, f"marker went from {marker_before} to {marker_after} as the percentile fell"
    low, high = share_below(histogram_result(firefox, mask))
    assert 1 - high - SLACK <= percentile_after / 100 <= 1 - low + SLACK, (
        f"{1 - high:.3f}...{1 - low:.3f} of the disparity lies above the marker, but the slider says {percentile_after}%")
    # The picture, the slider above it and the histogram with its marker below, in one screenshot.
    firefox.execute_script(
        "document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-histogram`).scrollIntoView({block: 'end'})", mask)
    firefox.save_screenshot(str(artifacts_dir / "firefox-depth-threshold.png"))
