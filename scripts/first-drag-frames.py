#!/usr/bin/env python3
"""The first changes of a drag on a freshly uploaded 12 MP photo, as the server renders them: for each change,
the time until the result's full frame, and every frame's cell, quality and renderMs (docs/server.md).

Usage: python3 scripts/first-drag-frames.py PORT
(a running `depthbook serve` on 127.0.0.1:PORT; the photo is ../shared/photos/pillow_heif__pug.heic)."""
import json
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "EndToEnd"))
from websockets.sync.client import connect  # noqa: E402
from test_server_support import decode_frame  # noqa: E402

PHOTO = REPO.parent / "shared" / "photos" / "pillow_heif__pug.heic"
CELLS = ["mask", "closed", "resized", "feathered", "cutout", "result"]


def main(port: int) -> None:
    upload = urllib.request.Request(f"http://127.0.0.1:{port}/api/upload", data=PHOTO.read_bytes(), method="POST")
    photo = json.loads(urllib.request.urlopen(upload, timeout=120).read())["upload"]
    frames = []
    with connect(f"ws://127.0.0.1:{port}/ws", max_size=None) as ws:
        ids = iter(range(1, 1 << 30))

        def request(kind: str, **fields) -> dict:
            request_id = next(ids)
            ws.send(json.dumps({"id": request_id, "type": kind, **fields}))
            while True:
                message = ws.recv(timeout=120)
                if isinstance(message, bytes):
                    frames.append(decode_frame(message))
                    continue
                decoded = json.loads(message)
                if decoded.get("type") == "reply" and decoded.get("id") == request_id:
                    return decoded

        def full_frame(cell: str, seq: int) -> None:
            deadline = time.monotonic() + 60
            while not any(h["cell"] == cell and h["seq"] == seq and not h["coarse"] for h, _ in frames):
                if time.monotonic() > deadline:
                    raise TimeoutError(f"no full frame of {cell} for seq {seq}")
                message = ws.recv(timeout=60)
                if isinstance(message, bytes):
                    frames.append(decode_frame(message))

        request("hello", protocol=1)
        request("openNotebook", name="depth-threshold")
        request("openPhoto", photo={"upload": photo})
        for cell in CELLS:
            request("preview", cell=cell, width=736, seq=1)
        full_frame("result", 1)
        frames.clear()
        for seq, percentile in enumerate([40, 42, 44], start=2):
            started = time.monotonic()
            request("setParams", cell="mask", params={"percentile": percentile}, seq=seq, interactive=True)
            full_frame("result", seq)
            print(json.dumps({
                "change": seq - 1, "result_full_ms": round((time.monotonic() - started) * 1000),
                "frames": [[h["cell"], "coarse" if h["coarse"] else "full", h["renderMs"]] for h, _ in frames if h["seq"] == seq],
            }))


if __name__ == "__main__":
    main(int(sys.argv[1]))
