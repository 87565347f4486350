"""The second round of hostile clients (issue 25) against a real `depthbook serve`: a pipelined request on one
connection, requests that cost work before authorisation, deep nests, and ids that could be guessed."""
from __future__ import annotations

import io
import json
import re
import socket
import struct
import time

import pytest
from PIL import Image

from test_server_hostile import peak_rss_mb, raw_websocket
from test_server_support import Client, cpu_seconds, start_server

TOKEN = "0123456789abcdef0123456789abcdef"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("hostile-two") / "data")
    yield running
    running.stop()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("hostile-two-guarded") / "data", "--token", TOKEN)
    yield running
    running.stop()


def small_jpeg() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 10, 10)).save(out, "JPEG")
    return out.getvalue()


def exchange(port: int, raw: bytes, seconds: float = 3) -> tuple[bytes, bool]:
    """Sends `raw` in one write and reads until the server closes or `seconds` of quiet: (bytes, closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as s:
        s.sendall(raw)
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
            return data, True
        except socket.timeout:
            return data, False


def wait_until_idle(pid: int, limit_s: float = 120) -> None:
    """Until a whole second passes with under 0.1 s of CPU (a fresh server first generates its samples)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(1)
        if cpu_seconds(pid) - before < 0.1:
            return
    raise AssertionError("the server never fell idle")


def statuses(data: bytes) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(rb"HTTP/1\.1 (\d{3}) ", data)]


def test_a_request_pipelined_behind_an_upload_does_not_wedge_http(server):
    wait_until_idle(server.process.pid)
    body = small_jpeg()
    host = f"Host: 127.0.0.1:{server.port}\r\n"
    raw = (f"POST /api/upload HTTP/1.1\r\n{host}Content-Type: image/jpeg\r\nContent-Length: {len(body)}\r\n\r\n").encode() \
        + body + f"GET /healthz HTTP/1.1\r\n{host}\r\n".encode()
    # 30 s of quiet bound a wedge, not a speed: on a loaded machine the answer took over 3 s.
    data, closed = exchange(server.port, raw, seconds=30)
    # One request, one answer: the upload is answered and the connection closed after it.
    assert statuses(data) == [200] and closed, data[:300]
    assert b'"upload"' in data
    started = time.monotonic()
    fresh, _ = exchange(server.port, f"GET /healthz HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode(), seconds=5)
    assert statuses(fresh) == [200] and time.monotonic() - started < 1
    # Nothing is left spinning (it once decoded the upload ~1,900 times in 6 s on both cores): idle again.
    wait_until_idle(server.process.pid, limit_s=10)


def test_pipelined_gets_are_answered_in_order(server):
    host = f"Host: 127.0.0.1:{server.port}\r\n"
    raw = "".join(f"GET {path} HTTP/1.1\r\n{host}\r\n" for path in ("/healthz", "/api/stats", "/healthz")).encode()
    data, _ = exchange(server.port, raw, seconds=2)
    answers = statuses(data)
    # Answered in order, or the connection closed after the first: never a wrong body for a request.
    assert answers in ([200], [200, 200], [200, 200, 200]), data[:500]
    if len(answers) > 1:
        second = data.split(b"HTTP/1.1 200")[2]
        assert b"application/json" in second and b"rssMb" in second
    assert exchange(server.port, f"GET /healthz HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode())[0].startswith(b"HTTP/1.1 200")


def nested(depth: int) -> str:
    """JSON text of objects and arrays `depth` pairs deep (written out: Python's encoder recurses)."""
    return '{"a":[' * depth + "1" + "]}" * depth


def test_a_deep_nest_is_refused_at_the_door(server):
    client = Client(server)
    client.ok("hello", protocol=1)
    notebook = client.ok("openNotebook", name="depth-threshold", timeout=120)["notebook"]
    plain = json.dumps({k: v for k, v in notebook.items() if k != "metadata"})
    deep = '{"id":900,"type":"setNotebook","notebook":' + plain[:-1] + ',"metadata":{"deep":' + nested(500) + "}}}"
    assert len(deep) < 30_000
    client.socket.send(deep)
    # Answered under its id, read from the top level without decoding the nest (it once came back as null).
    reply = client.reply(900)
    assert reply["error"]["code"] == "bad_request" and "nests" in reply["error"]["message"], reply
    # A nest within the limit is an ordinary notebook.
    shallow = json.loads(nested(10))
    assert client.ok("setNotebook", notebook=dict(notebook, metadata={"shallow": shallow}))["notebook"]["metadata"]["shallow"] == shallow
    client.close()


def test_without_the_token_an_edit_is_refused_before_its_body_is_read(guarded):
    client = Client(guarded)
    assert client.ok("hello", protocol=1)["access"] == "read"
    # Malformed bodies: a client that may not send these types is told so, not how its body is wrong.
    for type_, fields in (("setNotebook", {"notebook": 5}), ("setParams", {"cell": 7}), ("save", {"x": json.loads(nested(12))}),
                          ("export", {"cell": []}), ("openPhoto", {})):
        reply = client.request(type_, **fields)
        assert reply["error"]["code"] == "forbidden", (type_, reply)
    # Looking is still allowed, and its malformed requests are still explained.
    assert client.request("preview", cell=3)["error"]["code"] == "bad_request"
    client.close()


def test_share_ids_and_export_names_cannot_be_guessed(server):
    """The same content saved by two sessions gets two ids (each 128 random bits), so nobody finds another
    person's saved recipe by saving guesses; an export's name carries 128 random bits too."""
    ids = []
    for _ in range(2):
        client = Client(server)
        client.ok("hello", protocol=1)
        client.ok("openNotebook", name="depth-threshold", timeout=120)
        client.ok("setParams", cell="mask", params={"percentile": 40}, seq=1)
        saved = client.ok("save")["shared"]
        assert client.ok("save")["shared"] == saved, "saving unchanged again is the same version"
        ids.append(saved)
        client.close()
    assert ids[0] != ids[1] and all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
    client = Client(server)
    client.ok("hello", protocol=1)
    client.ok("openNotebook", name="depth-threshold", timeout=120)
    first = client.ok("export", cell="mask", format="png", timeout=300)["url"]
    again = client.ok("export", cell="mask", format="png", timeout=300)["url"]
    assert first != again
    assert re.fullmatch(r"/exports/depth-threshold-mask-[0-9a-f]{32}\.png", first), first
    client.close()


def test_uploads_need_one_content_length(server):
    host = f"Host: 127.0.0.1:{server.port}\r\n"
    chunked = f"POST /api/upload HTTP/1.1\r\n{host}Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".encode()
    data, _ = exchange(server.port, chunked)
    assert statuses(data) == [411], data[:200]
    body = small_jpeg()
    twice = (f"POST /api/upload HTTP/1.1\r\n{host}Content-Length: {len(body)}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    data, _ = exchange(server.port, twice)
    assert statuses(data) == [400] and b"one Content-Length" in data, data[:200]
    assert exchange(server.port, f"GET /healthz HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode())[0].startswith(b"HTTP/1.1 200")


def masked_text_frame(payload: bytes) -> bytes:
    """One masked text frame, of any length (a client's frames are masked)."""
    mask = b"\x01\x02\x03\x04"
    n = len(payload)
    if n < 126:
        header = bytes([0x81, 0x80 | n])
    elif n < 1 << 16:
        header = bytes([0x81, 0xFE]) + struct.pack(">H", n)
    else:
        header = bytes([0x81, 0xFF]) + struct.pack(">Q", n)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 1 << 16 else \
        (int.from_bytes(payload, "big") ^ int.from_bytes((mask * (n // 4 + 1))[:n], "big")).to_bytes(n, "big")
    return header + mask + masked


def test_text_messages_must_be_utf8_and_limits_count_bytes(server):
    raw = raw_websocket(server.port)
    raw.sendall(masked_text_frame(b'{"id":5,"type":"listSamples","x":"\xff\xfe"}'))
    raw.settimeout(10)
    reply = raw.recv(4096)
    assert b"UTF-8" in reply, reply
    raw.close()
    # 20,000 is a limit in bytes: 7,000 combining marks (14,001 bytes) pass, 10,000 (20,001 bytes) do not.
    client = Client(server)
    client.ok("hello", protocol=1)
    notebook = client.ok("openNotebook", name="depth-threshold", timeout=120)["notebook"]
    assert client.ok("setNotebook", notebook=dict(notebook, title="a" + "\u0301" * 7_000))
    refused = client.request("setNotebook", notebook=dict(notebook, title="a" + "\u0301" * 10_000))
    assert refused["error"]["code"] == "bad_request" and "bytes" in refused["error"]["message"], refused
    client.close()


def test_a_client_that_floods_requests_is_closed(server):
    """1,000 messages of 1 MiB sent without reading once queued a gigabyte: past 4 MiB waiting, the socket closes.
    A server that handles each message before the next has arrived never has 4 MiB waiting and rightly keeps the
    socket (about one run in twelve on a quiet machine): then it must have answered every message, and its peak
    memory over the flood (measured from a reset high-water mark) must show that nothing piled up."""
    raw = raw_websocket(server.port)
    frame = masked_text_frame(b'{"id":1,"type":"listSamples","pad":"' + b"x" * ((1 << 20) - 64) + b'"}')
    sent = 0
    closed = False
    replies = b""
    with open(f"/proc/{server.process.pid}/clear_refs", "w") as refs:
        refs.write("5")  # resets VmHWM to the resident size now
    before = peak_rss_mb(server)
    raw.settimeout(10)
    try:
        for _ in range(64):
            raw.sendall(frame)
            sent += 1
        while chunk := raw.recv(65536):  # replies, then the close; a timeout here means it stayed open
            replies += chunk
        closed = True
    except socket.timeout:
        closed = False
    except OSError:  # reset or broken pipe: closed by the server
        closed = True
    raw.close()
    if not closed:
        answered = replies.count(b'"id":1')
        grew = peak_rss_mb(server) - before
        assert answered == sent and grew < 32, f"still open after {sent} MiB, {answered} answered, peak +{grew:.0f} MiB"
    still = Client(server)
    assert still.ok("hello", protocol=1)["session"]
    still.close()


def test_a_wrong_token_in_a_link_is_refused_beside_a_valid_cookie(guarded):
    host = f"Host: 127.0.0.1:{guarded.port}\r\n"
    raw = f"GET /?token=WRONG-WRONG HTTP/1.1\r\n{host}Cookie: depthbook_token={TOKEN}\r\nConnection: close\r\n\r\n".encode()
    data, _ = exchange(guarded.port, raw)
    assert statuses(data) == [403] and b"set-cookie" not in data.lower(), data[:300]
    good = f"GET /?token={TOKEN} HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode()
    data, _ = exchange(guarded.port, good)
    assert statuses(data) == [303] and f"depthbook_token={TOKEN}".encode() in data
