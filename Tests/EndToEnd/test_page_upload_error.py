"""A corrupt upload shows the server's own error message in place, in the photo cell, and the photo that
was open stays on screen."""
import json
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR
from page_support import open_notebook, screenshot, wait_for

BAD = ["pillow_heif__heif_corrupted_corrupted.heic", "pillow_heif__heif_truncated_truncated.heic"]


def server_refusal(base_url: str, path) -> str:
    """The message the server itself gives for this file (the page must show this, not something of its own)."""
    request = urllib.request.Request(f"{base_url}/api/upload", data=path.read_bytes(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            pytest.fail(f"the server accepted {path.name}: {reply.read()[:200]!r}")
    except urllib.error.HTTPError as error:
        assert error.code in (400, 413, 415, 422), f"unexpected status {error.code} for {path.name}"
        return json.loads(error.read())["error"]["message"]


@pytest.mark.parametrize("name", BAD)
def test_corrupt_upload_shows_error_in_photo_cell(depthbook_server, browser, artifacts_dir, name):
    path = PHOTOS_DIR / "bad" / name
    assert path.is_file(), f"missing test photo {path}"
    expected = server_refusal(depthbook_server.base_url, path)
    assert expected.strip(), "the server's refusal has no message"

    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    photo_cell = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
    planes = len(photo_cell.find_elements(By.CSS_SELECTOR, "db-preview"))
    assert planes > 0, "the photo cell shows no planes"
    wait_for("every plane of the photo to show", lambda: (
        len(photo_cell.find_elements(By.CSS_SELECTOR, "db-preview[data-state=ready]")) == planes))
    # Choosing the file uploads it (as a person expects; no separate button press).
    photo_cell.find_element(By.CSS_SELECTOR, "input.upload-photo").send_keys(str(path))

    error = wait_for("the error in the photo cell", lambda: (
        line if (line := photo_cell.find_element(By.CSS_SELECTOR, ".cell-error")).is_displayed() and line.text else None))
    assert expected in error.text, f"the cell says {error.text!r}; the server said {expected!r}"
    assert error.get_attribute("role") == "alert"
    assert len(photo_cell.find_elements(By.CSS_SELECTOR, "db-preview[data-state=ready]")) == planes, \
        "the photo that was open disappeared after a refused upload"
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'})", photo_cell)
    screenshot(browser, artifacts_dir, f"upload-error-{path.stem}")
