#!/usr/bin/env python3
"""The heavy-use memory scenario of issue 13, against a real `depthbook serve` with its default budget:
eight sessions, each on its own 12 MP photo with every depth-threshold cell previewed at 1024 px, while a
ninth session exports the Wiggle loop as a 120-frame, 2048-px MP4. Prints one JSON line with the server's
peak resident memory (VmHWM) and what every request got.

The eight photos are 12 MP JPEGs with depth that the server itself exported from the rear-camera HEIC in
../shared/photos (the `dark` exposure cell at eight different settings), so each decodes to different pixels.

    scripts/memory-bench.py [--binary .build/release/depthbook] [--budget-mb 1024]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))
import os  # noqa: E402

from test_server_support import PHOTOS_DIR, Client, post, start_server  # noqa: E402

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) / 1024


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]) / 1024


def distinct_photos(server, count: int) -> list[str]:
    """`count` different 12 MP JPEGs with depth, exported by the server from the pug, then uploaded."""
    status, reply = post(server, "/api/upload", PUG.read_bytes())
    assert status == 200, reply
    client = Client(server)
    client.ok("hello", protocol=1)
    client.ok("openNotebook", name="depth-threshold", timeout=300)
    client.ok("openPhoto", photo={"upload": reply["upload"]}, timeout=300)
    uploads = []
    for index in range(count):
        client.ok("setParams", cell="dark", params={"ev": -0.3 - 0.2 * index}, seq=index + 1)
        url = client.ok("export", cell="dark", format="jpeg", timeout=600)["url"]
        with urllib.request.urlopen(f"{server.http}{url}", timeout=120) as response:
            data = response.read()
        status, uploaded = post(server, "/api/upload", data)
        assert status == 200, uploaded
        uploads.append(uploaded["upload"])
    client.close()
    return uploads


def preview_everything(server, upload: str, results: list, index: int) -> None:
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        notebook = client.ok("openNotebook", name="depth-threshold", timeout=300)["notebook"]
        client.ok("openPhoto", photo={"upload": upload}, timeout=300)
        cells = [c["id"] for c in notebook["cells"] if c["kind"] in ("photo", "view", "step")]
        seq = 10
        for cell in cells:
            client.ok("preview", cell=cell, width=1024, seq=seq, timeout=300)
            client.wait_frame(cell, seq, timeout=600, coarse=False)
            seq += 1
        results[index] = {"session": index, "cells": len(cells), "ok": True}
    except Exception as error:  # noqa: BLE001 - reported, not raised: the run goes on
        results[index] = {"session": index, "ok": False, "error": str(error)[:200]}
    finally:
        client.close()


def export_video(server, results: list, index: int) -> None:
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        client.ok("openNotebook", name="wiggle", timeout=300)
        status, reply = post(server, "/api/upload", PUG.read_bytes())
        client.ok("openPhoto", photo={"upload": reply["upload"]}, timeout=300)
        started = time.monotonic()
        result = client.ok("export", cell="frame-0", format="mp4", frames=120, width=2048, timeout=1800)
        results[index] = {"export": "mp4", "ok": True, "bytes": result["bytes"], "seconds": round(time.monotonic() - started, 1)}
    except Exception as error:  # noqa: BLE001
        results[index] = {"export": "mp4", "ok": False, "error": str(error)[:200]}
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "depthbook"))
    parser.add_argument("--budget-mb", type=int, default=None)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--no-export", action="store_true", help="leave the MP4 export out (to see each part's share)")
    args = parser.parse_args()
    os.environ["DEPTHBOOK_BIN"] = args.binary
    extra = ["--memory-budget-mb", str(args.budget_mb)] if args.budget_mb else []
    server = start_server(Path(tempfile.mkdtemp(prefix="memory-bench-")) / "data", *extra)
    try:
        uploads = distinct_photos(server, args.sessions)
        baseline = rss_mb(server.process.pid)
        setup_peak = peak_rss_mb(server.process.pid)
        results: list = [None] * (args.sessions + 1)
        threads = [threading.Thread(target=preview_everything, args=(server, upload, results, i)) for i, upload in enumerate(uploads)]
        if args.no_export:
            results.pop()
        else:
            threads.append(threading.Thread(target=export_video, args=(server, results, args.sessions)))
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        time.sleep(12)  # two sweeps: the idle server gives free memory back
        print(json.dumps({
            "scenario": f"{args.sessions} sessions x 12 MP, every depth-threshold cell at 1024 px, + 120-frame 2048-px MP4",
            "budget_mb": args.budget_mb or 1024, "peak_rss_mb": round(peak_rss_mb(server.process.pid), 1),
            "rss_before_mb": round(baseline, 1), "peak_after_making_the_photos_mb": round(setup_peak, 1), "rss_idle_after_mb": round(rss_mb(server.process.pid), 1),
            "seconds": round(elapsed, 1), "all_answered": all(r and r["ok"] for r in results), "results": results,
        }))
        return 0 if all(r and r["ok"] for r in results) else 1
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
