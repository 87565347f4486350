"""A photo without Apple's portrait matte, uploaded in the photo cell: the server runs the learned person matte
once, and the photo cell lists it as a plane of its own, which renders."""
from selenium.webdriver.common.by import By

from conftest import PHOTOS_DIR, require_person_matte_weights
from page_support import open_notebook, screenshot, wait_for


def test_the_photo_cell_lists_the_person_matte(depthbook_server, browser, artifacts_dir):
    require_person_matte_weights()
    path = PHOTOS_DIR / "spite-lensblur-extractor__table.jpg"
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    photo_cell = browser.find_element(By.CSS_SELECTOR, "db-cell[data-kind=photo]")
    photo_cell.find_element(By.CSS_SELECTOR, "input.upload-photo").send_keys(str(path))
    figure = wait_for("the person matte in the photo cell", lambda: next(iter(
        browser.find_elements(By.CSS_SELECTOR, "db-cell[data-kind=photo] figure[data-plane=personMatte]")), None), timeout=60)
    assert "Person matte" in figure.text
    wait_for("the person matte's preview", lambda: figure.find_elements(By.CSS_SELECTOR, "db-preview[data-state=ready]"), timeout=60)
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'})", figure)
    screenshot(browser, artifacts_dir, "person-matte-plane")
