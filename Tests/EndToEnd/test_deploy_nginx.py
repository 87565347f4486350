"""deploy/nginx/depthbook.conf for real: Debian's nginx on loopback terminates TLS (a throwaway certificate)
in front of a real `depthbook serve`; the load test and a share-URL round trip go through it.

Only the lines the site file marks `# test:` are rewritten (ports and certificate paths); everything else
(the WebSocket upgrade, timeouts, body size) is the deployed configuration.
"""
from __future__ import annotations

import json
import re
import shutil
import socket
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.sync.client import connect

from test_server_support import REPO_ROOT, binary, decode_frame, start_server

SITE = REPO_ROOT / "deploy" / "nginx" / "depthbook.conf"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nginx_binary() -> str:
    path = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(path).exists():
        pytest.fail("nginx is not installed: scripts/install-deps.sh test installs nginx-light")
    return path


def site_for_test(upstream: int, http: int, https: int, cert: Path, key: Path) -> str:
    rewrites = {
        "upstream": f"    server 127.0.0.1:{upstream};",
        "http": f"    listen 127.0.0.1:{http};",
        "https": f"    listen 127.0.0.1:{https} ssl http2;",
        "cert": f"    ssl_certificate     {cert};",
        "key": f"    ssl_certificate_key {key};",
    }
    lines = []
    for line in SITE.read_text().splitlines():
        mark = re.search(r"# test: (\w+)", line)
        lines.append(rewrites[mark.group(1)] if mark else line)
    assert sum(1 for l in lines if "127.0.0.1:" in l) >= 3, "the site file lost its '# test:' markers"
    return "\n".join(lines)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    binary()
    root = tmp_path_factory.mktemp("nginx")
    cert, key = root / "cert.pem", root / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server = start_server(tmp_path_factory.mktemp("data"))
    http, https = free_port(), free_port()
    for sub in ("logs", "tmp"):
        (root / sub).mkdir()
    (root / "site.conf").write_text(site_for_test(server.port, http, https, cert, key))
    (root / "nginx.conf").write_text(f"""
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/logs/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {root}/logs/access.log;
    client_body_temp_path {root}/tmp/body;
    proxy_temp_path {root}/tmp/proxy;
    fastcgi_temp_path {root}/tmp/fastcgi;
    uwsgi_temp_path {root}/tmp/uwsgi;
    scgi_temp_path {root}/tmp/scgi;
    include {root}/site.conf;
}}
""")
    nginx = subprocess.Popen([nginx_binary(), "-p", str(root), "-c", str(root / "nginx.conf"), "-g", "daemon off;"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = False
    base = f"https://127.0.0.1:{https}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(base + "/healthz", context=context, timeout=5) as reply:
                assert reply.status == 200
                break
        except OSError:
            if nginx.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise RuntimeError("nginx did not come up:\n" + (root / "logs" / "error.log").read_text())
            time.sleep(0.2)
    yield {"base": base, "https": https, "http": http, "context": context, "cert": cert, "server": server}
    nginx.terminate()
    nginx.wait(timeout=10)
    server.stop()


class TLSClient:
    """A studio page's socket through nginx: wss, with the Origin a browser on that page would send."""

    def __init__(self, stack):
        # Entered as a context manager, as the websockets library asks (closed in `close`).
        self._connection = connect(f"wss://127.0.0.1:{stack['https']}/ws", ssl=stack["context"], compression=None,
                                   max_size=64 << 20, origin=stack["base"], open_timeout=20)
        self.socket = self._connection.__enter__()
        self.next_id = 0
        self.frames: list[tuple[dict, bytes]] = []

    def close(self) -> None:
        self._connection.__exit__(None, None, None)

    def ok(self, type_: str, **fields) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "type": type_, **fields}))
        while True:
            message = self.socket.recv(timeout=120)
            if isinstance(message, bytes):
                self.frames.append(decode_frame(message))
                continue
            decoded = json.loads(message)
            if decoded.get("type") == "reply" and decoded.get("id") == self.next_id:
                assert decoded["ok"], decoded
                return decoded["result"]

    def frame(self, cell: str, seq: int) -> bytes:
        while True:
            for header, payload in self.frames:
                if header["cell"] == cell and header["seq"] == seq and not header.get("coarse"):
                    return payload
            message = self.socket.recv(timeout=120)
            if isinstance(message, bytes):
                self.frames.append(decode_frame(message))


def test_http_redirects_to_https(stack):
    request = urllib.request.Request(f"http://127.0.0.1:{stack['http']}/")
    opener = urllib.request.build_opener(type("NoRedirect", (urllib.request.HTTPRedirectHandler,),
                                              {"redirect_request": lambda *a, **k: None}))
    with pytest.raises(urllib.error.HTTPError) as caught:
        opener.open(request, timeout=10)
    assert caught.value.code == 301
    assert caught.value.headers["Location"].startswith("https://")


def test_page_is_served_through_tls(stack):
    with urllib.request.urlopen(stack["base"] + "/", context=stack["context"], timeout=10) as reply:
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

    with urllib.request.urlopen(stack["base"] + saved["url"], context=stack["context"], timeout=10) as reply:
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
    run = subprocess.run([binary(), "loadtest", "--url", f"wss://127.0.0.1:{stack['https']}/ws",
                          "--origin", stack["base"], "--ca-file", str(stack["cert"]),
                          "--sessions", "3", "--changes", "20", "--rate", "20", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["sessions"] == 3 and result["changes"] == 60
    assert result["errors"] == 0
    assert result["frames"] >= 3, result  # every session got at least its final frame
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["max_ms"]
    print(json.dumps(result))
