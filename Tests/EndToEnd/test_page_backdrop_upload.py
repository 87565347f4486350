"""Backdrop over a background of the user's own: choose a picture in the Backdrop cell, see the preview's
background become it (centre-cropped to the photo's shape), and open the share URL in a fresh browser to see
the same picture behind the subject."""
import io

from PIL import Image
from selenium.webdriver.common.by import By

from page_support import open_notebook, screenshot, settled_frame, wait_for
from test_page_share import save

CELL = "space"
MAGENTA = (230, 20, 200)


def magenta_background(path) -> None:
    """Wide picture: grey bands at both ends, magenta in the middle third, so only a centred crop is magenta."""
    image = Image.new("RGB", (900, 300), (128, 128, 128))
    image.paste(Image.new("RGB", (300, 300), MAGENTA), (300, 0))
    image.save(path, "PNG")


def corner_colour(jpeg: bytes) -> tuple[int, int, int]:
    image = Image.open(io.BytesIO(jpeg)).convert("RGB")
    # Top-left corner, inside the frame: the portrait sample's background there is far behind the subject.
    return image.getpixel((6, 6))


def close_to(colour, target, tolerance=12) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(colour, target))


def test_uploaded_background_replaces_the_backdrop_and_survives_sharing(depthbook_server, browser_factory, artifacts_dir,
                                                                        tmp_path):
    picture = tmp_path / "magenta.png"
    magenta_background(picture)
    author = browser_factory()
    open_notebook(author, depthbook_server.base_url, "backdrop")
    first, before = settled_frame(author, CELL)
    assert not close_to(corner_colour(before), MAGENTA), "the bundled background is already magenta?"

    control = author.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{CELL}"] db-param[data-param="backgroundUpload"]')
    author.execute_script("arguments[0].scrollIntoView({block: 'center'})", control)
    control.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(picture))
    wait_for("the upload to be used", lambda: "Using upload" in control.find_element(By.CSS_SELECTOR, ".param-upload-state").text)
    _, after = settled_frame(author, CELL, newer_than=first.seq)
    assert close_to(corner_colour(after), MAGENTA), f"the corner is {corner_colour(after)}, not the uploaded magenta"
    screenshot(author, artifacts_dir, "backdrop-uploaded-background")

    saved = save(author)
    reader = browser_factory()
    open_notebook(reader, depthbook_server.base_url, saved)
    _, shared = settled_frame(reader, CELL)
    assert close_to(corner_colour(shared), MAGENTA), "the shared notebook lost the uploaded background"
    assert shared == after, "the shared notebook renders a different preview"

    # "None" goes back to the bundled background.
    control = author.find_element(By.CSS_SELECTOR, f'db-cell[data-cell="{CELL}"] db-param[data-param="backgroundUpload"]')
    shown_now, _ = settled_frame(author, CELL)
    control.find_element(By.CSS_SELECTOR, "button.param-clear").click()
    _, cleared = settled_frame(author, CELL, newer_than=shown_now.seq)
    assert not close_to(corner_colour(cleared), MAGENTA)
