#!/usr/bin/env python3
"""The memory tour of issue 24: one person, one page, one session, against a real `depthbook serve` with its
default settings (the 1024 MiB budget, a fresh data directory), going through real photos and every bundled
notebook the way the page does with every cell in view. After each notebook it prints one JSON line with the
server's resident memory (VmRSS and VmHWM from /proc/PID/status) and what GET /api/stats says; at the end one
summary line. `--passes 2` repeats the whole tour, to see whether a second pass raises the peak.

What the page does for one notebook, and so what the tour sends (Public/js/notebook-session.js, notebook-view.js,
cells/*.js, session/histogram-registry.js):
- `openNotebook` {name}; the cells are built at once, and every histogram chart asks for its histogram
  (`histogram` {cell, bins: 128}) while the notebook still shows its own sample photo: view cells with
  `"histogram": true` and every step cell (a step's chart is shown only when the server reports a marker);
- `openPhoto` {upload} with the photo this person uploaded (a bundled notebook opens on the last one chosen);
  the cells are built again (new charts: their histograms are asked again, or once more after the one in flight);
- `preview` {cell, width: 736, seq, interactive: false} for every preview on the page, in page order: the
  photo cell (its image as the cell id, every other plane as `photo.<plane>`, depth left out), every view
  and step cell; then the histograms once more (runAll);
- after each full frame of a cell, its histogram again (one in flight per cell, a further change asks once
  more when it ends), for a chart that is on screen: always-shown charts, and marker charts that got a marker.
The tour waits until every preview has its full frame or an error, and no histogram is in flight or wanted.

Each photo is uploaded (POST /api/upload) when its turn first comes, as a person dropping it on the page.

    scripts/memory-tour.py [--binary .build/release/depthbook] [--passes 1] [--photos a.heic,b.jpg]
                           [--notebooks depth-threshold,wiggle] [--stop-above-mb 6000] [--idle-seconds 15]
                           [--watchers 2] [--stalled-watchers 1]

Exit status: 0 when the tour ran to its end with the server alive, 1 when the server died (or stopped
answering), 2 when it was stopped because its RSS passed --stop-above-mb.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_server_support import PHOTOS_DIR, Server, cpu_seconds, get, post, start_server  # noqa: E402
from tour_page import Page, ServerGone, TourStopped, Watcher  # noqa: E402

DEFAULT_PHOTOS = [
    "fidmaa-portrait-analyser__heic_depth_data.heic",  # TrueDepth selfie, HEIC, five mattes
    "fidmaa-portrait-analyser__jpeg_depth_data.jpg",  # portrait JPEG with depth and a matte
    "pillow_heif__pug.heic",  # 12 MP rear camera, HEIC
]
# MARK: Memory readings

def proc_status_mb(pid: int, key: str) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith(key + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def rss_mb(pid: int) -> float | None:
    return proc_status_mb(pid, "VmRSS")


def peak_mb(pid: int) -> float | None:
    return proc_status_mb(pid, "VmHWM")


class RssSampler:
    """Reads the server's VmRSS every `interval` s in a thread: the highest since `reset()`, and whether it
    passed `stop_above_mb` (the tour then stops at its next wait)."""

    def __init__(self, pid: int, stop_above_mb: float, interval: float = 0.1):
        self.pid = pid
        self.stop_above_mb = stop_above_mb
        self.interval = interval
        self.max_mb = 0.0
        self.over: float | None = None
        self.last_peak_mb: float | None = None  # VmHWM as last read: what is known once the process is gone
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            value = rss_mb(self.pid)
            if value is None:
                return
            self.max_mb = max(self.max_mb, value)
            self.last_peak_mb = peak_mb(self.pid) or self.last_peak_mb
            if value > self.stop_above_mb and self.over is None:
                self.over = value
            self._stop.wait(self.interval)

    def reset(self) -> None:
        self.max_mb = rss_mb(self.pid) or 0.0

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


def stats(server: Server) -> dict:
    try:
        status, _, body = get(server, "/api/stats")
        return json.loads(body) if status == 200 else {"status": status}
    except Exception as error:  # noqa: BLE001 - a dead server is reported, not raised
        return {"error": str(error)[:200]}


def healthz(server: Server) -> bool:
    try:
        status, _, body = get(server, "/healthz")
        return status == 200 and body.strip() == b"ok"
    except Exception:  # noqa: BLE001
        return False


# MARK: The tour

def condense(errors: list[dict]) -> list[dict]:
    """Error replies and cellError events, each distinct one once with how often it came: {what, cell, code?,
    message, count}."""
    kept: dict[tuple, dict] = {}
    for error in errors:
        what = next(key for key in error if key not in ("error", "message"))
        detail = error.get("error") if isinstance(error.get("error"), dict) else {}
        entry = {"what": what, "cell": error[what], "code": detail.get("code"),
                 "message": error.get("message") or detail.get("message") or str(error.get("error"))}
        if entry["code"] is None:
            del entry["code"]
        key = tuple(sorted(entry.items()))
        kept.setdefault(key, {**entry, "count": 0})["count"] += 1
    return list(kept.values())


def resolve_photo(name: str) -> Path:
    path = Path(name)
    return path if path.is_absolute() or path.exists() else PHOTOS_DIR / name


def run_tour(server: Server, photos: list[str], notebooks: list[str] | None, passes: int = 1,
             stop_above_mb: float = 6000, notebook_timeout: float = 600, idle_seconds: float = 0,
             watchers: int = 0, stalled_watchers: int = 0,
             emit: Callable[[dict], None] = lambda line: print(json.dumps(line), flush=True)) -> dict:
    """Runs the tour against a running server; calls `emit` with each notebook's line and returns the summary
    (also emitted). Never raises for the server dying or passing the bound: the summary says so."""
    pid = server.process.pid
    sampler = RssSampler(pid, stop_above_mb)
    uploads: dict[str, str] = {}
    pass_peaks: list[float] = []
    pass_max_rss: list[float] = []
    lines: list[dict] = []
    stopped = None
    current = None
    page = None
    following: list[Watcher] = []
    started = time.monotonic()
    try:
        page = Page(server, sampler)
        following = [Watcher(server, page.session, reads=k < watchers) for k in range(watchers + stalled_watchers)]
        tour_notebooks = notebooks or page.bundled
        for k in range(1, passes + 1):
            pass_rss = 0.0
            for photo in photos:
                if photo not in uploads:
                    status, reply = post(server, "/api/upload", resolve_photo(photo).read_bytes())
                    if status != 200:
                        raise RuntimeError(f"upload of {photo} refused: {status} {reply}")
                    uploads[photo] = reply["upload"]
                for notebook in tour_notebooks:
                    current = {"pass": k, "photo": photo, "notebook": notebook}
                    sampler.reset()
                    begun = time.monotonic()
                    visit = page.visit(notebook, uploads[photo], timeout=notebook_timeout)
                    numbers = stats(server)
                    line = {
                        "pass": k, "photo": photo, "notebook": notebook,
                        "rssMb": rss_mb(pid), "peakMb": peak_mb(pid), "sampledMaxRssMb": round(sampler.max_mb, 1),
                        "statsRssMb": numbers.get("rssMb"), "budgetMb": numbers.get("budgetMb"),
                        "cachesMb": numbers.get("cachesMb"), "photosMb": numbers.get("photosMb"),
                        "healthz": healthz(server), "seconds": round(time.monotonic() - begun, 1),
                        "previews": visit.previews_asked, "frames": visit.frames,
                        "histograms": visit.histograms_answered,
                    }
                    if visit.errors:
                        line["errors"] = condense(visit.errors)
                    if visit.timed_out:
                        line["timedOut"] = visit.timed_out
                    lines.append(line)
                    emit(line)
                    pass_rss = max(pass_rss, sampler.max_mb)
                    page.check()
            pass_peaks.append(peak_mb(pid) or 0.0)
            pass_max_rss.append(round(pass_rss, 1))
    except TourStopped as error:
        stopped = str(error)
    except ServerGone as error:
        stopped = str(error)
    except Exception as error:  # noqa: BLE001 - a refused request or a dead socket ends the tour, reported
        stopped = f"{type(error).__name__}: {str(error)[:300]}"
    finally:
        if page is not None:
            page.close()
        for watcher in following:
            watcher.close()
        sampler.close()
    alive = server.alive() and healthz(server)
    idle_rss = idle_cpu = None
    if alive and idle_seconds > 0:
        # What the server keeps, and the CPU it still spends, once the page has gone and nothing is asked.
        before = cpu_seconds(pid)
        time.sleep(idle_seconds)
        if server.alive():
            idle_rss, idle_cpu = rss_mb(pid), round(cpu_seconds(pid) - before, 2)
    summary = {
        "summary": True, "peakMb": (peak_mb(pid) if server.alive() else None) or sampler.last_peak_mb,
        "passPeaksMb": pass_peaks, "passMaxRssMb": pass_max_rss, "alive": alive,
        "rssMb": rss_mb(pid) if server.alive() else None, "notebooksVisited": len(lines),
        "idleRssMb": idle_rss, "idleCpuSeconds": idle_cpu, "idleSeconds": idle_seconds,
        "watchers": [{"reads": w.reads, "messages": w.messages, "closedByServer": w.closed} for w in following],
        "seconds": round(time.monotonic() - started, 1),
    }
    if not alive and server.process.poll() is not None:
        summary["exitCode"] = server.process.returncode
    if stopped:
        summary["stopped"] = stopped
        summary["stoppedAt"] = current
        summary["overBound"] = sampler.over is not None
    emit(summary)
    return {**summary, "lines": lines}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build" / "release" / "depthbook"))
    parser.add_argument("--passes", type=int, default=1)
    parser.add_argument("--photos", default=",".join(DEFAULT_PHOTOS),
                        help="comma-separated files in ../shared/photos (or paths)")
    parser.add_argument("--notebooks", default="", help="comma-separated bundled notebook names (default: every one)")
    parser.add_argument("--stop-above-mb", type=float, default=6000,
                        help="stop the tour (and the server) once its RSS passes this")
    parser.add_argument("--notebook-timeout", type=float, default=600, help="seconds one notebook may take")
    parser.add_argument("--watchers", type=int, default=0, help="pages following the session's watch link, reading")
    parser.add_argument("--stalled-watchers", type=int, default=0,
                        help="pages following the watch link that never read (a phone gone to sleep)")
    parser.add_argument("--idle-seconds", type=float, default=0,
                        help="after the tour, its page closed, wait this long and report the RSS (idleRssMb) and the CPU "
                             "seconds the server spent meanwhile (idleCpuSeconds)")
    args = parser.parse_args()
    os.environ["DEPTHBOOK_BIN"] = args.binary
    photos = [p for p in args.photos.split(",") if p]
    notebooks = [n for n in args.notebooks.split(",") if n] or None
    for photo in photos:
        if not resolve_photo(photo).is_file():
            parser.error(f"no such photo: {photo}")
    scratch = Path(tempfile.mkdtemp(prefix="memory-tour-"))
    server = start_server(scratch / "data")
    try:
        summary = run_tour(server, photos, notebooks, args.passes, args.stop_above_mb, args.notebook_timeout,
                           args.idle_seconds, args.watchers, args.stalled_watchers)
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    if not summary["alive"] and not summary.get("overBound"):
        return 1
    if summary.get("overBound"):
        return 2
    return 0 if "stopped" not in summary else 1


if __name__ == "__main__":
    sys.exit(main())
