"""Formula cells through the real server (issue 28): the bundled `formulas` notebook renders, a formula's slider
moves like any step's (checked against the sliders its line declares), and `checkFormula` answers what the
page shows while a line is typed: its sliders, or its error at its position."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from test_server_support import Client, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("formulas") / "data")
    yield running
    running.stop()


def mean_luma(jpeg: bytes) -> float:
    image = Image.open(io.BytesIO(jpeg)).convert("L")
    return sum(image.getdata()) / (image.width * image.height)


def test_a_formula_slider_moves_like_a_step_slider(server):
    client = Client(server)
    client.ok("hello", protocol=1)
    notebook = client.ok("openNotebook", name="formulas", timeout=180)["notebook"]
    assert any(cell["kind"] == "formula" for cell in notebook["cells"])
    client.ok("preview", cell="darkenFormula", width=320, seq=1)
    _, before = client.wait_frame("darkenFormula", 1, timeout=180, coarse=False)
    # More power darkens more of the photo (disparity / subject is at most 1).
    client.ok("setParams", cell="darkenFormula", params={"power": 4}, seq=2)
    _, after = client.wait_frame("darkenFormula", 2, timeout=180, coarse=False)
    assert mean_luma(after) < mean_luma(before) - 1
    # A name the line does not declare, or a value outside its declared range, is refused and changes nothing.
    assert client.request("setParams", cell="darkenFormula", params={"gamma": 1}, seq=3)["error"]["code"] == "bad_request"
    assert client.request("setParams", cell="darkenFormula", params={"power": 9}, seq=4)["error"]["code"] == "bad_request"
    client.close()


def test_check_formula_gives_sliders_or_the_error_and_its_position(server):
    client = Client(server)
    client.ok("hello", protocol=1)
    client.ok("openNotebook", name="formulas", timeout=180)
    good = client.ok("checkFormula", formula="image * pow(disparity, $power(0..4 = 1))")
    assert good["ok"] is True and good["output"] == "image"
    assert [(s["name"], s["min"], s["max"], s["default"]) for s in good["sliders"]] == [("power", 0, 4, 1)]
    bad = client.ok("checkFormula", formula="image * dispariti")
    assert bad["ok"] is False and bad["error"]["position"] == 8 and "dispariti" in bad["error"]["message"]
    deep = client.ok("checkFormula", formula="(" * 900 + "1" + ")" * 900)
    assert deep["ok"] is False
    assert client.request("checkFormula", formula="x" * 10_000)["error"]["code"] == "too_large"
    client.close()
