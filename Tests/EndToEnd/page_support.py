"""What the page tests do to the page and read back from it, in one place.

The page mirrors what each preview shows in data attributes (`data-seq`, `data-coarse`, `data-bytes`,
`data-state`) and each histogram's marker in `data-marker` / `data-marker-fraction`; the JPEG bytes
themselves are read back through the preview image's blob URL.
"""
from __future__ import annotations

import base64
import io
import json
import re
import time
import urllib.request
from dataclasses import dataclass

import numpy as np
from PIL import Image

from selenium.common.exceptions import JavascriptException, StaleElementReferenceException
from selenium.webdriver.common.by import By

TIMEOUT_S = 60


def wait_for(what: str, predicate, timeout: float = TIMEOUT_S, interval: float = 0.1):
    """Polls `predicate` until it returns something truthy; fails naming `what` and the last value seen."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except (StaleElementReferenceException, JavascriptException) as error:
            last = error
        else:
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


def connection_text(driver) -> str:
    return driver.execute_script("return document.querySelector('.connection')?.textContent ?? ''")


def open_notebook(driver, base_url: str, name: str) -> None:
    """Opens `/n/<name>` and waits until the page has connected and rendered its cells."""
    driver.get(f"{base_url}/n/{name}")
    wait_for(f"notebook {name} to render its cells", lambda: driver.find_elements(By.CSS_SELECTOR, "db-cell"))
    wait_for("the connection to be up", lambda: "Connected" in connection_text(driver) or "resumed" in connection_text(driver)
             or "restored" in connection_text(driver) or _fail_on_error_status(driver))


def _fail_on_error_status(driver):
    text = connection_text(driver)
    if text.startswith("Could not"):
        raise AssertionError(f"the page reports: {text}")
    return False


def cell_with_param(driver, param: str) -> str:
    """The id of the first step cell that has a parameter named `param`."""
    cell = driver.execute_script(
        "return document.querySelector(`db-cell[data-kind=step] db-param[data-param=\"${arguments[0]}\"]`)?.closest('db-cell')?.dataset.cell ?? null",
        param)
    assert cell, f"no step cell has a parameter named {param!r}; cells: {cell_ids(driver)}"
    return cell


def cell_ids(driver) -> list[str]:
    return driver.execute_script("return [...document.querySelectorAll('db-cell')].map(c => c.dataset.cell)")


@dataclass
class Shown:
    """What a cell's own preview shows now."""

    seq: int
    coarse: bool
    byte_count: int


def shown(driver, cell: str) -> Shown | None:
    data = driver.execute_script(
        """const p = document.querySelector(`db-cell[data-cell="${arguments[0]}"] db-preview[data-reference="${arguments[0]}"]`);
           if (!p || p.dataset.state !== 'ready') return null;
           return {seq: Number(p.dataset.seq), coarse: p.dataset.coarse === 'true', bytes: Number(p.dataset.bytes)};""",
        cell)
    return None if data is None else Shown(data["seq"], data["coarse"], data["bytes"])


def wait_full_frame(driver, cell: str, newer_than: int | None = None) -> Shown:
    """Waits until the cell shows a full (not coarse) frame, newer than sequence number `newer_than` if given."""
    def ready():
        now = shown(driver, cell)
        if now is None or now.coarse:
            return None
        if newer_than is not None and now.seq <= newer_than:
            return None
        return now
    return wait_for(f"a full frame in cell {cell}" + (f" newer than seq {newer_than}" if newer_than is not None else ""), ready)


def preview_bytes(driver, cell: str) -> bytes:
    """The JPEG bytes the cell's preview shows, read back from its blob URL."""
    script = """
        const done = arguments[arguments.length - 1];
        const img = document.querySelector(`db-cell[data-cell="${arguments[0]}"] db-preview[data-reference="${arguments[0]}"] img`);
        if (!img) { done(null); return; }
        fetch(img.src).then(r => r.arrayBuffer()).then(buffer => {
            const bytes = new Uint8Array(buffer);
            let text = '';
            for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
            done(btoa(text));
        }).catch(() => done(null));"""
    # The blob URL is revoked when a newer frame replaces it; read again until a read succeeds.
    encoded = wait_for(f"the preview bytes of cell {cell}", lambda: driver.execute_async_script(script, cell))
    data = base64.b64decode(encoded)
    assert data[:2] == b"\xff\xd8", f"cell {cell} shows something that is not a JPEG"
    return data


def settled_frame(driver, cell: str, newer_than: int | None = None) -> tuple[Shown, bytes]:
    """Waits for the full frame answering the page's newest request for the cell (the preview's
    `data-awaited-seq`: the last change or preview asked for, 'pending' while a change waits to be sent);
    returns it and its bytes. A page that asks for nothing itself (a watcher) waits for a full frame."""
    def answered():
        data = driver.execute_script(
            """const p = document.querySelector(`db-cell[data-cell="${arguments[0]}"] db-preview[data-reference="${arguments[0]}"]`);
               if (!p || p.dataset.state !== 'ready' || p.dataset.coarse === 'true') return null;
               return {seq: Number(p.dataset.seq), awaited: p.dataset.awaitedSeq ?? null};""", cell)
        if data is None or data["awaited"] == "pending":
            return None
        if newer_than is not None and data["seq"] <= newer_than:
            return None
        if data["awaited"] is not None and data["seq"] < int(data["awaited"]):
            return None
        return data["seq"]
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        seq = wait_for(f"the full frame answering the newest request for cell {cell}", answered)
        data = preview_bytes(driver, cell)
        now = shown(driver, cell)
        if now is not None and now.seq == seq and not now.coarse:
            return now, data
    raise AssertionError(f"the preview of cell {cell} did not settle within {TIMEOUT_S} s")


def slider(driver, cell: str, param: str):
    return driver.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{cell}"] db-param[data-param="{param}"] input[type=range]')


def nudge_slider(driver, cell: str, param: str, key: str, times: int) -> None:
    """Moves a slider by key presses, as a keyboard user would: focus it, press `key` `times` times."""
    control = slider(driver, cell, param)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", control)
    control.send_keys(key * times)


def slider_value(driver, cell: str, param: str) -> float:
    return float(slider(driver, cell, param).get_attribute("value"))


def marker_fraction(driver, cell: str | None = None) -> float | None:
    """The histogram marker's position (0...1) in `cell`, or in the first histogram that has one."""
    selector = f'db-cell[data-cell="{cell}"] db-histogram[data-marker-fraction]' if cell else "db-histogram[data-marker-fraction]"
    value = driver.execute_script("return document.querySelector(arguments[0])?.dataset.markerFraction ?? null", selector)
    return None if value is None else float(value)


def histogram_with_marker(driver) -> str:
    """The id of the cell whose histogram shows a marker."""
    return wait_for("a histogram with a marker", lambda: driver.execute_script(
        "return document.querySelector('db-histogram[data-marker-fraction]')?.closest('db-cell')?.dataset.cell ?? null"))


def recipe_shown(driver) -> list:
    """The recipe as the page shows it: each cell's id and kind, and every parameter control's value.

    A parameter the photo chooses reads as 'from the photo': its number arrives with the cell's first render,
    so comparing the number would compare how far each page has rendered, not the recipe."""
    return driver.execute_script("""
        return [...document.querySelectorAll('db-cell')].map(cell => ({
            id: cell.dataset.cell, kind: cell.dataset.kind,
            inputs: [...cell.querySelectorAll('select.reference-select')].map(s => s.value),
            params: Object.fromEntries([...cell.querySelectorAll('db-param')].map(p => {
                if (p.fromPhoto) return [p.dataset.param, 'from the photo'];
                const c = p.querySelector('input[type=range], select, input[type=checkbox], input[type=number]');
                return [p.dataset.param, c.type === 'checkbox' ? c.checked : c.value];
            })),
        }));""")


def stored_tab(driver) -> dict:
    return json.loads(driver.execute_script("return sessionStorage.getItem('depthbook.tab') ?? '{}'"))


def screenshot(driver, artifacts_dir, name: str) -> None:
    driver.save_screenshot(str(artifacts_dir / f"{name}.png"))


def histogram_result(driver, cell: str) -> dict | None:
    """The histogram data (bins, min, max, marker, holes) the cell's chart last drew, as the server sent it."""
    return driver.execute_script(
        "return document.querySelector(`db-cell[data-cell=\"${arguments[0]}\"] db-histogram`)?.result ?? null", cell)


def share_below(histogram: dict) -> tuple[float, float]:
    """Bounds on the share of samples below the marker, from the bins alone: the bin the marker falls in
    may be split either way."""
    bins, low, high, marker = histogram["bins"], histogram["min"], histogram["max"], histogram["marker"]
    total = sum(bins)
    assert total > 0 and high > low, f"an empty or flat histogram: {histogram}"
    index = min(len(bins) - 1, max(0, int((marker - low) / (high - low) * len(bins))))
    return sum(bins[:index]) / total, sum(bins[:index + 1]) / total


SHARE_PATH = re.compile(r"/n/([^/?#]+)$")


def save_and_share(browser) -> str:
    """Clicks Save & copy link and returns the saved id from the address bar."""
    before = browser.current_url
    browser.find_element(By.CSS_SELECTOR, "button.save-share").click()
    url = wait_for("the address bar to show the saved notebook", lambda: (
        browser.current_url if browser.current_url != before and SHARE_PATH.search(browser.current_url) else None))
    link = browser.find_element(By.CSS_SELECTOR, "input.share-link").get_attribute("value")
    assert link == url, f"the link field shows {link!r}, the address bar {url!r}"
    return SHARE_PATH.search(url).group(1)


def drop_files(driver, files: list[tuple[str, bytes, str]], target: str = "main") -> None:
    """Drops files on the page as a person dragging them from the desktop would: a DataTransfer holding real
    File objects, dispatched as dragenter, dragover and drop on `target`."""
    encoded = [(name, base64.b64encode(data).decode(), mime) for name, data, mime in files]
    driver.execute_script("""
        const [files, selector] = arguments;
        const transfer = new DataTransfer();
        for (const [name, data, type] of files) {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            transfer.items.add(new File([bytes], name, { type }));
        }
        const target = document.querySelector(selector);
        for (const type of ['dragenter', 'dragover', 'drop']) {
            target.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
        }
    """, encoded, target)


def answer_dialog(driver, answer: str) -> str:
    """Clicks `answer` (its data-answer) in the page's question dialog; returns the question's text."""
    button = wait_for(f"the page to ask (answer {answer!r})", lambda: next(iter(
        driver.find_elements(By.CSS_SELECTOR, f"dialog.ask-dialog[open] button[data-answer='{answer}']")), None))
    text = driver.find_element(By.CSS_SELECTOR, "dialog.ask-dialog[open]").text
    button.click()
    return text


def photo_facts(driver) -> dict:
    """The open photo's facts as the page holds them (width, height, depth, source)."""
    return driver.execute_script("return JSON.parse(sessionStorage.getItem('depthbook.tab') ?? '{}').photo ?? {}")


def export_from_page(driver, cell: str, fmt: str = "jpeg", timeout: float = 300) -> bytes:
    """Clicks the cell's Export button and returns the file its download link serves. The click itself
    replaces an earlier export's link with "Exporting…", so the link waited for is this export's."""
    driver.execute_script("""
        const button = document.querySelector(`db-cell[data-cell="${arguments[0]}"] db-export button[data-format="${arguments[1]}"]`);
        button.scrollIntoView({block: 'center'});
        button.click();""", cell, fmt)
    href = wait_for(f"the {fmt} export of cell {cell}", lambda: driver.execute_script(
        "return document.querySelector(`db-cell[data-cell=\"${arguments[0]}\"] db-export .export-result a[href]`)?.href ?? null", cell),
        timeout=timeout)
    with urllib.request.urlopen(href, timeout=60) as reply:
        return reply.read()


def pixel_difference(first: bytes, second: bytes) -> tuple[float, int, tuple[int, int]]:
    """Two encoded pictures decoded to RGB: the mean and the largest absolute difference of their samples
    (0...255), and their size (which must agree)."""
    a, b = (np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.int16) for data in (first, second))
    assert a.shape == b.shape, f"the pictures differ in size: {a.shape} and {b.shape}"
    difference = np.abs(a - b)
    return float(difference.mean()), int(difference.max()), (a.shape[1], a.shape[0])


def photo_name(driver) -> str:
    """The photo cell's name of its photo, read in one script: the cell is attached again when the person matte
    arrives in the background, and an element found before that is stale after it."""
    return driver.execute_script("""
        const name = document.querySelector('db-cell[data-kind=photo] .photo-name strong');
        return name ? name.innerText : '';""")
