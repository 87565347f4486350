"""A corrupt upload shows the server's own error message in place, in the photo cell, and the photo that
was open stays on screen."""
import json
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR, start_depthbook, stop_depthbook
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


def test_a_file_over_the_studios_limit_is_refused_before_it_is_sent(depthbook_bin, tmp_path, monkeypatch, browser):
    """The studio's upload limit comes in `hello`: a photo over it is refused in the page, naming both sizes,
    and none of it goes to the server (no request to /api/upload, nothing stored)."""
    monkeypatch.setenv("DEPTHBOOK_UPLOAD_LIMIT_MB", "1")
    server = start_depthbook(depthbook_bin, tmp_path / "data", tmp_path / "server.log")
    try:
        path = PHOTOS_DIR / "pillow_heif__pug.heic"
        assert path.stat().st_size > 1 << 20, "the test needs a photo over 1 MiB"
        open_notebook(browser, server.base_url, "depth-threshold")
        limit = browser.execute_script("return document.querySelector('db-notebook').session.limits.maxUploadBytes")
        assert limit == 1 << 20, f"hello says the limit is {limit}"
        photo_cell = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
        photo_cell.find_element(By.CSS_SELECTOR, "input.upload-photo").send_keys(str(path))
        error = wait_for("the refusal in the photo cell", lambda: (
            line if (line := photo_cell.find_element(By.CSS_SELECTOR, ".cell-error")).is_displayed() and line.text else None))
        assert "1.3 MB" in error.text and "at most 1.0 MB" in error.text, error.text
        sent = browser.execute_script(
            "return performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/upload')).length")
        assert sent == 0, "the page sent the file it refused"
        uploads = tmp_path / "data" / "uploads"
        assert not uploads.exists() or not any(uploads.iterdir()), "the server stored a file the page refused"
    finally:
        stop_depthbook(server)
