"""Your own photo in Firefox ESR (over WebDriver BiDi): a file dropped through a DataTransfer opens, an exported
JPEG dropped back restores its recipe's moved slider, and at a phone's 390×844 nothing scrolls sideways and the
toolbar stays under 15 % of the height."""
from conftest import PHOTOS_DIR
from firefox_page import click_answer
from page_support import cell_with_param, connection_text, drop_files, photo_facts, wait_for
from test_server_support import Server, depth_threshold_export

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def percentile_of(browser, cell: str) -> float:
    return float(browser.execute_script(
        "return document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`).value", cell))


def test_dropped_files_in_firefox(depthbook_server, firefox):
    jpeg = depth_threshold_export(Server(depthbook_server.process, depthbook_server.port, depthbook_server.data_dir), 27)

    firefox.get(f"{depthbook_server.base_url}/n/depth-threshold")
    wait_for("the connection", lambda: "Connected" in connection_text(firefox))
    assert "Firefox/" in firefox.execute_script("return navigator.userAgent")
    mask_id = cell_with_param(firefox, "percentile")
    drop_files(firefox, [("result.jpg", jpeg, "image/jpeg")])
    assert "result.jpg" in click_answer(firefox, "recipe")
    wait_for("the restored cut", lambda: percentile_of(firefox, mask_id) == 27)

    drop_files(firefox, [(PUG.name, PUG.read_bytes(), "image/heic")])
    wait_for("the dropped photo", lambda: photo_facts(firefox).get("width") == 4032)

    # Another notebook opens on the same photo.
    firefox.get(f"{depthbook_server.base_url}/n/darken")
    wait_for("the darken notebook on the kept photo", lambda: photo_facts(firefox).get("width") == 4032
             and firefox.execute_script("return location.pathname") == "/n/darken")


def test_a_pinned_output_follows_another_slider_in_firefox(depthbook_server, firefox):
    firefox.get(f"{depthbook_server.base_url}/n/depth-threshold")
    wait_for("the connection", lambda: "Connected" in connection_text(firefox))
    mask = cell_with_param(firefox, "percentile")
    firefox.execute_script("""
        const card = document.querySelector("db-cell[data-cell='result']");
        card.querySelector('.cell-menu summary').click();
        card.querySelector('button.cell-pin').click();""")

    def pinned():
        return firefox.execute_script("""
            const p = document.querySelector('db-pinned:not([hidden]) db-preview[data-reference=result]');
            return p && p.dataset.state === 'ready' ? [Number(p.dataset.seq), Number(p.dataset.bytes)] : null;""")
    before = wait_for("the pinned output", pinned)
    firefox.execute_script(
        "const r = document.querySelector(`db-cell[data-cell='${arguments[0]}'] db-param[data-param=percentile] input[type=range]`);"
        "r.scrollIntoView({block: 'center'}); r.focus();", mask)
    firefox.press(*["ArrowLeft"] * 12)
    after = wait_for("the pinned output to follow", lambda: (now := pinned()) and now[0] > before[0] and now[1] != before[1] and now)
    assert after[1] != before[1]


def test_phone_width_in_firefox(depthbook_server, firefox):
    firefox.command("browsingContext.setViewport", {"context": firefox.context, "viewport": {"width": 390, "height": 844}})
    firefox.get(f"{depthbook_server.base_url}/n/depth-threshold")
    wait_for("the connection", lambda: "Connected" in connection_text(firefox))
    width, inner, bar, height = firefox.execute_script(
        "return [document.scrollingElement.scrollWidth, innerWidth, document.querySelector('.app-bar').getBoundingClientRect().height, innerHeight]")
    assert inner == 390 and width <= inner, f"{width} px of page in a {inner} px window"
    assert bar <= 0.15 * height, f"the toolbar takes {bar:.0f} of {height} px"
