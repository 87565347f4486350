"""Presenter mode and undo in Firefox ESR (WebDriver BiDi, firefox_bidi.py): in a 1920×1080 viewport the
3:4 portrait stands at full height beside a wide column of controls and follows the percentile slider moved five cells above the result by key
presses, and Ctrl+Z puts the slider and the result's picture back as they were."""
from page_support import cell_with_param, connection_text, wait_for
from test_page_presenter import STAGE_JS, assert_portrait_beside_the_column

CONTROL = "\ue009"


def stage_bytes(firefox) -> str:
    """The stage picture's JPEG bytes (base64), read back from its blob URL (again, when a newer frame
    revoked the URL meanwhile)."""
    return wait_for("the stage picture's bytes", lambda: firefox.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const img = document.querySelector('db-pinned db-preview img');
        if (!img) { done(null); return; }
        fetch(img.src).then((r) => r.arrayBuffer()).then((b) => {
            let text = ''; const bytes = new Uint8Array(b);
            for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
            done(btoa(text));
        }, () => done(null));"""))


SETTLED_JS = STAGE_JS.replace("return {reference", """if (preview.dataset.coarse === 'true' || preview.dataset.awaitedSeq === 'pending'
        || Number(preview.dataset.seq) < Number(preview.dataset.awaitedSeq ?? -1)) return null;
    return {reference""")


def settled_stage(firefox, newer_than: int = -1) -> dict:
    """The stage's full frame answering the page's newest request for what it shows."""
    return wait_for("the stage to settle", lambda: (s if (s := firefox.execute_script(SETTLED_JS)) and s["seq"] > newer_than else None))


def test_presenter_stage_and_undo_in_firefox(depthbook_server, firefox, artifacts_dir):
    firefox.command("browsingContext.setViewport", {"context": firefox.context, "viewport": {"width": 1920, "height": 1080}})
    firefox.get(f"{depthbook_server.base_url}/n/depth-threshold")
    wait_for("the connection", lambda: "Connected" in connection_text(firefox))
    mask = cell_with_param(firefox, "percentile")
    firefox.execute_script("document.body.focus()")
    firefox.press("p")
    first = wait_for("the result on stage", lambda: (s if (s := settled_stage(firefox)) and s["reference"] == "result" else None))
    assert_portrait_beside_the_column(first)
    # Presenter mode asks for every picture again at its new size a quarter second after it starts.
    firefox.execute_async_script("setTimeout(arguments[arguments.length - 1], 1000)")
    first = settled_stage(firefox)
    before_bytes = stage_bytes(firefox)
    value = lambda: firefox.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`).value", mask)
    start = value()

    firefox.execute_script(
        "const r = document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`);"
        "r.scrollIntoView({block: 'center'}); r.focus();", mask)
    firefox.press(*["ArrowLeft"] * 10)
    moved = settled_stage(firefox, first["seq"])
    assert value() != start
    # The whole picture fits on stage, as tall as the viewport (the portrait sample is 3:4), beside the column.
    assert_portrait_beside_the_column(moved)
    assert moved["inside"], f"the picture is {moved['image']} on stage: {moved}"
    moved_bytes = stage_bytes(firefox)
    assert moved_bytes != before_bytes, "the stage did not change with the slider"
    firefox.save_screenshot(str(artifacts_dir / "firefox-presenter.png"))

    firefox.command("input.performActions", {"context": firefox.context, "actions": [{"type": "key", "id": "keyboard", "actions": [
        {"type": "keyDown", "value": CONTROL}, {"type": "keyDown", "value": "z"}, {"type": "keyUp", "value": "z"}, {"type": "keyUp", "value": CONTROL}]}]})
    firefox.command("input.releaseActions", {"context": firefox.context})
    wait_for("the slider back", lambda: value() == start)
    settled_stage(firefox, moved["seq"])
    assert stage_bytes(firefox) == before_bytes, "undo did not bring back the earlier picture on stage"
