"""Issue 25's last items against a real `depthbook serve`: upload bodies wait on disk (not in memory) while they
arrive, oversized request headers are answered 431, and a database that stops answering holds up only the save
that is waiting for it, not the requests behind it on the same socket."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from postgres_support import Postgres
from test_server_hostile_round_two import TOKEN, exchange, small_jpeg, statuses, wait_until_idle
from test_server_support import Client, post, start_server


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("uploads-and-store") / "data"


@pytest.fixture(scope="module")
def server(data_dir):
    running = start_server(data_dir)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    data = tmp_path_factory.mktemp("uploads-guarded") / "data"
    running = start_server(data, "--token", TOKEN)
    yield running, data
    running.stop()


def rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def spooled(data: Path) -> list[Path]:
    return sorted((data / "incoming").glob("*.part"))


def wait_for(predicate, what: str, seconds: float = 5) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s: {what}")
        time.sleep(0.05)


def start_upload(port: int, announced: int, extra_headers: str = "") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall((f"POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: image/jpeg\r\n"
               f"{extra_headers}Content-Length: {announced}\r\n\r\n").encode())
    return s


def test_an_upload_on_its_way_in_is_on_disk_and_gone_when_its_client_leaves(server, data_dir):
    announced = 48 << 20
    sent = 40 << 20
    wait_until_idle(server.process.pid)  # a fresh server first makes its samples
    before = rss_mb(server.process.pid)
    s = start_upload(server.port, announced)
    chunk = b"\xff" * (1 << 20)
    for _ in range(sent >> 20):
        s.sendall(chunk)
    # Everything sent so far is in the spool file; the server's memory did not take it.
    wait_for(lambda: spooled(data_dir) and spooled(data_dir)[0].stat().st_size == sent, "40 MiB spooled")
    grown = rss_mb(server.process.pid) - before
    # A body held in memory would grow RSS by all of it; the bound is half of it, so a busy machine's noise
    # (25 MiB once beside other work) does not read as the body kept.
    assert grown < (sent >> 20) / 2, f"RSS grew {grown:.1f} MiB while {sent >> 20} MiB of body waited"
    assert oct(spooled(data_dir)[0].stat().st_mode & 0o777) == "0o600"
    # The client gives up mid-body: its file goes with it.
    s.close()
    wait_for(lambda: not spooled(data_dir), "the spool file removed after the client left")


def test_a_complete_upload_is_answered_and_leaves_no_spool_file(server, data_dir):
    status, reply = post(server, "/api/upload", small_jpeg())
    assert status == 200 and "upload" in reply, reply
    assert not spooled(data_dir)


def test_an_oversized_upload_is_refused_without_keeping_its_body(server, data_dir):
    announced = (64 << 20) + 1  # one byte over the default upload limit
    s = start_upload(server.port, announced)
    chunk = b"\x00" * (1 << 20)
    for _ in range(announced >> 20):
        s.sendall(chunk)
        assert not spooled(data_dir)
    s.sendall(b"\x00")
    data = b""
    while piece := s.recv(65536):
        data += piece
    s.close()
    assert statuses(data) == [413], data[:200]
    assert not spooled(data_dir)


def test_an_upload_without_the_token_is_refused_without_keeping_its_body(guarded):
    server, data = guarded
    body = small_jpeg()
    s = start_upload(server.port, len(body) + (8 << 20))
    s.sendall(b"\x00" * (8 << 20))
    time.sleep(0.3)
    # Read and dropped: nothing of it reaches the disk.
    assert not spooled(data)
    s.sendall(body)
    reply = b""
    while piece := s.recv(65536):
        reply += piece
    s.close()
    assert statuses(reply) in ([401], [403]), reply[:200]


def test_request_headers_over_the_limit_are_answered_431(server):
    host = f"Host: 127.0.0.1:{server.port}\r\n"
    fits, _ = exchange(server.port, f"GET /healthz HTTP/1.1\r\n{host}Cookie: a={'x' * 12_000}\r\nConnection: close\r\n\r\n".encode())
    assert statuses(fits) == [200], fits[:200]
    big, closed = exchange(server.port, f"GET /healthz HTTP/1.1\r\n{host}Cookie: a={'x' * 20_000}\r\n\r\n".encode())
    assert statuses(big) == [431] and closed, big[:200]
    assert b"16384" in big
    # The same for an upload: its body is drained, then the refusal.
    body = small_jpeg()
    raw = (f"POST /api/upload HTTP/1.1\r\n{host}Referer: http://x/{'r' * 20_000}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    refused, _ = exchange(server.port, raw)
    assert statuses(refused) == [431], refused[:200]
    # Past lws's own buffer (48 KiB) the connection is closed without an answer, and the server goes on.
    gone, closed = exchange(server.port, f"GET /healthz HTTP/1.1\r\n{host}Cookie: a={'x' * 60_000}\r\n\r\n".encode())
    assert statuses(gone) == [] and closed
    again, _ = exchange(server.port, f"GET /healthz HTTP/1.1\r\n{host}Connection: close\r\n\r\n".encode())
    assert statuses(again) == [200]


def postgres_pids(database: Postgres) -> list[int]:
    found = subprocess.run(["pgrep", "-f", "--", f"{database.root}/data"], capture_output=True, text=True).stdout.split()
    # The postmaster and its backends (their command lines name the cluster only through the postmaster: take its
    # children too).
    pids = [int(p) for p in found]
    children = subprocess.run(["pgrep", "-P", ",".join(map(str, pids))], capture_output=True, text=True).stdout.split() if pids else []
    return sorted(set(pids + [int(c) for c in children]))


def test_a_stalled_database_holds_up_only_the_save_waiting_for_it(tmp_path):
    database = Postgres()
    server = start_server(tmp_path / "data", "--store", database.url)
    client = Client(server)
    stopped: list[int] = []
    try:
        client.ok("hello", protocol=1)
        client.ok("openNotebook", name="depth-threshold")
        first = client.ok("save")
        assert first["url"].startswith("/n/")
        # Another notebook, not saved yet, open before the database stops answering (frozen, so its connections
        # hang rather than fail).
        assert client.ok("openNotebook", name="darken")
        stopped = postgres_pids(database)
        assert stopped, "no PostgreSQL processes found"
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        started = time.monotonic()
        save_id = client.send("save")
        list_id = client.send("listNotebooks")
        listed = client.reply(list_id, timeout=10)
        listed_after = time.monotonic() - started
        assert listed["ok"] and listed_after < 1.0, f"listNotebooks behind a stalled save took {listed_after:.2f} s"
        saved = client.reply(save_id, timeout=15)
        saved_after = time.monotonic() - started
        assert not saved["ok"] and saved_after < 5, (saved, saved_after)
        # Once the database answers again, the saved link opens again within a few tries (one a second may
        # reach the database while it is taken to be down; a fixed 10 s of refusals once followed).
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        stopped = []
        returned = time.monotonic()
        while True:
            opened = client.request("openNotebook", shared=first["shared"], timeout=15)
            if opened["ok"] or time.monotonic() - returned > 30:
                break
            time.sleep(0.2)
        reopened_after = time.monotonic() - returned
        assert opened["ok"], opened
        assert reopened_after < 6, f"the saved link opened {reopened_after:.1f} s after PostgreSQL returned"
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        client.close()
        server.stop()
        database.stop()
