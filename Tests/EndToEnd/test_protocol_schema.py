"""The studio protocol's requests as a JSON Schema (`depthbook protocol-schema`, issue 37 item 5): a valid draft
2020-12 schema whose bounds are the ones the server sends in `hello`; every message the page sends while a person
opens a notebook, drags a slider and saves follows it; and the server refuses as malformed exactly the messages
the schema refuses, over a corpus of good and bad requests of every kind."""
from __future__ import annotations

import json
import subprocess

import pytest
from jsonschema import Draft202012Validator
from selenium.webdriver.common.keys import Keys

from page_support import cell_with_param, open_notebook, save_and_share, settled_frame, slider, slider_value
from test_server_support import Client, start_server, write_notebook

# The reply codes of a request the server could not read (as opposed to one it read and could not do).
MALFORMED = {"bad_request", "unknown_type", "unsupported", "too_large"}

# Keeps every text message the page's sockets send, from before the page's own scripts run.
RECORD_SENT = """
window.__depthbookSent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
    if (typeof data === 'string') window.__depthbookSent.push(data);
    return send.call(this, data);
};
"""


@pytest.fixture(scope="module")
def schema(depthbook_bin) -> dict:
    printed = subprocess.run([depthbook_bin, "protocol-schema"], check=True, capture_output=True, text=True, timeout=60)
    document = json.loads(printed.stdout)
    Draft202012Validator.check_schema(document)
    return document


@pytest.fixture(scope="module")
def validator(schema) -> Draft202012Validator:
    return Draft202012Validator(schema)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("schema")
    write_notebook(base / "notebooks")
    running = start_server(base / "data", notebooks=base / "notebooks")
    yield running
    running.stop()


def rule(schema: dict, kind: str) -> dict:
    """The `then` part of the schema for one request kind."""
    return next(r["then"] for r in schema["allOf"] if r["if"]["properties"]["type"]["const"] == kind)


def test_the_schema_has_the_bounds_hello_sends(schema, server):
    client = Client(server)
    try:
        limits = client.ok("hello", protocol=1)["limits"]
    finally:
        client.close()
    preview = rule(schema, "preview")["properties"]["width"]
    assert (preview["minimum"], preview["maximum"]) == (limits["previewWidth"]["min"], limits["previewWidth"]["max"])
    bins = rule(schema, "histogram")["properties"]["bins"]
    assert (bins["minimum"], bins["maximum"]) == (limits["histogramBins"]["min"], limits["histogramBins"]["max"])
    frames = rule(schema, "export")["properties"]["frames"]["oneOf"][1]
    assert (frames["minimum"], frames["maximum"]) == (limits["exportFrames"]["min"], limits["exportFrames"]["max"])
    assert rule(schema, "crop")["properties"]["w"]["maximum"] == limits["maxCropSide"]
    assert schema["$defs"]["seq"]["maximum"] == limits["maxSeq"]
    assert rule(schema, "checkFormula")["properties"]["formula"]["maxLength"] == limits["notebook"]["maxFormulaLength"]
    assert schema["$defs"]["cells"]["maxItems"] == limits["notebook"]["maxCells"]


def test_the_pages_messages_follow_the_schema(depthbook_server, browser, validator):
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SENT})
    open_notebook(browser, depthbook_server.base_url, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    before, _ = settled_frame(browser, mask)
    control = slider(browser, mask, "percentile")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", control)
    start = slider_value(browser, mask, "percentile")
    control.send_keys(Keys.ARROW_LEFT * 5)
    assert slider_value(browser, mask, "percentile") < start
    settled_frame(browser, mask, newer_than=before.seq)
    save_and_share(browser)
    sent = [json.loads(text) for text in browser.execute_script("return window.__depthbookSent")]
    kinds = {message.get("type") for message in sent}
    assert {"hello", "openNotebook", "setParams", "preview", "histogram", "save"} <= kinds, kinds
    for message in sent:
        problems = sorted(validator.iter_errors(message), key=lambda e: list(e.path))
        assert not problems, f"{json.dumps(message)[:300]}: {problems[0].message}"


# Requests the server can read (it may still answer "not found" for what the session lacks), then requests it
# must refuse unread. Each with the reason it is in the list.
GOOD = [
    {"type": "listSamples"},
    {"type": "effects"},
    {"type": "listNotebooks"},
    {"type": "openNotebook", "name": "depth-threshold"},
    {"type": "openNotebook", "name": "depth-threshold", "shared": None},  # null is as good as absent
    {"type": "openNotebook", "shared": "0000000000000000"},  # not found, but read
    {"type": "preview", "cell": "disparity", "width": 64, "seq": 1},
    {"type": "preview", "cell": "disparity", "width": 2048, "seq": 2, "interactive": False},
    {"type": "preview", "cell": "no-such-cell", "width": 100, "seq": 3},  # not found, but read
    {"type": "histogram", "cell": "disparity", "bins": 2},
    {"type": "histogram", "cell": "disparity", "bins": 1024},
    {"type": "crop", "cell": "disparity", "x": 0, "y": 0, "w": 1, "h": 1, "seq": 4},
    {"type": "crop", "cell": "disparity", "x": 10, "y": 20, "w": 1024, "h": 1024, "seq": 5},
    {"type": "checkFormula", "formula": "1 + 1"},
    {"type": "checkFormula", "formula": "1 + 1", "cell": None},
    {"type": "setParams", "cell": "no-such-cell", "params": {"a": 1, "b": "x", "c": True, "d": [0.5, 0.5]}, "seq": 6,
     "unset": ["e"], "offscreen": ["photo"], "interactive": True},
    {"type": "hello", "protocol": 1, "session": None, "watch": None},
]
BAD = [
    {"type": "teleport"},  # unknown type
    {"type": 5},  # type not a string
    {"type": "hello", "protocol": 2},  # another version
    {"type": "hello", "protocol": "1"},
    {"type": "hello"},
    {"type": "openNotebook"},  # neither
    {"type": "openNotebook", "name": "a", "shared": "b"},  # both
    {"type": "openNotebook", "name": 5},
    {"type": "openPhoto"},
    {"type": "openPhoto", "photo": {}},
    {"type": "openPhoto", "photo": {"sample": 3}},
    {"type": "setNotebook"},
    {"type": "setNotebook", "notebook": 5},
    {"type": "setParams", "cell": "disparity", "seq": 1},  # no params
    {"type": "setParams", "cell": "disparity", "params": {"a": None}, "seq": 1},
    {"type": "setParams", "cell": "disparity", "params": {"a": [1, 2, 3]}, "seq": 1},
    {"type": "setParams", "cell": "disparity", "params": {}, "seq": -1},
    {"type": "setParams", "cell": "disparity", "params": {}, "seq": 2 ** 53},
    {"type": "setParams", "cell": "disparity", "params": {}, "seq": 1, "interactive": "yes"},
    {"type": "setParams", "cell": "disparity", "params": {}, "seq": 1, "offscreen": ["c"] * 201},
    {"type": "setParams", "cell": "disparity", "params": {f"p{i}": 1 for i in range(33)}, "seq": 1},
    {"type": "setParams", "cell": 7, "params": {}, "seq": 1},
    {"type": "preview", "cell": "disparity", "width": 63, "seq": 1},
    {"type": "preview", "cell": "disparity", "width": 2049, "seq": 1},
    {"type": "preview", "cell": "disparity", "width": "64", "seq": 1},
    {"type": "preview", "cell": "disparity", "width": 64.5, "seq": 1},
    {"type": "preview", "cell": "disparity", "width": 64},
    {"type": "crop", "cell": "disparity", "x": 0, "y": 0, "w": 0, "h": 1, "seq": 1},
    {"type": "crop", "cell": "disparity", "x": 0, "y": 0, "w": 1025, "h": 1, "seq": 1},
    {"type": "crop", "cell": "disparity", "x": -1, "y": 0, "w": 1, "h": 1, "seq": 1},
    {"type": "crop", "cell": "disparity", "x": 0, "y": 65537, "w": 1, "h": 1, "seq": 1},
    {"type": "histogram", "cell": "disparity", "bins": 1},
    {"type": "histogram", "cell": "disparity", "bins": 1025},
    {"type": "histogram", "cell": "disparity"},
    {"type": "export", "cell": "disparity", "format": "bmp"},
    {"type": "export", "cell": "disparity", "format": "gif", "frames": 1},
    {"type": "export", "cell": "disparity", "format": "gif", "frames": 121},
    {"type": "export", "cell": "disparity", "format": "gif", "width": 15},
    {"type": "export", "cell": "disparity", "format": "gif", "width": 2049},
    {"type": "checkFormula"},
    {"type": "checkFormula", "formula": "1" * 2001},
    {"type": "checkFormula", "formula": 12},
]


def test_the_server_refuses_unread_exactly_what_the_schema_refuses(server, validator):
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        disagreements = []
        for expected_valid, corpus in ((True, GOOD), (False, BAD)):
            for fields in corpus:
                message = {"id": client.next_id + 1, **fields}
                valid = validator.is_valid(message)
                reply = client.request(fields["type"], **{k: v for k, v in fields.items() if k != "type"})
                refused_unread = not reply["ok"] and reply["error"]["code"] in MALFORMED
                if valid != expected_valid or refused_unread == valid:
                    disagreements.append(f"{json.dumps(fields)[:120]}: schema {'accepts' if valid else 'refuses'}, "
                                         f"server {json.dumps(reply.get('error') or 'ok')[:160]}")
        assert not disagreements, "\n".join(disagreements)
        assert server.alive()
    finally:
        client.close()
