"""deploy/nginx/depthbook.conf for real: Debian's nginx on loopback terminates TLS (a throwaway certificate)
in front of a real `depthbook serve`; the load test and a share-URL round trip go through it.

Only the lines the site file marks `# test:` are rewritten (ports and certificate paths); everything else
(the WebSocket upgrade, timeouts, body size) is the deployed configuration.
"""
from __future__ import annotations

import json
import subprocess
import urllib.request

import pytest

from nginx_support import TLSClient, start_nginx
from test_server_support import binary, start_server


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    binary()
    server = start_server(tmp_path_factory.mktemp("data"))
    try:
        nginx = start_nginx(tmp_path_factory.mktemp("nginx"), [server.port])
    except Exception:
        server.stop()
        raise
    yield nginx
    nginx.stop()
    server.stop()


def test_http_redirects_to_https(stack):
    request = urllib.request.Request(f"http://127.0.0.1:{stack.http}/")
    opener = urllib.request.build_opener(type("NoRedirect", (urllib.request.HTTPRedirectHandler,),
                                              {"redirect_request": lambda *a, **k: None}))
    with pytest.raises(urllib.error.HTTPError) as caught:
        opener.open(request, timeout=10)
    assert caught.value.code == 301
    assert caught.value.headers["Location"].startswith("https://")


def test_page_is_served_through_tls(stack):
    with urllib.request.urlopen(stack.base + "/", context=stack.context, timeout=10) as reply:
        body = reply.read().decode()
    assert reply.status == 200 and "<html" in body.lower()


def test_share_url_round_trip_through_nginx(stack):
    editor = TLSClient(stack)
    editor.ok("hello", protocol=1)
    opened = editor.ok("openNotebook", name="depth-threshold")
    step = next(c for c in opened["notebook"]["cells"] if c["kind"] == "step")
    editor.ok("preview", cell=step["id"], width=320, seq=1, interactive=False)
    before = editor.frame(step["id"], 1)
    saved = editor.ok("save")
    assert saved["url"] == f"/n/{saved['shared']}"

    with urllib.request.urlopen(stack.base + saved["url"], context=stack.context, timeout=10) as reply:
        assert reply.status == 200 and "<html" in reply.read().decode().lower()

    viewer = TLSClient(stack)
    viewer.ok("hello", protocol=1)
    reopened = viewer.ok("openNotebook", shared=saved["shared"])
    assert reopened["notebook"]["cells"] == opened["notebook"]["cells"]
    viewer.ok("preview", cell=step["id"], width=320, seq=1, interactive=False)
    assert viewer.frame(step["id"], 1) == before
    editor.close()
    viewer.close()


def test_load_test_through_nginx(stack):
    run = subprocess.run([binary(), "loadtest", "--url", f"wss://127.0.0.1:{stack.https}/ws",
                          "--origin", stack.base, "--ca-file", str(stack.cert),
                          "--sessions", "3", "--changes", "20", "--rate", "20", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["sessions"] == 3 and result["changes"] == 60
    assert result["errors"] == 0
    assert result["frames"] >= 3, result  # every session got at least its final frame
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["max_ms"]
    print(json.dumps(result))
