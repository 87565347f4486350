"""Helpers for the server's end-to-end tests: start a real `depthbook serve` (the binary in DEPTHBOOK_BIN) on
a port the system picks, with its own data directory, and talk to it over real HTTP and WebSocket clients.

This module holds no tests; the test_server_*.py modules import it.
"""
from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import subprocess
import urllib.request
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from websockets.sync.client import connect

REPO_ROOT = Path(__file__).resolve().parents[2]
PHOTOS_DIR = REPO_ROOT.parent / "shared" / "photos"
START_TIMEOUT_S = 60
MAX_FRAME = 64 * 1024 * 1024


def binary() -> str:
    path = os.environ.get("DEPTHBOOK_BIN")
    if not path:
        message = "DEPTHBOOK_BIN is not set (scripts/test.sh sets it to the release build)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(message)  # under CI nothing may quietly skip
        pytest.skip(message)
    return path


def stop_process(process: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM, then SIGKILL if it has not ended within `timeout` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    data_dir: Path
    output: list[str] = field(default_factory=list)

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def stop(self) -> None:
        stop_process(self.process)

    def alive(self) -> bool:
        return self.process.poll() is None


def start_server(data_dir: Path, *extra: str, public: Path | None = None, notebooks: Path | None = None,
                 cwd: Path = REPO_ROOT, find_assets: bool = False) -> Server:
    """Starts `depthbook serve --port 0` and reads the URL it prints to learn its port. `find_assets` leaves
    --public and --notebooks out, so the server finds them itself."""
    args = [binary(), "serve", "--port", "0", "--data", str(data_dir)]
    if not find_assets:
        args += ["--public", str(public or REPO_ROOT / "Public"), "--notebooks", str(notebooks or REPO_ROOT / "Notebooks")]
    args += extra
    process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    port: list[int] = []
    found = threading.Event()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match and not port:
                port.append(int(match.group(1)))
                found.set()
        found.set()

    threading.Thread(target=pump, daemon=True).start()
    if not found.wait(START_TIMEOUT_S) or not port:
        process.kill()
        raise RuntimeError("depthbook serve did not print its URL:\n" + "".join(lines))
    return Server(process, port[0], data_dir, lines)


def get(server: Server, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """A GET with the path sent exactly as given (no client-side normalisation of `..`)."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.putrequest("GET", path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        connection.endheaders()
        reply = connection.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        connection.close()


def post(server: Server, path: str, body: bytes) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": "application/octet-stream"})
        reply = connection.getresponse()
        data = reply.read()
        try:
            return reply.status, json.loads(data)
        except ValueError:
            return reply.status, {"raw": data.decode(errors="replace")}
    finally:
        connection.close()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_frame(data: bytes) -> tuple[dict, bytes]:
    n = int.from_bytes(data[:4], "big")
    return json.loads(data[4:4 + n]), data[4 + n:]


class Client:
    """One page's socket: numbered requests, replies matched by id, events and frames kept in order."""

    def __init__(self, server: Server, origin: str | None = None):
        self._connection = connect(server.ws, compression=None, max_size=MAX_FRAME, origin=origin, open_timeout=20)
        self.socket = self._connection.__enter__()
        self.next_id = 0
        self.events: list[dict] = []
        self.frames: list[tuple[dict, bytes]] = []
        self.replies: dict[int | None, list[dict]] = {}

    def close(self) -> None:
        self._connection.__exit__(None, None, None)

    def send(self, type_: str, **fields) -> int:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "type": type_, **fields}))
        return self.next_id

    def receive_one(self, timeout: float) -> None:
        message = self.socket.recv(timeout=timeout)
        if isinstance(message, bytes):
            self.frames.append(decode_frame(message))
            return
        decoded = json.loads(message)
        if decoded.get("type") == "reply":
            self.replies.setdefault(decoded.get("id"), []).append(decoded)
        else:
            self.events.append(decoded)

    def reply(self, request_id: int | None, timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while not self.replies.get(request_id):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no reply to request {request_id}")
            self.receive_one(remaining)
        return self.replies[request_id].pop(0)

    def request(self, type_: str, timeout: float = 60, **fields) -> dict:
        return self.reply(self.send(type_, **fields), timeout)

    def ok(self, type_: str, timeout: float = 60, **fields) -> dict:
        reply = self.request(type_, timeout, **fields)
        assert reply["ok"], reply
        return reply["result"]

    def raw(self, message: str | bytes, timeout: float = 30) -> dict:
        """Sends anything and returns the error reply that has `"id": null`."""
        self.socket.send(message)
        return self.reply(None, timeout)

    def wait_event(self, predicate, what: str, timeout: float = 60) -> dict:
        """The first event (kept or arriving) for which `predicate` holds; fails naming `what` after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if predicate(event):
                    return event
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no event: {what}")
            self.receive_one(remaining)

    def settle(self, timeout: float = 60) -> None:
        """Reads everything the server sent before answering one more request: replies on a connection come
        in order, so whatever was already on its way has arrived when this request's reply does."""
        self.ok("listNotebooks", timeout=timeout)

    def wait_frame(self, cell: str, seq: int, timeout: float = 120, coarse: bool | None = None) -> tuple[dict, bytes]:
        deadline = time.monotonic() + timeout
        while True:
            for header, payload in self.frames:
                if header["cell"] == cell and header["seq"] == seq and (coarse is None or header["coarse"] == coarse):
                    return header, payload
            errors = [e for e in self.events if e.get("event") == "cellError" and e.get("cell") == cell and e.get("seq") == seq]
            if errors:
                raise AssertionError(f"render failed: {errors[0]}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no frame for {cell} seq {seq}")
            self.receive_one(remaining)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU the process has used (/proc/PID/stat), in seconds."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_notebook(directory: Path, name: str = "depth-threshold", sample: str = "portrait") -> dict:
    """A small notebook over a bundled sample, for tests that must not depend on Notebooks/ contents."""
    notebook = {
        "format": "depthbook.notebook", "version": 1, "name": name, "title": "Test " + name,
        "description": "written by the server tests", "photo": {"sample": sample},
        "cells": [
            {"id": "intro", "kind": "note", "text": "hello"},
            {"id": "photo", "kind": "photo"},
            {"id": "disparity", "kind": "view", "input": "photo.disparity", "histogram": True},
        ],
        "metadata": {},
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{name}.json").write_text(json.dumps(notebook))
    return notebook


def depth_threshold_export(server: Server, percentile: float) -> bytes:
    """A full-resolution JPEG export of the depth-threshold notebook's result with its cut moved to keep
    `percentile` %: a Depthbook file carrying that recipe, made as another page would."""
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        opened = client.ok("openNotebook", name="depth-threshold")
        mask = next(c for c in opened["notebook"]["cells"] if c.get("effect") == "threshold")
        client.ok("setParams", cell=mask["id"], params={"percentile": percentile}, seq=1)
        exported = client.ok("export", cell="result", format="jpeg", timeout=180)
    finally:
        client.close()
    with urllib.request.urlopen(server.http + exported["url"], timeout=60) as reply:
        return reply.read()

