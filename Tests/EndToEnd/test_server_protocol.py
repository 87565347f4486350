"""The studio protocol over real WebSocket connections to `depthbook serve`: round trips, every kind of bad
input (the session lives on), the /ws-only upgrade and the Origin check, watchers, reconnects, sharing."""
from __future__ import annotations

import json

import pytest
from websockets.exceptions import InvalidHandshake, InvalidMessage, InvalidStatus

from test_server_support import Client, start_server, write_notebook


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("studio")
    write_notebook(base / "notebooks")
    running = start_server(base / "data", "--session-grace", "30", notebooks=base / "notebooks")
    yield running
    running.stop()


@pytest.fixture
def client(server):
    c = Client(server)
    hello = c.ok("hello", protocol=1)
    assert hello["role"] == "edit" and hello["resumed"] is False and hello["protocol"] == 1
    assert hello["server"].startswith("depthbook ")
    yield c
    c.close()


def test_catalog_round_trips(client):
    samples = client.ok("listSamples")["samples"]
    assert {"portrait", "still-life"} <= {s["id"] for s in samples}
    assert all(s["width"] > 0 and s["height"] > 0 and "photo.image" in s["planes"] for s in samples)
    notebooks = client.ok("listNotebooks")["notebooks"]
    assert notebooks == [{"name": "depth-threshold", "title": "Test depth-threshold", "description": "written by the server tests"}]
    assert isinstance(client.ok("effects")["effects"], list)


def test_every_request_gets_exactly_one_reply(client):
    ids = [client.send("listNotebooks") for _ in range(20)]
    for request_id in ids:
        assert client.reply(request_id)["ok"]
    client.settle()
    assert all(not replies for replies in client.replies.values()), "no request was answered twice"


def test_bad_input_gets_error_replies_and_the_session_lives_on(client, server):
    cases = [
        ("{not json", "bad_request"),
        ("[1, 2, 3]", "bad_request"),
        (json.dumps({"type": "listSamples"}), "bad_request"),
        (json.dumps({"id": "seven", "type": "listSamples"}), "bad_request"),
        (b"\x00\xff\xfe binary garbage \x81", "bad_request"),
        (bytes(range(256)) * 64, "bad_request"),
        ("x" * (1 << 20 + 1), "too_large"),
        (json.dumps({"id": 1, "pad": "y" * (2 << 20)}), "too_large"),
    ]
    for message, code in cases:
        reply = client.raw(message)
        assert reply["ok"] is False and reply["error"]["code"] == code, (str(message)[:40], reply)
        assert reply["error"]["message"]
        assert client.ok("listNotebooks")["notebooks"], "the session lives on"
    unknown = client.request("teleport", somewhere="else")
    assert unknown["error"]["code"] == "unknown_type" and "teleport" in unknown["error"]["message"]
    missing = client.request("preview", cell="disparity", seq=1)
    assert missing["error"]["code"] == "bad_request" and "width" in missing["error"]["message"]
    assert client.request("openNotebook", name="no-such-notebook")["error"]["code"] == "not_found"
    assert client.request("hello", protocol=9)["error"]["code"] == "unsupported"
    assert server.alive()


def test_requests_before_hello_are_refused(server):
    c = Client(server)
    try:
        assert c.request("listSamples")["error"]["code"] == "bad_request"
        assert c.ok("hello", protocol=1)["session"]
    finally:
        c.close()


def test_the_upgrade_is_refused_off_ws_and_from_other_origins(server):
    from websockets.sync.client import connect
    for url in [f"ws://127.0.0.1:{server.port}/", f"ws://127.0.0.1:{server.port}/ws/x", f"ws://127.0.0.1:{server.port}/api"]:
        with pytest.raises((InvalidHandshake, InvalidMessage, InvalidStatus, ConnectionError, EOFError)):
            with connect(url, compression=None, open_timeout=10):
                pass
    with pytest.raises((InvalidHandshake, InvalidMessage, InvalidStatus, ConnectionError, EOFError)):
        Client(server, origin="http://evil.example").close()
    same = Client(server, origin=f"http://127.0.0.1:{server.port}")
    assert same.ok("hello", protocol=1)["session"]
    same.close()


def test_open_save_and_share_round_trip(server):
    editor = Client(server)
    editor.ok("hello", protocol=1)
    opened = editor.ok("openNotebook", name="depth-threshold", timeout=120)
    assert opened["shared"] is None
    assert [c["id"] for c in opened["notebook"]["cells"]] == ["intro", "photo", "disparity"]
    assert opened["photo"]["source"] == {"sample": "portrait"}
    assert opened["photo"]["depth"]["kind"] in ("disparity", "depth")
    saved = editor.ok("save")
    assert saved["url"] == f"/n/{saved['shared']}"
    assert editor.ok("save")["shared"] == saved["shared"], "the same content is the same version"

    viewer = Client(server)
    viewer.ok("hello", protocol=1)
    reopened = viewer.ok("openNotebook", shared=saved["shared"], timeout=120)
    assert reopened["notebook"] == opened["notebook"]
    assert reopened["shared"] == saved["shared"]
    assert reopened["photo"] == opened["photo"]
    assert viewer.ok("openNotebook", name=saved["shared"])["shared"] == saved["shared"], "/n/<id> hands over one string"

    # Editing the shared notebook forks it: saving makes a new version, the old one is unchanged.
    edited = dict(reopened["notebook"], title="Forked")
    viewer.ok("setNotebook", notebook=edited)
    forked = viewer.ok("save")
    assert forked["shared"] != saved["shared"]
    third = Client(server)
    third.ok("hello", protocol=1)
    assert third.ok("openNotebook", shared=saved["shared"])["notebook"]["title"] == "Test depth-threshold"
    assert third.ok("openNotebook", shared=forked["shared"])["notebook"]["title"] == "Forked"
    assert third.request("openNotebook", shared="ffffffffffffffffffff")["error"]["code"] == "not_found"
    for c in (editor, viewer, third):
        c.close()


def test_watchers_follow_and_cannot_edit(server):
    editor = Client(server)
    session = editor.ok("hello", protocol=1)["session"]
    editor.ok("openNotebook", name="depth-threshold", timeout=120)
    watcher = Client(server)
    hello = watcher.ok("hello", protocol=1, watch=session)
    assert hello["role"] == "watch" and hello["session"] == session
    assert hello["notebook"]["name"] == "depth-threshold"
    changed = dict(hello["notebook"], title="Changed by the editor")
    editor.ok("setNotebook", notebook=changed)
    watcher.wait_event(lambda e: e.get("event") == "notebook" and e["notebook"]["title"] == "Changed by the editor",
                       "the watcher told of the editor's change")
    for type_, fields in [("setNotebook", {"notebook": changed}), ("save", {}), ("preview", {"cell": "photo", "width": 128, "seq": 1}),
                          ("openNotebook", {"name": "depth-threshold"})]:
        assert watcher.request(type_, **fields)["error"]["code"] == "forbidden", type_
    assert watcher.request("hello", protocol=1, watch="nonexistent")["error"]["code"] == "not_found"
    editor.close()
    watcher.close()


def test_a_session_survives_a_reconnect(server):
    first = Client(server)
    opened = first.ok("hello", protocol=1)
    session, key = opened["session"], opened["resume"]
    first.ok("openNotebook", name="depth-threshold", timeout=120)
    again = first.ok("hello", protocol=1, session=session, resume=key)
    # Each resume hands out a new key: the one just presented is spent.
    assert again["resumed"] is True and again["resume"] != key
    spent, key = key, again["resume"]
    first.ok("setNotebook", notebook=dict(again["notebook"], title="Before the drop"))
    first.close()
    second = Client(server)
    assert second.ok("hello", protocol=1, session=session, resume=spent)["resumed"] is False
    hello = second.ok("hello", protocol=1, session=session, resume=key)
    assert hello["resumed"] is True and hello["session"] == session and hello["role"] == "edit"
    assert hello["notebook"]["title"] == "Before the drop"
    assert hello["photo"]["source"] == {"sample": "portrait"}
    fresh = second.ok("hello", protocol=1, session="no-such-session", resume=key)
    assert fresh["resumed"] is False and fresh["session"] != session
    second.close()


def test_a_watch_link_never_becomes_the_editor(server):
    """The id a watch link carries is public: presenting it as `session`, with no resume key or a wrong one,
    starts a session of one's own; the editor keeps editing and the watcher only watches."""
    editor = Client(server)
    opened = editor.ok("hello", protocol=1)
    session = opened["session"]
    assert opened["role"] == "edit" and len(opened["resume"]) == 32 and opened["resume"] != session
    notebook = editor.ok("openNotebook", name="depth-threshold", timeout=120)["notebook"]
    intruder = Client(server)
    watched = intruder.ok("hello", protocol=1, watch=session)
    assert watched["role"] == "watch" and "resume" not in watched
    for fields in ({"session": session}, {"session": session, "resume": "0" * 32}, {"session": session, "resume": session}):
        hello = intruder.ok("hello", protocol=1, **fields)
        assert hello["resumed"] is False and hello["session"] != session and hello["role"] == "edit"
    # The real editor was never demoted: its change is accepted.
    assert editor.ok("setNotebook", notebook=dict(notebook, title="Still the editor's"))["notebook"]["title"] == "Still the editor's"
    editor.close()
    intruder.close()
