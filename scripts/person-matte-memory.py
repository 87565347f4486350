#!/usr/bin/env python3
"""Memory with the learned person matte (issue 36): ten people each open their own 12 MP photo without depth or
Apple's matte, one after another, and stay; every photo gets its matte (and its estimated depth) in the
background, and each page renders depth of field at 736 px once it has come. Prints one JSON line per photo
(resident memory once its matte came) and one for the whole run: the peak (VmHWM) against the budget, and the
resident memory a minute after everyone left.

The photos are the pug's pixels alone (rendered by `depthbook render --no-person-matte`, so no depth reaches the
server), each one brightened differently, so that every one decodes and mattes to different bytes.

    scripts/person-matte-memory.py [--binary .build/release/depthbook] [--photos 10] [--budget-mb 1024]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageEnhance

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))
from test_server_support import PHOTOS_DIR, Client, post, start_server  # noqa: E402

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def status_mb(pid: int, field: str) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith(field)).split()[1]) / 1024


def plain_photos(binary: str, count: int, folder: Path) -> list[bytes]:
    """`count` different plain 12 MP JPEGs: the pug's pixels, brightened by 2 % more each time."""
    base = folder / "pug-plain.jpg"
    subprocess.run([binary, "render", str(ROOT / "Notebooks" / "depth-of-field.json"), "--photo", str(PUG), "--cell", "photo",
                    "--no-person-matte", "-o", str(base)], check=True, capture_output=True)
    image = Image.open(base).convert("RGB")
    photos = []
    for index in range(count):
        out = io.BytesIO()
        ImageEnhance.Brightness(image).enhance(1 + 0.02 * index).save(out, "JPEG", quality=90)
        photos.append(out.getvalue())
    return photos


def run(binary: str, count: int, budget_mb: int, folder: Path, emit=print, linger_s: float = 60) -> dict:
    """Ten people (`count`) open their plain photos one after another and stay; returns the summary line:
    the peak (VmHWM) and, after they all left and `linger_s` passed, the resident memory."""
    photos = plain_photos(binary, count, folder)
    os.environ["DEPTHBOOK_BIN"] = binary
    server = start_server(folder / "data", "--memory-budget-mb", str(budget_mb))
    pid = server.process.pid
    clients = []
    try:
        for index, data in enumerate(photos):
            status, uploaded = post(server, "/api/upload", data)
            assert status == 200, uploaded
            client = Client(server)
            clients.append(client)
            client.ok("hello", protocol=1)
            client.ok("openNotebook", name="depth-of-field", timeout=300)
            opened = client.ok("openPhoto", photo={"upload": uploaded["upload"]}, timeout=300)
            started = time.monotonic()
            if opened["photo"].get("coming"):
                client.wait_event(lambda e: e.get("event") == "photo", "the photo with its matte", timeout=300)
            matte_s = time.monotonic() - started
            client.ok("preview", cell="preview", width=736, seq=1, timeout=300)
            client.wait_frame("preview", 1, timeout=300, coarse=False)
            emit({"photo": index + 1, "matte_wait_s": round(matte_s, 2),
                  "rss_mb": round(status_mb(pid, "VmRSS")), "peak_mb": round(status_mb(pid, "VmHWM"))})
        for client in clients:
            client.close()
        time.sleep(linger_s)
        summary = {"photos": len(photos), "budget_mb": budget_mb, "peak_mb": round(status_mb(pid, "VmHWM")),
                   f"rss_after_leaving_{linger_s:g}s_mb": round(status_mb(pid, "VmRSS"))}
        emit(summary)
        return summary
    finally:
        server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "depthbook"))
    parser.add_argument("--photos", type=int, default=10)
    parser.add_argument("--budget-mb", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        run(args.binary, args.photos, args.budget_mb, Path(scratch), emit=lambda line: print(json.dumps(line), flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
