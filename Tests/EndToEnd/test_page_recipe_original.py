"""An export dropped on a studio that does not have its original photo (uploads expire, or it came from another
studio): the page does not run the recipe again on the already processed picture; it says why and asks for
the original file, and the recipe then runs on that file, named as the person's file."""
from __future__ import annotations

import urllib.request

from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR, start_depthbook, stop_depthbook
from page_support import answer_dialog, drop_files, open_notebook, photo_facts, screenshot, settled_frame, slider_value, wait_for
from test_server_support import Client, Server, post

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def pug_export(server: Server, percentile: float) -> bytes:
    """The depth-threshold result on an uploaded pug, its cut at `percentile`, exported as another page would."""
    status, uploaded = post(server, "/api/upload", PUG.read_bytes())
    assert status == 200, uploaded
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        client.ok("openNotebook", name="depth-threshold")
        client.ok("openPhoto", photo={"upload": uploaded["upload"]})
        client.ok("setParams", cell="mask", params={"percentile": percentile}, seq=1)
        exported = client.ok("export", cell="result", format="jpeg", timeout=180)
    finally:
        client.close()
    with urllib.request.urlopen(server.http + exported["url"], timeout=60) as reply:
        return reply.read()


def test_an_export_from_elsewhere_asks_for_its_original(depthbook_server, depthbook_bin, browser, tmp_path, artifacts_dir):
    jpeg = pug_export(Server(depthbook_server.process, depthbook_server.port, depthbook_server.data_dir), 23)
    other = start_depthbook(depthbook_bin, tmp_path / "other-data", tmp_path / "other.log")
    try:
        open_notebook(browser, other.base_url, "depth-threshold")
        drop_files(browser, [("pug-result.jpg", jpeg, "image/jpeg")])
        answer_dialog(browser, "recipe")
        dialog = wait_for("the question about the original", lambda: next(iter(
            d for d in browser.find_elements(By.CSS_SELECTOR, "dialog.ask-dialog[open]") if "original" in d.text), None))
        assert "pug-result.jpg" in dialog.text and "second time" in dialog.text, dialog.text
        screenshot(browser, artifacts_dir, "recipe-original-missing")
        dialog.find_element(By.CSS_SELECTOR, "input.ask-file").send_keys(str(PUG))
        wait_for("the original to open", lambda: photo_facts(browser).get("width") == 4032)
        wait_for("the recipe's cut", lambda: slider_value(browser, "mask", "percentile") == 23)
        settled_frame(browser, "result")
        name = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo] .photo-name strong").text
        assert name == PUG.name, name
    finally:
        stop_depthbook(other)
