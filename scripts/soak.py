#!/usr/bin/env python3
"""A soak of the studio as a busy room uses it (issue 40): one `depthbook serve` (DEPTHBOOK_BIN, else the release
build) for `--minutes` (10 by default) while
- ten sessions drag depth-threshold's percentile on the 12 MP pug (`depthbook loadtest`, run after run),
- two sessions export the Wiggle loop (MP4 and GIF) again and again, every other export abandoned after 2 s,
- a photo is uploaded every 30 s (the shared photos in turn),
- every 5 s a client asks a 2048-px preview, a 1024-bin histogram and a 1:1 crop, and leaves mid-render.
Every 10 s it prints one JSON line: the server's RSS and CPU, the last drag's final-frame p50/p95, and the errors
so far. It fails (exit 1) if the server died, if anything errored, or if the RSS over the last minute is more than
10 % above the RSS over the second minute: medians of readings every 2 s, since the RSS swings by ±15 % within a
minute as 12 MP exports, uploads and renders start and end (a mean of six 10-s readings moved 1.15× with no trend:
604, then 672–753 in minutes 3–9, then 693); the means are printed beside them.
Then it watches `--settle` seconds (150) after everyone left, one line every 10 s, and fails unless the server
falls quiet (at most 0.05 of a core over the last reading) holding no session; its RSS then is printed.

    DEPTHBOOK_BIN=.build/release/depthbook scripts/soak.py [--minutes 10]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))

from test_server_hostile_round_two import cpu_seconds  # noqa: E402
from test_server_support import PHOTOS_DIR, Client, binary, post, start_server  # noqa: E402

PUG = PHOTOS_DIR / "pillow_heif__pug.heic"
UPLOADS = [PUG, *sorted(PHOTOS_DIR.glob("fidmaa-*")), PHOTOS_DIR / "exifr__with_deth_map.jpg"]


class Soak:
    def __init__(self, server, deadline: float):
        self.server = server
        self.deadline = deadline
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.last_drag: dict = {}
        self.counts = {"drags": 0, "exports": 0, "abandoned": 0, "uploads": 0, "leavers": 0}

    def running(self) -> bool:
        return time.monotonic() < self.deadline and self.server.alive()

    def failed(self, what: str, error: BaseException | str) -> None:
        with self.lock:
            self.errors.append(f"{what}: {error}")

    def count(self, key: str) -> None:
        with self.lock:
            self.counts[key] += 1

    def drag(self) -> None:
        while self.running():
            try:
                out = subprocess.run([binary(), "loadtest", "--url", f"ws://127.0.0.1:{self.server.port}", "--sessions", "10",
                                      "--changes", "60", "--rate", "10", "--width", "736", "--photo", str(PUG), "--json"],
                                     capture_output=True, text=True, timeout=600)
                lines = out.stdout.strip().splitlines()
                if not lines:  # the load test failed before its report: say how
                    self.failed("drag", f"loadtest exited {out.returncode}: {out.stderr.strip()[-300:]}")
                    continue
                report = json.loads(lines[-1])
                if report.get("errors"):
                    self.failed("drag", report.get("first_error"))
                with self.lock:
                    self.last_drag = report
                self.count("drags")
            except Exception as error:  # noqa: BLE001 - every failure is reported, none stops the soak
                self.failed("drag", error)

    def export(self, upload: str, fmt: str) -> None:
        round_ = 0
        while self.running():
            round_ += 1
            client = Client(self.server)
            try:
                client.ok("hello", protocol=1)
                cell = next(c["id"] for c in client.ok("openNotebook", name="wiggle")["notebook"]["cells"] if c.get("effect") == "wiggle")
                client.ok("openPhoto", photo={"upload": upload})
                if round_ % 2 == 0:
                    client.send("export", cell=cell, format=fmt, frames=24, width=720)
                    time.sleep(2)
                    self.count("abandoned")
                else:
                    client.ok("export", cell=cell, format=fmt, frames=24, width=720, timeout=600)
                    self.count("exports")
            except Exception as error:  # noqa: BLE001
                self.failed(f"export {fmt}", error)
            finally:
                client.close()

    def upload(self) -> None:
        k = 0
        while self.running():
            photo = UPLOADS[k % len(UPLOADS)]
            k += 1
            try:
                status, reply = post(self.server, "/api/upload", photo.read_bytes())
                if status != 200:
                    self.failed("upload", f"{photo.name}: {status} {reply}")
                self.count("uploads")
            except Exception as error:  # noqa: BLE001
                self.failed("upload", error)
            self.sleep(30)

    def leave_mid_render(self, upload: str) -> None:
        seq = 0
        while self.running():
            client = Client(self.server)
            try:
                client.ok("hello", protocol=1)
                cells = client.ok("openNotebook", name="depth-threshold")["notebook"]["cells"]
                client.ok("openPhoto", photo={"upload": upload})
                last = [c["id"] for c in cells if c["kind"] in ("step", "view")][-1]
                seq += 1
                client.send("preview", cell=last, width=2048, seq=seq)
                client.send("histogram", cell=last, bins=1024)
                client.send("crop", cell=last, x=0, y=0, w=1024, h=1024, seq=seq)
                time.sleep(0.5)
                self.count("leavers")
            except Exception as error:  # noqa: BLE001
                self.failed("leaver", error)
            finally:
                client.close()
            self.sleep(5)

    def sleep(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while self.running() and time.monotonic() < end:
            time.sleep(0.2)


def server_stats(server) -> dict:
    """What the server says it holds (`/api/stats`): sessions, decoded photos and render caches, in MB."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/stats", timeout=10) as answer:
            stats = json.loads(answer.read())
        return {"sessions": stats.get("sessions"), "photos_mb": round(stats.get("photosMb", 0), 1),
                "caches_mb": round(stats.get("cachesMb", 0), 1), "unused_resident_mb": round(stats.get("unusedResidentMb", 0), 1)}
    except Exception as error:  # noqa: BLE001 - a missed reading is shown, not fatal
        return {"stats_error": str(error)}


def rss_mb(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def settle(server, seconds: float) -> dict:
    """After the load: one JSON line every 10 s while the sessions' grace runs out, then what the server keeps
    (RSS, the CPU it spends over the last 20 s, its sessions, photos and caches)."""
    pid, started = server.process.pid, time.monotonic()
    last_cpu, last_t = cpu_seconds(pid), started
    cores = 0.0
    while time.monotonic() - started < seconds and server.alive():
        time.sleep(10)
        now, cpu = time.monotonic(), cpu_seconds(pid)
        cores = (cpu - last_cpu) / (now - last_t)
        print(json.dumps({"after_leaving_s": round(now - started), "rss_mb": round(rss_mb(pid), 1),
                          "cpu_cores": round(cores, 3), **server_stats(server)}), flush=True)
        last_cpu, last_t = cpu, now
    stats = server_stats(server)
    return {"rss_after_leaving_mb": round(rss_mb(pid), 1), "cpu_after_leaving_cores": round(cores, 3),
            "sessions_after_leaving": stats.get("sessions"), "photos_after_leaving_mb": stats.get("photos_mb"),
            "caches_after_leaving_mb": stats.get("caches_mb")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--settle", type=float, default=150,
                        help="seconds watched after everyone left (sessions wait 120 s for their page by default)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = start_server(Path(data))
        try:
            status, uploaded = post(server, "/api/upload", PUG.read_bytes())
            assert status == 200, uploaded
            upload = uploaded["upload"]
            started = time.monotonic()
            soak = Soak(server, started + args.minutes * 60)
            workers = [threading.Thread(target=soak.drag), threading.Thread(target=soak.upload),
                       threading.Thread(target=soak.leave_mid_render, args=(upload,)),
                       *(threading.Thread(target=soak.export, args=(upload, fmt)) for fmt in ("mp4", "gif"))]
            for worker in workers:
                worker.start()
            pid = server.process.pid
            readings: list[tuple[float, float]] = []
            last_cpu, last_t = cpu_seconds(pid), time.monotonic()
            while soak.running():
                # RSS every 2 s (the verdict's medians), a line every 10 s.
                for _ in range(5):
                    soak.sleep(2)
                    if not server.alive():
                        break
                    readings.append((time.monotonic() - started, rss_mb(pid)))
                if not server.alive():
                    break
                now, cpu = time.monotonic(), cpu_seconds(pid)
                rss = readings[-1][1]
                with soak.lock:
                    drag, errors, counts = dict(soak.last_drag), len(soak.errors), dict(soak.counts)
                print(json.dumps({"t_s": round(now - started), "rss_mb": round(rss, 1), "cpu_cores": round((cpu - last_cpu) / (now - last_t), 2),
                                  "final_full_p50_ms": drag.get("final_full_p50_ms"), "final_full_p95_ms": drag.get("final_full_p95_ms"),
                                  "errors": errors, **server_stats(server), **counts}), flush=True)
                last_cpu, last_t = cpu, now
            for worker in workers:
                worker.join(timeout=600)
            settled = settle(server, args.settle) if server.alive() else {}
            alive = server.alive()
            # Readings while the load ran; what the server keeps once idle is printed beside them.
            end = readings[-1][0] if readings else 0
            second_minute = [r for t, r in readings if 60 <= t < 120]
            last_minute = [r for t, r in readings if t >= max(120, end - 60)]
            after_first_minute = statistics.median(second_minute) if second_minute else None
            end_rss = statistics.median(last_minute) if last_minute else 0.0
            growth = end_rss / after_first_minute if after_first_minute and last_minute else None
            means = {"rss_second_minute_mean_mb": round(statistics.fmean(second_minute), 1) if second_minute else None,
                     "rss_last_minute_mean_mb": round(statistics.fmean(last_minute), 1) if last_minute else None}
            verdict = {"alive": alive, "rss_second_minute_median_mb": after_first_minute and round(after_first_minute, 1),
                       "rss_last_minute_median_mb": round(end_rss, 1), **means,
                       "rss_peak_mb": round(max((r for _, r in readings), default=0), 1),
                       "rss_idle_after_mb": round(rss_mb(server.process.pid), 1) if alive else None,
                       "growth": growth and round(growth, 3), **settled, "errors": soak.errors[:10],
                       "error_count": len(soak.errors), **soak.counts}
            print(json.dumps(verdict), flush=True)
            # Once everyone has gone the server must fall quiet and let its sessions go.
            quiet = settled.get("cpu_after_leaving_cores", 1) <= 0.05 and settled.get("sessions_after_leaving") == 0
            ok = alive and quiet and not soak.errors and (growth is None or growth <= 1.10)
            return 0 if ok else 1
        finally:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
