"""Who may talk to the studio: host names it answers to (no DNS rebinding), and the optional access token, with
saved links that open read-only without it (in Chromium too)."""
from __future__ import annotations

import socket

import pytest
from selenium.webdriver.common.by import By

from page_support import wait_for
from test_server_support import PHOTOS_DIR, Client, get, start_server

TOKEN = "0123456789abcdef0123456789abcdef"
PHOTO = PHOTOS_DIR / "depthy__flowers-image.jpg"


def upgrade_status(port: int, host: str, origin: str | None = None, extra: dict[str, str] | None = None) -> tuple[int, bytes]:
    """Sends a WebSocket upgrade on /ws with exactly these headers; returns the status code and the answer."""
    headers = {"Host": host, "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    if origin:
        headers["Origin"] = origin
    headers.update(extra or {})
    request = "GET /ws HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request.encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
        # A refusal carries a body: read it to its Content-Length (an upgrade's 101 has none).
        head, _, body = answer.partition(b"\r\n\r\n")
        length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")[1:]
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            chunk = connection.recv(4096)
            if not chunk:
                break
            body += chunk
        answer = head + b"\r\n\r\n" + body
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0
    return status, answer


def http(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body or None)
        reply = connection.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("plain"))
    yield server
    server.stop()


def test_a_rebinding_page_is_refused(plain):
    port = plain.port
    status, answer = upgrade_status(port, f"evil.example:{port}", f"http://evil.example:{port}")
    assert status == 403, answer[:200]
    assert b"--allow-host evil.example" in answer
    status, _, body = http(port, "GET", "/", {"Host": f"evil.example:{port}"})
    assert status == 403 and b"--allow-host evil.example" in body
    status, _, _ = http(port, "GET", "/api/stats", {"Host": f"evil.example:{port}"})
    assert status == 403
    # A refused upload reads and drops its body, then answers.
    status, _, _ = http(port, "POST", "/api/upload", {"Host": f"evil.example:{port}"}, PHOTO.read_bytes())
    assert status == 403
    assert not list((plain.data_dir / "uploads").glob("*.jpg")), "nothing stored"


def test_loopback_names_are_answered(plain):
    port = plain.port
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}", "localhost"):
        status, _, _ = http(port, "GET", "/healthz", {"Host": host})
        assert status == 200, host
    assert upgrade_status(port, f"localhost:{port}", f"http://localhost:{port}")[0] == 101
    # Without a token configured everyone may edit, as before.
    client = Client(plain)
    assert client.ok("hello", protocol=1)["access"] == "full"
    client.close()


def test_a_name_the_operator_admits(tmp_path):
    server = start_server(tmp_path / "data", "--allow-host", "studio.example", "--allow-origin", "https://pages.example")
    try:
        port = server.port
        # --allow-origin: a page served elsewhere may open the socket; other origins may not.
        assert upgrade_status(port, f"127.0.0.1:{port}", "https://pages.example")[0] == 101
        assert upgrade_status(port, f"127.0.0.1:{port}", "https://other.example")[0] == 403
        assert http(port, "GET", "/healthz", {"Host": "studio.example"})[0] == 200
        assert http(port, "GET", "/healthz", {"Host": f"Studio.Example:{port}"})[0] == 200
        assert upgrade_status(port, "studio.example", "https://studio.example")[0] == 101
        assert http(port, "GET", "/healthz", {"Host": "other.example"})[0] == 403
    finally:
        server.stop()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("guarded"), "--token", TOKEN)
    yield server
    server.stop()


def test_the_printed_link_carries_the_token_and_the_log_nothing_else(guarded):
    printed = "".join(guarded.output)
    assert f"/?token={TOKEN}" in printed
    assert printed.count(TOKEN) == 1


def test_uploads_need_the_token(guarded):
    port, body = guarded.port, PHOTO.read_bytes()
    host = {"Host": f"127.0.0.1:{port}"}
    assert http(port, "POST", "/api/upload", host, body)[0] == 401
    assert http(port, "POST", "/api/upload", {**host, "Authorization": "Bearer wrong-token-wrong-token"}, body)[0] == 401
    assert http(port, "POST", "/api/upload", {**host, "Authorization": f"Bearer {TOKEN}"}, body)[0] == 200
    assert http(port, "POST", "/api/upload", {**host, "Cookie": f"depthbook_token={TOKEN}"}, body)[0] == 200
    # A link with the token sets the cookie and leaves the address bar clean.
    status, headers, _ = http(port, "GET", f"/n/depth-threshold?token={TOKEN}", host)
    assert status == 303 and headers["location"] == "/n/depth-threshold"
    assert f"depthbook_token={TOKEN}" in headers["set-cookie"] and "HttpOnly" in headers["set-cookie"]
    assert http(port, "GET", "/?token=not-the-token-at-all", host)[0] == 403


class BearerClient(Client):
    """A protocol client that presents the token the way tools do."""

    def __init__(self, server, token: str | None):
        from websockets.sync.client import connect
        from test_server_support import MAX_FRAME
        headers = {"Authorization": f"Bearer {token}"} if token else None
        self._connection = connect(server.ws, compression=None, max_size=MAX_FRAME, additional_headers=headers, open_timeout=20)
        self.socket = self._connection.__enter__()
        self.next_id = 0
        self.events, self.frames, self.replies = [], [], {}


def saved_notebook(server) -> str:
    """A notebook saved by an editor holding the token, with a changed slider; returns its id."""
    editor = BearerClient(server, TOKEN)
    assert editor.ok("hello", protocol=1)["access"] == "full"
    notebook = editor.ok("openNotebook", name="depth-threshold", timeout=120)["notebook"]
    cell = next(c["id"] for c in notebook["cells"] if c.get("effect") == "threshold")
    editor.ok("setParams", cell=cell, params={"percentile": 41}, seq=1)
    saved = editor.ok("save")["shared"]
    editor.close()
    return saved


def test_without_the_token_a_client_may_look_but_not_change(guarded):
    saved = saved_notebook(guarded)
    reader = BearerClient(guarded, None)
    hello = reader.ok("hello", protocol=1)
    assert hello["access"] == "read"
    opened = reader.ok("openNotebook", shared=saved, timeout=120)
    cell = next(c["id"] for c in opened["notebook"]["cells"] if c.get("effect") == "threshold")
    assert opened["notebook"]["cells"][[c["id"] for c in opened["notebook"]["cells"]].index(cell)]["params"]["percentile"] == 41
    reader.ok("preview", cell=cell, width=256, seq=1)
    header, payload = reader.wait_frame(cell, 1)
    assert header["width"] == 256 and payload[:2] == b"\xff\xd8"
    for type_, fields in [("setParams", {"cell": cell, "params": {"percentile": 10}, "seq": 2}), ("save", {}),
                          ("setNotebook", {"notebook": opened["notebook"]}), ("openPhoto", {"photo": {"sample": "portrait"}}),
                          ("export", {"cell": cell, "format": "png"})]:
        error = reader.request(type_, **fields)["error"]
        assert error["code"] == "forbidden" and "sign in" in error["message"], type_
    reader.close()


def test_a_saved_link_opens_read_only_in_chromium(guarded, browser_factory, artifacts_dir):
    saved = saved_notebook(guarded)
    browser = browser_factory()
    browser.get(f"{guarded.http}/n/{saved}")
    note = wait_for("the read-only note", lambda: browser.find_element(By.CSS_SELECTOR, ".read-only-note").is_displayed()
                    and browser.find_element(By.CSS_SELECTOR, ".read-only-note"))
    assert "sign in to edit or fork" in note.text
    wait_for("a rendered preview", lambda: browser.find_elements(By.CSS_SELECTOR, "db-preview[data-state=ready]"))
    sliders = browser.find_elements(By.CSS_SELECTOR, "db-param input[type=range]")
    assert sliders and all(not s.is_enabled() for s in sliders), "no slider can be moved"
    assert not browser.find_element(By.CSS_SELECTOR, "button.save-share").is_displayed()
    browser.save_screenshot(str(artifacts_dir / "access-read-only.png"))
    # The same browser with the token's link: signed in, the sliders move.
    browser.get(f"{guarded.http}/n/{saved}?token={TOKEN}")
    wait_for("the sliders to be enabled", lambda: (s := browser.find_elements(By.CSS_SELECTOR, "db-param input[type=range]"))
             and all(x.is_enabled() for x in s))
    assert "token" not in browser.current_url
    assert not browser.find_element(By.CSS_SELECTOR, ".read-only-note").is_displayed()


def test_the_load_test_presents_the_token(guarded):
    import json
    import subprocess
    from test_server_support import binary
    url = f"ws://127.0.0.1:{guarded.port}"
    signed = subprocess.run([binary(), "loadtest", "--url", url, "--sessions", "1", "--changes", "5", "--rate", "20",
                             "--width", "256", "--token", TOKEN, "--json"], capture_output=True, text=True, timeout=300)
    assert signed.returncode == 0, signed.stderr
    report = json.loads(signed.stdout)
    assert report["errors"] == 0 and report["frames"] >= 1
    anonymous = subprocess.run([binary(), "loadtest", "--url", url, "--sessions", "1", "--changes", "5", "--rate", "20",
                                "--width", "256", "--json"], capture_output=True, text=True, timeout=300)
    report = json.loads(anonymous.stdout)
    assert report["errors"] >= 1 and "sign in" in report["first_error"]
