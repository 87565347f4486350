"""More than one machine: two `depthbook serve` replicas share one real PostgreSQL (Debian's package, started
here) and one data folder, behind the repository's nginx site. A notebook saved through one replica opens
through the other; each serves Prometheus metrics; and when the replica a page is on is killed, the page
reconnects through nginx to the other and reopens its notebook from the saved link, losing nothing saved."""
from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.keys import Keys

from nginx_support import start_nginx
from page_support import (nudge_slider, cell_with_param, connection_text, open_notebook, save_and_share as save, settled_frame, slider_value,
                          stored_tab, wait_for)
from postgres_support import Postgres
from test_server_support import Client, binary, get, start_server


@pytest.fixture(scope="module")
def replicas(tmp_path_factory):
    binary()
    database = Postgres()
    data = tmp_path_factory.mktemp("shared-volume")
    servers = []
    nginx = None
    try:
        servers = [start_server(data, "--store", database.url) for _ in range(2)]
        nginx = start_nginx(tmp_path_factory.mktemp("nginx"), [s.port for s in servers])
        yield {"database": database, "servers": servers, "nginx": nginx, "data": data}
    finally:
        if nginx:
            nginx.stop()
        for server in servers:
            server.stop()
        database.stop()


def test_a_save_on_one_replica_opens_on_the_other(replicas):
    first, second = replicas["servers"]
    editor = Client(first)
    editor.ok("hello", protocol=1)
    opened = editor.ok("openNotebook", name="depth-threshold")
    mask = next(c for c in opened["notebook"]["cells"] if c.get("effect") == "threshold")
    editor.ok("setParams", cell=mask["id"], params={"percentile": 23}, seq=1)
    saved = editor.ok("save")
    editor.close()

    viewer = Client(second)
    viewer.ok("hello", protocol=1)
    reopened = viewer.ok("openNotebook", shared=saved["shared"])
    viewer.close()
    cells = {c["id"]: c for c in reopened["notebook"]["cells"]}
    assert cells[mask["id"]]["params"]["percentile"] == 23
    assert [c["id"] for c in reopened["notebook"]["cells"]] == [c["id"] for c in opened["notebook"]["cells"]]
    # One row in the shared database, not one per replica.
    assert replicas["database"].query(f"SELECT count(*) FROM notebook_version WHERE id = '{saved['shared']}'") == "1"


def test_each_replica_serves_prometheus_metrics(replicas):
    server = replicas["servers"][1]
    client = Client(server)
    client.ok("hello", protocol=1)
    opened = client.ok("openNotebook", name="depth-threshold")
    step = next(c for c in opened["notebook"]["cells"] if c["kind"] == "step")
    client.ok("preview", cell=step["id"], width=200, seq=1)
    client.wait_frame(step["id"], 1)
    status, headers, body = get(server, "/metrics")
    client.close()
    text = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/plain")
    assert re.search(r'^depthbook_render_seconds_bucket\{kind="preview",le="[^"]+"\} [1-9]', text, re.M), text[:2000]
    assert re.search(r"^depthbook_sessions [1-9]", text, re.M)
    for name in ("depthbook_render_queue_depth", "depthbook_memory_budget_in_use_bytes", "depthbook_frames_superseded_total",
                 "depthbook_upload_errors_total", "depthbook_decode_errors_total"):
        assert re.search(rf"^{name} ", text, re.M), name


@pytest.mark.timeout(300)
def test_a_killed_replica_hands_the_page_to_the_other(replicas, browser_factory):
    nginx = replicas["nginx"]
    browser = browser_factory(extra=("--ignore-certificate-errors",))
    open_notebook(browser, nginx.base, "depth-threshold")
    mask = cell_with_param(browser, "percentile")
    first, _ = settled_frame(browser, mask)
    nudge_slider(browser, mask, "percentile", Keys.ARROW_LEFT, 5)
    edited = slider_value(browser, mask, "percentile")
    settled_frame(browser, mask, newer_than=first.seq)

    # Save: the page points its address at /n/<id>, a version every replica can read. Then open that link.
    shared = save(browser)
    open_notebook(browser, nginx.base, shared)
    mask = cell_with_param(browser, "percentile")
    settled_frame(browser, mask)
    assert slider_value(browser, mask, "percentile") == edited

    # Which replica holds this page's session? Only that one lets a watcher join it.
    def holds(server) -> bool:
        probe = Client(server)
        try:
            return probe.request("hello", protocol=1, watch=stored_tab(browser)["session"])["ok"]
        finally:
            probe.close()

    holders = [s for s in replicas["servers"] if holds(s)]
    assert len(holders) == 1, "the page's session should live on exactly one replica"
    victim = holders[0]
    other = next(s for s in replicas["servers"] if s is not victim)
    victim.process.kill()
    victim.process.wait(timeout=10)

    wait_for("the page to reconnect through nginx to the other replica",
             lambda: "Reconnected" in connection_text(browser), timeout=90)
    assert slider_value(browser, mask, "percentile") == edited, "the saved value was lost with the replica"
    settled_frame(browser, mask)
    assert holds(other), "the page's new session is not on the surviving replica"
