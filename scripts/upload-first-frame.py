#!/usr/bin/env python3
"""How long a person waits after uploading a photo: POST /api/upload, then openPhoto and a 736-px preview of
the photo cell, against a real `depthbook serve`. Prints one JSON line per photo.

    scripts/upload-first-frame.py [--binary .build/release/depthbook]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))

PHOTOS = ["pillow_heif__pug.heic", "fidmaa-portrait-analyser__heic_depth_data.heic"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "depthbook"))
    args = parser.parse_args()
    os.environ["DEPTHBOOK_BIN"] = args.binary
    from test_server_support import PHOTOS_DIR, Client, post, start_server  # noqa: E402 - needs DEPTHBOOK_BIN

    server = start_server(Path(tempfile.mkdtemp(prefix="first-frame-")) / "data")
    try:
        time.sleep(5)  # the bundled samples are written at start; let that finish
        for seq, name in enumerate(PHOTOS, start=5):
            started = time.monotonic()
            status, reply = post(server, "/api/upload", (PHOTOS_DIR / name).read_bytes())
            assert status == 200, reply
            uploaded = time.monotonic()
            client = Client(server)
            client.ok("hello", protocol=1)
            client.ok("openNotebook", name="depth-threshold", timeout=300)
            client.ok("openPhoto", photo={"upload": reply["upload"]}, timeout=300)
            client.ok("preview", cell="photo", width=736, seq=seq)
            client.wait_frame("photo", seq, timeout=300)
            shown = time.monotonic()
            client.close()
            print(json.dumps({"photo": name, "upload_ms": round((uploaded - started) * 1000),
                              "open_and_first_frame_ms": round((shown - uploaded) * 1000)}))
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
