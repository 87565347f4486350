"""Hostile and malformed clients against a real `depthbook serve`: one regression test per class that once
stopped the server (integer overflow, recursion, lengths trusted from files), refused requests that must
change nothing, and a seeded fuzz of protocol messages after which the server still answers."""
from __future__ import annotations

import base64
import json
import random
import struct
import zlib

import pytest

from test_server_support import PHOTOS_DIR, Client, post, start_server

INT64_MAX = 2**63 - 1


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("hostile") / "data")
    yield running
    running.stop()


def opened(server) -> tuple[Client, dict]:
    client = Client(server)
    client.ok("hello", protocol=1)
    notebook = client.ok("openNotebook", name="depth-threshold", timeout=120)["notebook"]
    return client, notebook


def peak_rss_mb(server) -> float:
    """The server's high-water mark of resident memory (VmHWM), in MiB."""
    status = open(f"/proc/{server.process.pid}/status").read()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) / 1024


def still_answers(server) -> None:
    assert server.alive(), "the server process ended"
    client = Client(server)
    assert client.ok("hello", protocol=1)["session"]
    assert client.ok("listNotebooks")["notebooks"]
    client.close()


# Integer overflow


def test_huge_crop_coordinates_are_refused(server):
    client, _ = opened(server)
    for x, y in ((INT64_MAX, 0), (0, INT64_MAX), (65_537, 0), (2**53, 2**53)):
        reply = client.request("crop", cell="photo", x=x, y=y, w=1, h=1, seq=1)
        assert reply["error"]["code"] == "bad_request", reply
    reply = client.request("crop", cell="photo", x=65_536, y=0, w=1, h=1, seq=1)
    assert reply["error"]["code"] == "bad_request" and "inside" in reply["error"]["message"]
    client.close()
    still_answers(server)


def test_a_huge_sequence_number_is_refused_and_nothing_traps_later(server):
    client, _ = opened(server)
    reply = client.request("preview", cell="photo", width=128, seq=INT64_MAX)
    assert reply["error"]["code"] == "bad_request" and "seq" in reply["error"]["message"]
    # The largest accepted one, then what used to trap on `newestSeq + 1`: opening again resets every slot.
    top = 2**53 - 1
    client.ok("preview", cell="photo", width=128, seq=top)
    client.wait_frame("photo", top)
    client.ok("openNotebook", name="depth-threshold", timeout=120)
    client.close()
    still_answers(server)


def test_numbers_in_requests_out_of_range(server):
    client, _ = opened(server)
    for type_, fields in [
        ("preview", {"cell": "photo", "width": 2**62, "seq": 1}),
        ("preview", {"cell": "photo", "width": -5, "seq": 1}),
        ("histogram", {"cell": "photo.disparity", "bins": 2**40}),
        ("export", {"cell": "photo", "format": "gif", "frames": 2**40}),
        ("export", {"cell": "photo", "format": "gif", "width": 2**31}),
        ("preview", {"cell": "photo", "width": 1e300, "seq": 1}),
        ("preview", {"cell": "photo", "width": 128, "seq": -1}),
    ]:
        assert client.request(type_, **fields)["error"]["code"] in ("bad_request", "too_large"), (type_, fields)
    client.close()
    still_answers(server)


# Recursion and size at the door


def chain(notebook: dict, length: int) -> dict:
    cells = [c for c in notebook["cells"] if c["id"] in ("photo", "mask")]
    previous = "mask"
    for i in range(length):
        cells.append({"id": f"c{i}", "kind": "step", "effect": "closing", "inputs": {"mask": previous}, "params": {}})
        previous = f"c{i}"
    return dict(notebook, cells=cells)


def test_a_ten_thousand_step_chain_is_refused_at_the_door(server):
    client, notebook = opened(server)
    long_chain = chain(notebook, 10_000)
    assert len(json.dumps(long_chain)) < (1 << 20)
    reply = client.request("setNotebook", notebook=long_chain)
    assert reply["error"]["code"] == "bad_request" and "at most 200 cells" in reply["error"]["message"]
    reply = client.request("preview", cell="c9999", width=128, seq=1)
    assert reply["error"]["code"] == "not_found", "the refused notebook did not replace the open one"
    # Within the cell limit but past the chain limit.
    reply = client.request("setNotebook", notebook=chain(notebook, 100))
    assert reply["error"]["code"] == "bad_request" and "chain" in reply["error"]["message"]
    client.close()
    still_answers(server)


def test_the_longest_accepted_chain_renders(server):
    client, notebook = opened(server)
    longest = chain(notebook, 62)  # mask + 62 closings + the photo: a chain of 64 cells
    client.ok("setNotebook", notebook=longest)
    client.ok("preview", cell="c61", width=128, seq=1)
    header, payload = client.wait_frame("c61", 1)
    assert header["width"] == 128 and payload[:2] == b"\xff\xd8"
    client.close()
    still_answers(server)


# Refused requests change nothing


def test_a_refused_set_notebook_leaves_the_session_as_it_was(server):
    client, notebook = opened(server)
    by_path = dict(notebook, photo={"path": "/etc/passwd"}, title="Replaced")
    assert client.request("setNotebook", notebook=by_path)["error"]["code"] == "forbidden"
    bad_param = json.loads(json.dumps(notebook))
    mask = next(c for c in bad_param["cells"] if c["id"] == "mask")
    mask["params"]["percentile"] = 1000
    reply = client.request("setNotebook", notebook=dict(bad_param, title="Replaced"))
    assert reply["error"]["code"] == "bad_request" and "percentile" in reply["error"]["message"]
    saved = client.ok("save")
    other = Client(server)
    other.ok("hello", protocol=1)
    reopened = other.ok("openNotebook", shared=saved["shared"], timeout=120)["notebook"]
    assert reopened["title"] == notebook["title"] and reopened["photo"] == notebook["photo"]
    client.close()
    other.close()


def test_set_params_is_checked_against_the_catalog_before_it_is_merged(server):
    client, notebook = opened(server)
    original = next(c for c in notebook["cells"] if c["id"] == "mask")["params"]
    for params, words in [({"percentile": 1000}, ["percentile", "between"]), ({"sparkle": 1}, ["sparkle"]),
                          ({"percentile": "lots"}, ["percentile", "number"])]:
        reply = client.request("setParams", cell="mask", params=params, seq=1)
        assert reply["error"]["code"] == "bad_request", reply
        assert all(word in reply["error"]["message"] for word in words), reply["error"]["message"]
    saved = client.ok("save")
    other = Client(server)
    other.ok("hello", protocol=1)
    kept = next(c for c in other.ok("openNotebook", shared=saved["shared"], timeout=120)["notebook"]["cells"] if c["id"] == "mask")
    assert kept["params"] == original, "nothing refused was merged or saved"
    client.close()
    other.close()


# Lengths and sizes trusted from files


def jpeg_with_extended_xmp(declared: int) -> bytes:
    """A real JPEG with a main XMP naming extended XMP, and one extended chunk declaring `declared` bytes."""
    photo = (PHOTOS_DIR / "depthy__flowers-image.jpg").read_bytes()
    guid = "0123456789ABCDEF0123456789ABCDEF"
    main = (f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmpNote:HasExtendedXMP="{guid}"/>'
            f'</rdf:RDF></x:xmpmeta>').encode()
    main_segment = b"http://ns.adobe.com/xap/1.0/\x00" + main
    chunk = b"http://ns.adobe.com/xmp/extension/\x00" + guid.encode() + struct.pack(">II", declared, 0) + b"<x/>" * 100
    segments = b""
    for payload in (main_segment, chunk):
        segments += b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    return photo[:2] + segments + photo[2:]


def png_bomb(width: int, height: int) -> bytes:
    """A 16-bit grey PNG of `width` × `height` zeros: a few hundred KB that would decode to gigabytes."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    compressor = zlib.compressobj(9)
    row = b"\x00" * (1 + width * 2)
    body = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 0, 0, 0, 0))
            + chunk(b"IDAT", body) + chunk(b"IEND", b""))


def test_a_declared_four_gigabyte_extended_xmp_is_refused_without_allocating_it(server, depthbook_bin, tmp_path):
    import subprocess
    bomb = jpeg_with_extended_xmp(0xFFFFFFFF)
    status, reply = post(server, "/api/upload", bomb)
    assert status == 400 and "extended XMP" in reply["error"]["message"], reply
    path = tmp_path / "bomb.jpg"
    path.write_bytes(bomb)
    done = subprocess.run(["/usr/bin/time", "-f", "%M", depthbook_bin, "inspect", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "extended XMP" in done.stderr
    assert int(done.stderr.strip().splitlines()[-1]) < 300_000, "inspect stayed far below the declared size (KiB)"
    assert peak_rss_mb(server) < 1000
    still_answers(server)


def test_decompression_bombs_are_refused_naming_the_limit(server):
    image = png_bomb(10_000, 10_000)
    assert len(image) < 1_000_000
    status, reply = post(server, "/api/upload", image)
    assert status == 400 and "megapixels" in reply["error"]["message"], reply
    # The same PNG as a GDepth depth map inside a small JPEG.
    photo = (PHOTOS_DIR / "depthy__flowers-image.jpg").read_bytes()
    depth = base64.b64encode(image).decode()
    xmp = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           '<rdf:Description xmlns:GDepth="http://ns.google.com/photos/1.0/depthmap/" GDepth:Format="RangeInverse" '
           f'GDepth:Near="1" GDepth:Far="10" GDepth:Mime="image/png" GDepth:Data="{depth}"/></rdf:RDF></x:xmpmeta>')
    guid = "FEDCBA9876543210FEDCBA9876543210"
    main = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description xmlns:xmpNote="http://ns.adobe.com/xmp/note/" xmpNote:HasExtendedXMP="{guid}"/></rdf:RDF></x:xmpmeta>')
    data = xmp.encode()
    segments = b"\xff\xe1" + struct.pack(">H", len(main) + 31) + b"http://ns.adobe.com/xap/1.0/\x00" + main.encode()
    for offset in range(0, len(data), 65_000):
        piece = data[offset:offset + 65_000]
        payload = b"http://ns.adobe.com/xmp/extension/\x00" + guid.encode() + struct.pack(">II", len(data), offset) + piece
        segments += b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    status, reply = post(server, "/api/upload", photo[:2] + segments + photo[2:])
    assert status == 400 and "depth map" in reply["error"]["message"] and "megapixels" in reply["error"]["message"], reply
    assert peak_rss_mb(server) < 1000
    still_answers(server)


# Headers


def test_a_twelve_kilobyte_cookie_is_answered(server):
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("GET", "/healthz", headers={"Cookie": "big=" + "x" * 12_000})
    reply = connection.getresponse()
    assert reply.status == 200 and reply.read() == b"ok"
    connection.close()


# Fuzz


VALID = [
    {"type": "listNotebooks"}, {"type": "listSamples"}, {"type": "effects"},
    {"type": "preview", "cell": "mask", "width": 160, "seq": 5},
    {"type": "setParams", "cell": "mask", "params": {"percentile": 40}, "seq": 6, "interactive": True},
    {"type": "crop", "cell": "result", "x": 10, "y": 10, "w": 32, "h": 32, "seq": 7},
    {"type": "histogram", "cell": "photo.disparity", "bins": 16},
    {"type": "openPhoto", "photo": {"sample": "portrait"}},
    {"type": "save"},
]
ODD_VALUES = [None, True, -1, 0, 2**63 - 1, -2**63, 2**64, 1e308, -1e308, 0.5, "", "x" * 300, "mask", "photo.disparity",
              [], {}, [1, [2, [3]]], {"sample": "nope"}, {"upload": "0" * 64}, {"path": "/etc/passwd"}, "../../etc"]


def mutate(rng: random.Random, message: dict) -> dict | str | bytes:
    choice = rng.random()
    if choice < 0.1:
        raw = json.dumps(message).encode()
        cut = rng.randrange(len(raw))
        return raw[:cut] + bytes([rng.randrange(256)]) + raw[cut + 1:]
    mutated = json.loads(json.dumps(message))
    for _ in range(rng.randint(1, 3)):
        keys = list(mutated.keys())
        action = rng.random()
        if action < 0.5 and keys:
            mutated[rng.choice(keys)] = rng.choice(ODD_VALUES)
        elif action < 0.7 and keys:
            mutated.pop(rng.choice(keys))
        elif action < 0.85:
            mutated[rng.choice(["cell", "params", "seq", "width", "x", "w", "bins", "notebook", "photo", "frames"])] = rng.choice(ODD_VALUES)
        else:
            mutated["type"] = rng.choice(["hello", "setNotebook", "export", "openNotebook", "bogus", "", "crop"])
    return mutated


@pytest.mark.timeout(420)
def test_seeded_fuzz_of_protocol_messages(server):
    rng = random.Random(20261123)
    client, _ = opened(server)
    for _ in range(1500):
        message = mutate(rng, rng.choice(VALID))
        if isinstance(message, dict):
            client.next_id += 1
            request_id = client.next_id
            client.socket.send(json.dumps({**message, "id": request_id}))
            reply = client.reply(request_id, timeout=120)
            assert reply["type"] == "reply" and "ok" in reply
        else:
            client.socket.send(message)
            reply = client.reply(None, timeout=120)
            assert reply["ok"] is False
    # The fuzzed connection still answers in order, and so does a new one: the server is alive and serving.
    assert client.ok("listNotebooks")["notebooks"]
    still_answers(server)
    client.settle()
    assert all(not replies for replies in client.replies.values()), "every request got exactly one reply"
    client.close()
    still_answers(server)


# Memory: a client that never reads, one export at a time, the budget reported


def raw_websocket(port: int):
    """A WebSocket opened by hand on a plain socket, so the test decides when (never) to read."""
    import socket
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += connection.recv(1)
    assert b" 101 " in answer.split(b"\r\n")[0], answer
    return connection


def masked_text(payload: bytes) -> bytes:
    mask = b"\x01\x02\x03\x04"
    length = len(payload)
    header = b"\x81" + (bytes([0x80 | length]) if length < 126 else b"\xfe" + struct.pack(">H", length))
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_watcher_that_never_reads_is_cut_off(tmp_path):
    """Output the server makes without being asked on that socket (a watcher is told of every edit) must not
    pile up for a page that stopped reading: past the outbox bound the watcher is closed. The smallest budget
    (256 MiB) makes the bound 8 MiB."""
    import socket
    server = start_server(tmp_path / "data", "--memory-budget-mb", "256")
    try:
        watcher_cut_off(server, socket)
    finally:
        server.stop()


def watcher_cut_off(server, socket) -> None:
    editor = Client(server)
    session = editor.ok("hello", protocol=1)["session"]
    notebook = editor.ok("openNotebook", name="depth-threshold", timeout=120)["notebook"]
    watcher = raw_websocket(server.port)
    watcher.sendall(masked_text(json.dumps({"id": 1, "type": "hello", "protocol": 1, "watch": session}).encode()))
    before = peak_rss_mb(server)
    # Every replaced notebook is sent to the watcher whole (~5 KB): 6000 of them are past the bound. (A slider
    # move's notebook state replaces the unsent one before it, so setParams alone no longer piles up.)
    for start in range(0, 6000, 500):
        ids = [editor.send("setNotebook", notebook=dict(notebook, title=f"Edit {start + i}")) for i in range(500)]
        for request_id in ids:
            assert editor.reply(request_id, timeout=120)["ok"]
    still_answers(server)
    assert peak_rss_mb(server) - before < 300, "what the watcher did not read was not kept"
    # The watcher's socket: what the server wrote before cutting it off, then the end.
    watcher.settimeout(30)
    received, ended = 0, False
    try:
        while chunk := watcher.recv(1 << 20):
            received += len(chunk)
        ended = True
    except ConnectionResetError:
        ended = True
    except socket.timeout:
        pass
    assert ended, f"the watcher that did not read was closed (read {received} bytes, then nothing)"
    assert received < 6000 * 2_500, "it was not sent everything"
    watcher.close()
    editor.close()


def test_one_export_at_a_time_per_session(server):
    client, _ = opened(server)
    first = client.send("export", cell="result", format="jpeg")
    second = client.request("export", cell="result", format="png")
    assert second["error"]["code"] == "bad_request" and "already running" in second["error"]["message"]
    assert client.reply(first, timeout=300)["ok"]
    assert client.ok("export", cell="mask", format="png", timeout=300)["url"].endswith(".png"), "free again once done"
    client.close()


def test_stats_report_the_budget(server):
    import urllib.request
    with urllib.request.urlopen(f"{server.http}/api/stats", timeout=30) as reply:
        stats = json.loads(reply.read())
    assert stats["budgetMb"] == 1024 and stats["rssMb"] > 0 and stats["photosMb"] >= 0 and stats["cachesMb"] >= 0
