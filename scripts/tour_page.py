"""The page as the memory tour plays it (scripts/memory-tour.py): the requests one studio page sends for a notebook
with every cell in view, a watch link's pages, and the readings of what came back. Mirrors Public/js
(notebook-session.js, notebook-view.js, cells/*.js, session/histogram-registry.js); bounds and plane names come
from the server's hello, as the page takes them."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from test_server_support import Client, Server

PREVIEW_WIDTH = 736
HISTOGRAM_BINS = 128  # Public/js/session/histogram-registry.js


class TourStopped(Exception):
    """The server's RSS passed the bound: the tour ends before the machine runs out of memory."""


class ServerGone(Exception):
    """The server's process ended or its socket closed."""


# MARK: The page

def plane_names(hello_planes: list[str] | None) -> list[str]:
    """The plane names a reference may use, from hello's `planes` (`planeNames` in notebook-graph.js)."""
    return [p[len("photo."):] for p in hello_planes or [] if p.startswith("photo.")]


def photo_planes(facts: dict | None, known: list[str]) -> list[str]:
    """The planes the photo cell shows, as the page finds them in the photo facts (`photoPlanes`), in the
    server's order."""
    planes: list[str] = []

    def add(name) -> None:
        if name in known and name not in planes:
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
    return sorted(planes, key=known.index)


def preview_references(notebook: dict, photo: dict | None, known: list[str]) -> list[str]:
    """Every preview on the page with every cell in view, in page order."""
    references: list[str] = []
    for cell in notebook.get("cells", []):
        if cell.get("kind") == "photo":
            for plane in photo_planes(photo, known):
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


class Watcher:
    """A page opened from the session's watch link (`?watch=<session>`): it says hello with the public id only,
    so it watches. A reading watcher takes every event and frame as they come, in a thread; a stalled one (a
    phone that went to sleep) never reads, and the server must let it go rather than keep its output."""

    def __init__(self, server: Server, session: str, reads: bool):
        self.client = Client(server)
        hello = self.client.ok("hello", protocol=1, watch=session)
        if hello.get("role") != "watch":
            raise RuntimeError(f"a watch link was given role {hello.get('role')}")
        self.reads = reads
        self.messages = 0
        self.closed = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True) if reads else None
        if self._thread:
            self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            try:
                self.client.socket.recv(timeout=0.5)
                self.messages += 1
            except TimeoutError:
                continue
            except Exception:  # noqa: BLE001 - the server closed it: counted, not raised
                self.closed = True
                return

    def close(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=2)
        try:
            self.client.close()
        except Exception:  # noqa: BLE001
            pass


class Page:
    """One page's session over one socket: the requests the page sends, matched with what comes back."""

    def __init__(self, server: Server, sampler=None):
        """`sampler` (memory-tour.py's RssSampler) stops the page once the server's RSS passes its bound."""
        self.server = server
        self.sampler = sampler
        self.client = Client(server)
        self.seq = 1000
        hello = self.ok("hello", protocol=1)
        self.session = hello.get("session")
        self.limits = hello.get("limits", {})
        self.planes = plane_names(hello.get("planes"))
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
        for reference in preview_references(notebook, photo, self.planes):  # runAll: every preview, then every chart
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
