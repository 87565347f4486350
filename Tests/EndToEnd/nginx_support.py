"""The repository's nginx site (deploy/nginx/depthbook.conf) run for real by Debian's nginx on loopback, with a
throwaway certificate, in front of one or more `depthbook serve` processes.

Only the lines the site file marks `# test:` are rewritten (ports, upstream servers and certificate paths);
everything else (the WebSocket upgrade, timeouts, body size, limits, affinity) is the deployed configuration.
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
from dataclasses import dataclass
from pathlib import Path

import pytest
from websockets.sync.client import connect

from test_server_support import REPO_ROOT, decode_frame

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


def site_for_test(upstreams: list[int], http: int, https: int, cert: Path, key: Path) -> str:
    rewrites = {
        "upstream": "\n".join(f"    server 127.0.0.1:{port};" for port in upstreams),
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


@dataclass
class Nginx:
    process: subprocess.Popen
    root: Path
    base: str
    https: int
    http: int
    cert: Path
    context: ssl.SSLContext

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_nginx(root: Path, upstreams: list[int]) -> Nginx:
    """nginx serving the site over TLS on free ports in front of `upstreams`; waits for /healthz through it."""
    cert, key = root / "cert.pem", root / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    http, https = free_port(), free_port()
    for sub in ("logs", "tmp"):
        (root / sub).mkdir(exist_ok=True)
    (root / "site.conf").write_text(site_for_test(upstreams, http, https, cert, key))
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
    process = subprocess.Popen([nginx_binary(), "-p", str(root), "-c", str(root / "nginx.conf"), "-g", "daemon off;"],
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
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("nginx did not come up:\n" + (root / "logs" / "error.log").read_text())
            time.sleep(0.2)
    return Nginx(process, root, base, https, http, cert, context)


class TLSClient:
    """A studio page's socket through nginx: wss, with the Origin a browser on that page would send."""

    def __init__(self, nginx: Nginx):
        # Entered as a context manager, as the websockets library asks (closed in `close`). One handshake in
        # the whole suite once waited 20 s for nginx to answer on a loaded box (never reproduced in 150 tries
        # alone): a second attempt tells a lost handshake from a refused one, which fails at once either way.
        for attempt in range(2):
            try:
                self._connection = connect(f"wss://127.0.0.1:{nginx.https}/ws", ssl=nginx.context, compression=None,
                                           max_size=64 << 20, origin=nginx.base, open_timeout=20)
                break
            except TimeoutError:
                if attempt == 1:
                    raise
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
