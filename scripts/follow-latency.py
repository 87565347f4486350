#!/usr/bin/env python3
"""How long a phone following a presenter waits for each change (issue 39): a presenter in headless Chromium at
1920×1080 in presenter mode, a follower at 390×844 opened on the watch link; the presenter moves the percentile
slider one key press at a time, a few seconds apart. For each press, one JSON line: when the presenter's stage and
the follower's result showed their first full frame after it (ms after the key press, one machine clock), and
where the follower's picture starts on its screen.

Usage: python3 scripts/follow-latency.py BASE_URL [PRESSES]   (a running `depthbook serve`)."""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests" / "EndToEnd"))
from conftest import new_chromium  # noqa: E402
from page_support import cell_with_param, connection_text, open_notebook, settled_frame, wait_for  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

# Records every full frame a preview shows, with the machine's clock, from a MutationObserver on its data-seq.
RECORD_JS = """
    const preview = document.querySelector(arguments[0]);
    window.__frames = [];
    new MutationObserver(() => {
        if (preview.dataset.coarse === 'false') window.__frames.push({seq: Number(preview.dataset.seq), at: Date.now()});
    }).observe(preview, {attributes: true, attributeFilter: ['data-seq', 'data-coarse']});"""


def first_after(driver, moment: float) -> float | None:
    frames = driver.execute_script("return window.__frames")
    later = [f["at"] for f in frames if f["at"] >= moment]
    return min(later) - moment if later else None


def main(base: str, presses: int) -> None:
    presenter = new_chromium(1920, 1080, ("--screen-info={0,0 1920x1080}",))
    follower = new_chromium(390, 844)
    try:
        open_notebook(presenter, base, "depth-threshold")
        mask = cell_with_param(presenter, "percentile")
        settled_frame(presenter, "result")
        presenter.find_element(By.TAG_NAME, "body").send_keys("p")
        wait_for("the stage", lambda: presenter.execute_script("return document.querySelector('db-pinned:not([hidden]) db-preview')?.dataset.state === 'ready'"))
        session = presenter.execute_script("return JSON.parse(sessionStorage.getItem('depthbook.tab')).session")
        follower.get(f"{base}/n/depth-threshold?watch={session}")
        wait_for("the follower", lambda: "Watching" in connection_text(follower))
        wait_for("the follower's result", lambda: follower.execute_script(
            "return document.querySelector('db-cell[data-cell=result] db-preview')?.dataset.state === 'ready'"))
        time.sleep(3)
        top = follower.execute_script("return document.querySelector('db-cell[data-cell=result] db-preview').getBoundingClientRect().top")
        presenter.execute_script(RECORD_JS, "db-pinned db-preview")
        follower.execute_script(RECORD_JS, "db-cell[data-cell=result] db-preview")
        control = presenter.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{mask}"] db-param[data-param=percentile] input[type=range]')
        for press in range(presses):
            moment = presenter.execute_script("arguments[0].focus(); return Date.now()", control)
            control.send_keys("\ue012" if press % 2 else "\ue014")  # left, right: the value moves and comes back
            time.sleep(3)
            stage, followed = first_after(presenter, moment), first_after(follower, moment)
            print(json.dumps({"press": press, "stage_ms": stage, "follower_ms": followed,
                              "follower_after_stage_ms": None if stage is None or followed is None else followed - stage,
                              "follower_picture_top_px": round(top), "follower_screen": [390, 844]}), flush=True)
    finally:
        presenter.quit()
        follower.quit()


if __name__ == "__main__":
    main(sys.argv[1].rstrip("/"), int(sys.argv[2]) if len(sys.argv) > 2 else 8)
