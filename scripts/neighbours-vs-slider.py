#!/usr/bin/env python3
"""What heavy neighbours cost another person's slider (issue 40): one `depthbook serve` (DEPTHBOOK_BIN, else the
release build), `depthbook loadtest` with one session dragging depth-threshold's percentile on the 12 MP pug, alone,
then beside each scenario:
- `exports`: two sockets exporting the pug's Wiggle loop (an MP4 and a GIF, 120 frames at 2048 px) while asking
  1:1 crops and 1024-bin histograms of it, again and again;
- `export-and-chain`: one session exporting a long formula chain at full size (JPEG), another previewing that chain
  at 2048 px, again and again;
- `uploads`: ten photos uploaded at once (the shared photos in turn); it also prints how long after the last
  answer the server is quiet again (a second with under 0.2 cores).
Prints one JSON line per run (the load test's own line, with the scenario) and the ratios of the slider's final-frame
p50 and p95 to the alone run.

    scripts/neighbours-vs-slider.py [--changes 60] [--scenarios exports,export-and-chain]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))

from test_server_support import PHOTOS_DIR, Client, binary, post, start_server  # noqa: E402
from test_server_hostile_round_three import LAST, costly_chain  # noqa: E402
from test_server_hostile_round_two import cpu_seconds  # noqa: E402

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"


def drag(server, changes: int) -> dict:
    """One loadtest session dragging the percentile; its JSON line."""
    out = subprocess.run([binary(), "loadtest", "--url", f"ws://127.0.0.1:{server.port}", "--sessions", "1",
                          "--changes", str(changes), "--rate", "30", "--width", "736", "--photo", str(PUG), "--json"],
                         capture_output=True, text=True, timeout=900, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def exporter_with_crops(server, upload: str, fmt: str, stop: threading.Event) -> None:
    """Exports the Wiggle loop again and again; meanwhile a second socket of the same kind asks crops and histograms."""
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        cells = client.ok("openNotebook", name="wiggle")["notebook"]["cells"]
        cell = next(c["id"] for c in cells if c.get("effect") == "wiggle")
        client.ok("openPhoto", photo={"upload": upload})
        seq = 0
        while not stop.is_set():
            export = client.send("export", cell=cell, format=fmt, frames=120, width=2048)
            while not stop.is_set():
                seq += 1
                client.ok("crop", cell=cell, x=(seq * 97) % 2900, y=(seq * 53) % 1900, w=1024, h=1024, seq=seq)
                client.request("histogram", cell=cell, bins=1024, timeout=300)
                try:
                    client.reply(export, timeout=0.1)
                    break
                except Exception:  # noqa: BLE001 - the export is still running
                    continue
    finally:
        client.close()


def chain_worker(server, upload: str, stop: threading.Event, export: bool, salt: int) -> None:
    client = Client(server)
    try:
        client.ok("hello", protocol=1)
        notebook = client.ok("openNotebook", name="depth-threshold")["notebook"]
        client.ok("setNotebook", notebook=costly_chain(notebook, {"upload": upload}, salt=salt), timeout=120)
        seq = 0
        while not stop.is_set():
            if export:
                client.request("export", cell=LAST, format="jpeg", timeout=900)
            else:
                seq += 1
                client.ok("preview", cell=LAST, width=2048, seq=seq)
                client.wait_frame(LAST, seq, timeout=900)
    except Exception as error:  # noqa: BLE001 - the neighbour stops when the run ends
        if not stop.is_set():
            print(json.dumps({"neighbour_error": str(error)}), flush=True)
    finally:
        client.close()


def uploader(server, photo: Path, stop: threading.Event, answered: list) -> None:
    """One person dropping a photo: a single upload, its answer time kept."""
    status, reply = post(server, "/api/upload", photo.read_bytes())
    answered.append((time.monotonic(), status))


UPLOAD_PHOTOS = sorted(p for p in PHOTOS_DIR.iterdir() if p.suffix in (".heic", ".jpg") and "-depth" not in p.name)
uploads_answered: list = []

SCENARIOS = {
    "exports": lambda server, upload, stop: [threading.Thread(target=exporter_with_crops, args=(server, upload, fmt, stop)) for fmt in ("mp4", "gif")],
    "export-and-chain": lambda server, upload, stop: [threading.Thread(target=chain_worker, args=(server, upload, stop, True, 7)),
                                                     threading.Thread(target=chain_worker, args=(server, upload, stop, False, 8))],
    "uploads": lambda server, upload, stop: [threading.Thread(target=uploader, args=(server, UPLOAD_PHOTOS[k % len(UPLOAD_PHOTOS)], stop, uploads_answered))
                                             for k in range(10)],
}


def seconds_until_quiet(pid: int, since: float, limit: float = 120) -> float:
    """Seconds from `since` until a whole second passes with under 0.2 s of the server's CPU."""
    cpu = lambda: cpu_seconds(pid)  # noqa: E731
    while time.monotonic() - since < limit:
        before = cpu()
        time.sleep(1)
        if cpu() - before < 0.2:
            return round(time.monotonic() - since - 1, 1)
    return limit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=60)
    parser.add_argument("--scenarios", default="exports,export-and-chain,uploads")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = start_server(Path(data))
        try:
            status, uploaded = post(server, "/api/upload", PUG.read_bytes())
            assert status == 200, uploaded
            drag(server, args.changes)  # warm-up: the photo decoded, the caches filled
            alone = drag(server, args.changes)
            print(json.dumps({"run": "alone", **alone}), flush=True)
            for name in args.scenarios.split(","):
                stop = threading.Event()
                neighbours = SCENARIOS[name](server, uploaded["upload"], stop)
                for thread in neighbours:
                    thread.start()
                if name != "uploads":
                    threading.Event().wait(5)  # the neighbours' work under way
                busy = drag(server, args.changes)
                stop.set()
                print(json.dumps({"run": name, **busy}), flush=True)
                if name == "uploads":
                    for thread in neighbours:
                        thread.join(timeout=300)
                    last = max(t for t, _ in uploads_answered)
                    print(json.dumps({"scenario": name, "statuses": sorted(s for _, s in uploads_answered),
                                      "quiet_s_after_last_answer": seconds_until_quiet(server.process.pid, last)}), flush=True)
                keys = ["final_full_p50_ms", "final_full_p95_ms", "p50_ms", "p95_ms"]
                print(json.dumps({"scenario": name, "ratios": {k: round(busy[k] / alone[k], 2) for k in keys if alone.get(k)}}), flush=True)
                for thread in neighbours:
                    thread.join(timeout=900)
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
