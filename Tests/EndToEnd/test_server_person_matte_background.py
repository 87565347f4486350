"""The learned person matte is made in the background, not on the way to the first frame: an upload without
Apple's portrait matte is answered, opened and rendered while its matte is `coming`; then every page of the
session hears a `photo` event with the matte among its planes, and the matte renders. A second page opening the
photo afterwards finds it made (the network ran once)."""
from __future__ import annotations

import pytest

from conftest import PHOTOS_DIR, require_person_matte_weights
from test_server_support import Client, post, start_server

TABLE = PHOTOS_DIR / "spite-lensblur-extractor__table.jpg"



def mattes(facts: dict) -> set[str]:
    return {matte.get("kind") for matte in facts.get("mattes") or []}


@pytest.fixture(scope="module")
def depthbook_server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("person-matte-background"))
    yield running
    running.stop()


def test_the_matte_comes_after_the_photo_opens_and_every_page_hears_of_it(depthbook_server):
    require_person_matte_weights()
    status, uploaded = post(depthbook_server, "/api/upload", TABLE.read_bytes())
    assert status == 200, uploaded
    # Answered before the network ran: the upload's facts say the matte is coming and do not list it yet.
    assert uploaded["photo"].get("coming") == ["personMatte"], uploaded["photo"]
    assert "personMatte" not in mattes(uploaded["photo"])

    editor, watcher = Client(depthbook_server), Client(depthbook_server)
    try:
        hello = editor.ok("hello", protocol=1)
        editor.ok("openNotebook", name="depth-threshold")
        opened = editor.ok("openPhoto", photo={"upload": uploaded["upload"]})
        watcher.ok("hello", protocol=1, watch=hello["session"])
        # The photo renders from depth whether or not the matte has come yet.
        editor.ok("preview", cell="photo.subject", width=160, seq=1)
        header, _ = editor.wait_frame("photo.subject", 1)
        assert header["width"] == 160
        if opened["photo"].get("coming") is None:
            pytest.fail(f"the matte was made before the photo opened: {opened['photo']}")

        for client in (editor, watcher):
            event = client.wait_event(lambda e: e.get("event") == "photo", "the photo with its matte", timeout=120)
            assert "personMatte" in mattes(event["photo"]), event["photo"]
            assert "coming" not in event["photo"], event["photo"]
        editor.ok("preview", cell="photo.personMatte", width=160, seq=2)
        header, _ = editor.wait_frame("photo.personMatte", 2)
        assert header["width"] == 160
    finally:
        editor.close()
        watcher.close()

    later = Client(depthbook_server)
    try:
        later.ok("hello", protocol=1)
        later.ok("openNotebook", name="depth-threshold")
        facts = later.ok("openPhoto", photo={"upload": uploaded["upload"]})["photo"]
        assert "personMatte" in mattes(facts) and "coming" not in facts, facts
    finally:
        later.close()
