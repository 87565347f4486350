#!/usr/bin/env python3
"""What two long exports cost another person's slider (issue 25): one `depthbook serve` (DEPTHBOOK_BIN, else the
release build), `depthbook loadtest` with one session dragging depth-threshold's percentile on the 12 MP pug, first
alone, then while two other sessions export the Wiggle loop of the pug (an MP4 and a GIF, 120 frames at 2048 px).
Prints one JSON line per run (the load test's own line) and the ratio of the slider's p50 and p95 to the alone run.

    scripts/exports-vs-slider.py [--changes 60]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))

from test_server_support import PHOTOS_DIR, Client, binary, post, start_server  # noqa: E402

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def drag(server, changes: int) -> dict:
    """One loadtest session dragging the percentile; its JSON line."""
    out = subprocess.run([binary(), "loadtest", "--url", f"ws://127.0.0.1:{server.port}", "--sessions", "1",
                          "--changes", str(changes), "--rate", "30", "--width", "736", "--photo", str(PUG), "--json"],
                         capture_output=True, text=True, timeout=900, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def export(server, upload: str, fmt: str, done: list) -> None:
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        opened = client.ok("openNotebook", name="wiggle")
        cell = next(c["id"] for c in opened["notebook"]["cells"] if c.get("effect") == "wiggle")
        client.ok("openPhoto", photo={"upload": upload})
        client.ok("export", cell=cell, format=fmt, frames=120, width=2048, timeout=900)
        done.append(fmt)
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = start_server(Path(data))
        try:
            status, uploaded = post(server, "/api/upload", PUG.read_bytes())
            assert status == 200, uploaded
            drag(server, args.changes)  # warm-up: the photo decoded, the caches filled
            alone = drag(server, args.changes)
            print(json.dumps({"run": "alone", **alone}), flush=True)
            done: list[str] = []
            exports = [threading.Thread(target=export, args=(server, uploaded["upload"], fmt, done)) for fmt in ("mp4", "gif")]
            for thread in exports:
                thread.start()
            busy = drag(server, args.changes)
            running = 2 - len(done)
            print(json.dumps({"run": "two exports", "exportsStillRunningAtTheEnd": running, **busy}), flush=True)
            for thread in exports:
                thread.join()
            keys = [k for k in alone if k.endswith("_ms")]
            print(json.dumps({"ratios": {k: round(busy[k] / alone[k], 2) for k in keys
                                         if isinstance(alone.get(k), (int, float)) and alone[k]}, "exports": done}), flush=True)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
