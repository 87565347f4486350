"""Save & share: one click saves and puts the share URL in the address bar and the link field; another
browser (a fresh profile) opening it shows the same recipe and the same preview bytes; the URL restores
after a refresh; editing the shared notebook forks it, leaving the shared version as it was."""

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from page_support import (SHARE_PATH, nudge_slider, save_and_share as save, cell_with_param, connection_text, open_notebook, recipe_shown, screenshot, settled_frame,
                          slider_value, wait_for)



def test_share_url_reopens_same_recipe_and_preview(depthbook_server, browser_factory, artifacts_dir):
    author = browser_factory()
    open_notebook(author, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(author, "percentile")
    first, _ = settled_frame(author, mask)
    nudge_slider(author, mask, "percentile", Keys.ARROW_LEFT, 12)
    _, author_bytes = settled_frame(author, mask, newer_than=first.seq)
    author_recipe = recipe_shown(author)
    saved_id = save(author)
    assert saved_id != "depth-threshold"
    screenshot(author, artifacts_dir, "share-author")

    reader = browser_factory()
    open_notebook(reader, depthbook_server.base_url, saved_id)
    _, reader_bytes = settled_frame(reader, mask)
    assert recipe_shown(reader) == author_recipe, "the shared notebook shows a different recipe"
    assert reader_bytes == author_bytes, "the shared notebook renders a different preview"
    screenshot(reader, artifacts_dir, "share-reader")

    # The address restores after a refresh.
    reader.refresh()
    wait_for("the page to come back after the refresh", lambda: "resumed" in connection_text(reader))
    assert SHARE_PATH.search(reader.current_url).group(1) == saved_id
    assert recipe_shown(reader) == author_recipe

    # Editing forks: the reader's change saves under a new id; the shared one keeps its recipe.
    shown_before = settled_frame(reader, mask)[0]
    nudge_slider(reader, mask, "percentile", Keys.ARROW_RIGHT, 20)
    settled_frame(reader, mask, newer_than=shown_before.seq)
    wait_for("the page to say the edit will fork", lambda: "new link" in reader.find_element(By.CSS_SELECTOR, ".save-state").text)
    fork_id = save(reader)
    assert fork_id != saved_id, "saving an edited shared notebook overwrote it instead of forking"
    forked_value = slider_value(reader, mask, "percentile")

    third = browser_factory()
    open_notebook(third, depthbook_server.base_url, saved_id)
    assert recipe_shown(third) == author_recipe, "the original shared notebook changed after another browser edited it"
    open_notebook(third, depthbook_server.base_url, fork_id)
    wait_for("the fork's recipe", lambda: slider_value(third, mask, "percentile") == forked_value)
