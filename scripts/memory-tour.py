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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "EndToEnd"))

from test_server_support import PHOTOS_DIR, Client, Server, get, post, start_server  # noqa: E402

DEFAULT_PHOTOS = [
    "fidmaa-portrait-analyser__heic_depth_data.heic",  # TrueDepth selfie, HEIC, five mattes
    "fidmaa-portrait-analyser__jpeg_depth_data.jpg",  # portrait JPEG with depth and a matte
    "pillow_heif__pug.heic",  # 12 MP rear camera, HEIC
]
PREVIEW_WIDTH = 736
HISTOGRAM_BINS = 128  # Public/js/session/histogram-registry.js
# Public/js/notebook-graph.js PHOTO_PLANES
PHOTO_PLANES = ["image", "depth", "disparity", "portraitEffectsMatte", "skin", "hair", "teeth", "glasses", "sky"]


class TourStopped(Exception):
    """The server's RSS passed the bound: the tour ends before the machine runs out of memory."""


class ServerGone(Exception):
    """The server's process ended or its socket closed."""


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


# MARK: The page

def photo_planes(facts: dict | None) -> list[str]:
    """The planes the photo cell shows, as the page finds them in the photo facts (`photoPlanes`)."""
    planes: list[str] = []

    def add(name) -> None:
        if name in PHOTO_PLANES and name not in planes:
            planes.append(name)

    if not isinstance(facts, dict):
        return planes
    add("image")
    for plane in facts.get("planes") or []:
        add(plane if isinstance(plane, str) else (plane.get("name") or plane.get("kind")) if isinstance(plane, dict) else None)
    if isinstance(facts.get("depth"), dict):
        add("disparity")
        add("depth")
    for matte in facts.get("mattes") or []:
        add(matte if isinstance(matte, str) else (matte.get("kind") or matte.get("name")) if isinstance(matte, dict) else None)
    return planes


def preview_references(notebook: dict, photo: dict | None) -> list[str]:
    """Every preview on the page with every cell in view, in page order."""
    references: list[str] = []
    for cell in notebook.get("cells", []):
        if cell.get("kind") == "photo":
            for plane in photo_planes(photo):
                if plane == "depth":
                    continue
                references.append(cell["id"] if plane == "image" else f"photo.{plane}")
        elif cell.get("kind") in ("view", "step"):
            references.append(cell["id"])
    return references


def histogram_charts(notebook: dict) -> dict[str, str]:
    """cell id -> 'always' (view or step with "histogram": true) or 'marker' (any other step)."""
    charts = {}
    for cell in notebook.get("cells", []):
        if cell.get("kind") == "view" and cell.get("histogram"):
            charts[cell["id"]] = "always"
        elif cell.get("kind") == "step":
            charts[cell["id"]] = "always" if cell.get("histogram") else "marker"
    return charts


@dataclass
class NotebookVisit:
    """What one notebook on one photo got."""
    previews_asked: int = 0
    frames: int = 0
    histograms_asked: int = 0
    histograms_answered: int = 0
    errors: list[dict] = field(default_factory=list)
    timed_out: list[str] = field(default_factory=list)


class Page:
    """One page's session over one socket: the requests the page sends, matched with what comes back."""

    def __init__(self, server: Server, sampler: RssSampler | None = None):
        self.server = server
        self.sampler = sampler
        self.client = Client(server)
        self.seq = 1000
        hello = self.ok("hello", protocol=1)
        self.session = hello.get("session")
        self.limits = hello.get("limits", {})
        self.ok("effects")
        self.ok("listSamples")
        self.bundled = [n["name"] for n in self.ok("listNotebooks")["notebooks"]]

    def close(self) -> None:
        try:
            self.client.close()
        except Exception:  # noqa: BLE001
            pass

    # Requests and waiting

    def check(self) -> None:
        if self.sampler is not None and self.sampler.over is not None:
            raise TourStopped(f"server RSS {self.sampler.over} MB passed {self.sampler.stop_above_mb} MB")
        if not self.server.alive():
            raise ServerGone(f"depthbook serve ended with {self.server.process.returncode}")

    def receive(self, deadline: float) -> None:
        """Reads one message (or gives up after 0.5 s to check the bounds again)."""
        self.check()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed")
        try:
            self.client.receive_one(min(remaining, 0.5))
        except TimeoutError:
            return
        except Exception as error:  # websockets' ConnectionClosed and friends
            if type(error).__name__.startswith("ConnectionClosed"):
                raise ServerGone(f"the socket closed: {error}") from error
            raise

    def request(self, type_: str, timeout: float = 300, **fields) -> dict:
        request_id = self.client.send(type_, **fields)
        deadline = time.monotonic() + timeout
        while not self.client.replies.get(request_id):
            self.receive(deadline)
        return self.client.replies[request_id].pop(0)

    def ok(self, type_: str, timeout: float = 300, **fields) -> dict:
        reply = self.request(type_, timeout, **fields)
        if not reply.get("ok"):
            raise RuntimeError(f"{type_} refused: {reply.get('error')}")
        return reply["result"]

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    # One notebook on one photo

    def visit(self, notebook_name: str, upload: str, timeout: float = 600) -> NotebookVisit:
        visit = NotebookVisit()
        self.client.frames.clear()
        self.client.events.clear()
        deadline = time.monotonic() + timeout
        preview_ids: dict[int, tuple[str, int]] = {}  # request id -> (reference, seq)
        waiting_frames: dict[tuple[str, int], str] = {}  # (reference, seq) -> reference, until its full frame
        histogram_ids: dict[int, str] = {}
        in_flight: set[str] = set()
        dirty: set[str] = set()
        charts: dict[str, str] = {}
        has_marker: dict[str, bool] = {}

        def ask_histogram(reference: str) -> None:
            if reference in in_flight:
                dirty.add(reference)
                return
            in_flight.add(reference)
            histogram_ids[self.client.send("histogram", cell=reference, bins=HISTOGRAM_BINS)] = reference
            visit.histograms_asked += 1

        def refresh(reference: str, registering: bool = False) -> None:
            kind = charts.get(reference)
            if kind is None:
                return
            # A marker chart is hidden (so off screen) until a histogram with a marker came back; a chart
            # being built counts as on screen (its observer has not reported yet).
            if kind == "marker" and not registering and not has_marker.get(reference, False):
                return
            ask_histogram(reference)

        def register_charts(notebook: dict) -> None:
            charts.clear()
            charts.update(histogram_charts(notebook))
            has_marker.clear()
            for reference in charts:
                refresh(reference, registering=True)

        def process() -> None:
            """Takes what has arrived: replies to previews and histograms, frames, cell errors."""
            for request_id in list(preview_ids):
                replies = self.client.replies.get(request_id)
                if not replies:
                    continue
                reply = replies.pop(0)
                reference, seq = preview_ids.pop(request_id)
                if not reply.get("ok"):
                    waiting_frames.pop((reference, seq), None)
                    visit.errors.append({"preview": reference, "error": reply.get("error")})
            for request_id in list(histogram_ids):
                replies = self.client.replies.get(request_id)
                if not replies:
                    continue
                reply = replies.pop(0)
                reference = histogram_ids.pop(request_id)
                in_flight.discard(reference)
                visit.histograms_answered += 1
                if reply.get("ok"):
                    marker = reply["result"].get("marker")
                    has_marker[reference] = marker is not None
                else:
                    visit.errors.append({"histogram": reference, "error": reply.get("error")})
                if reference in dirty:
                    dirty.discard(reference)
                    refresh(reference, registering=True)
            frames, self.client.frames[:] = list(self.client.frames), []
            for header, _payload in frames:
                if header.get("kind") != "preview" or header.get("coarse"):
                    continue
                key = (header["cell"], header["seq"])
                if key in waiting_frames:
                    del waiting_frames[key]
                    visit.frames += 1
                # A cell's histogram changes exactly when it renders anew.
                refresh(header["cell"])
            events, self.client.events[:] = list(self.client.events), []
            for event in events:
                if event.get("event") == "cellError":
                    key = (event.get("cell"), event.get("seq"))
                    if key in waiting_frames:
                        del waiting_frames[key]
                    visit.errors.append({"cellError": event.get("cell"), "message": event.get("message")})

        reply = self.request("openNotebook", timeout=max(1.0, deadline - time.monotonic()), name=notebook_name)
        if not reply.get("ok"):
            visit.errors.append({"openNotebook": notebook_name, "error": reply.get("error")})
            return visit
        opened = reply["result"]
        register_charts(opened["notebook"])  # the page builds the cells on the notebook's own photo
        reply = self.request("openPhoto", timeout=max(1.0, deadline - time.monotonic()), photo={"upload": upload})
        if not reply.get("ok"):
            visit.errors.append({"openPhoto": upload, "error": reply.get("error")})
            return visit
        photo = reply["result"]["photo"]
        notebook = {**opened["notebook"], "photo": {"upload": upload}}
        process()
        register_charts(notebook)  # built again on this person's photo
        for reference in preview_references(notebook, photo):  # runAll: every preview, then every chart
            seq = self.next_seq()
            preview_ids[self.client.send("preview", cell=reference, width=PREVIEW_WIDTH, seq=seq, interactive=False)] = (reference, seq)
            waiting_frames[(reference, seq)] = reference
            visit.previews_asked += 1
        for reference in list(charts):
            refresh(reference)
        try:
            while preview_ids or waiting_frames or histogram_ids or dirty:
                self.receive(deadline)
                process()
        except TimeoutError:
            visit.timed_out = sorted({r for r, _ in waiting_frames} | set(histogram_ids.values()) | dirty)
        # Anything still owed will be answered later on this socket: its ids are never waited for again.
        return visit


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
    started = time.monotonic()
    try:
        page = Page(server, sampler)
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
        sampler.close()
    alive = server.alive() and healthz(server)
    idle_rss = None
    if alive and idle_seconds > 0:
        # What the server keeps once nobody renders: the page stays open, nothing is asked.
        time.sleep(idle_seconds)
        idle_rss = rss_mb(pid) if server.alive() else None
    summary = {
        "summary": True, "peakMb": (peak_mb(pid) if server.alive() else None) or sampler.last_peak_mb,
        "passPeaksMb": pass_peaks, "passMaxRssMb": pass_max_rss, "alive": alive,
        "rssMb": rss_mb(pid) if server.alive() else None, "notebooksVisited": len(lines),
        "idleRssMb": idle_rss, "idleSeconds": idle_seconds,
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
    parser.add_argument("--idle-seconds", type=float, default=0,
                        help="after the tour, wait this long with nothing asked and report the RSS (idleRssMb)")
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
                           args.idle_seconds)
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
