"""The memory tour of issue 24 (scripts/memory-tour.py), shortened: one page on a real `depthbook serve` with
its default budget goes twice through two real photos (the TrueDepth selfie HEIC and the 12 MP pug) and five
notebooks, asking for every cell's 736-px preview and its histogram as the page does with every cell in view.

The server must stay up and answer /healthz after every notebook, a second pass must not raise the peak
resident memory (VmHWM) by more than 10 % (+ 60 MB of noise), the peak must stay under the budget + 256 MB,
and /api/stats must report the memory it uses (`rssMb` > 0)."""
from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from test_server_support import REPO_ROOT, start_server

PHOTOS = ["fidmaa-portrait-analyser__heic_depth_data.heic", "pillow_heif__pug.heic"]
# The heavy ones on a 12 MP photo (big-head, marching, matte-separation) and two of the most used.
NOTEBOOKS = ["depth-threshold", "big-head", "marching", "matte-separation", "wiggle"]
PASSES = 2
BUDGET_MB = 1024  # the server's default, which the tour leaves as it is
# The tour peaks near 750 MB; a fitted subject measured at 12 MP took it to 1.3-1.5 GB, which + 512 let through.
PEAK_BOUND_MB = BUDGET_MB + 256
# The tour stops (and the test fails) well past the bound rather than pushing a small machine into the OOM killer.
STOP_ABOVE_MB = 4096
SECOND_PASS_GROWTH = 0.10
# The first pass's own peak varies from run to run of one build (603-646 MB in four runs of one commit on this
# machine: 646 -> 676 and 619 -> 658 quiet, 630 -> 703 beside a build, 603 -> 706 once in a clean clone's
# `make test`): a low first pass read as growth.
# Regressions go far past this and the absolute bound above (a fitted subject at 12 MP: 1310 -> 1493 MB).
NOISE_MB = 60


def load_tour():
    """scripts/memory-tour.py as a module (its name has a dash, so it is loaded from its path)."""
    spec = importlib.util.spec_from_file_location("memory_tour", REPO_ROOT / "scripts" / "memory-tour.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["memory_tour"] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(420)
def test_a_second_tour_of_the_notebooks_does_not_raise_the_peak(tmp_path):
    tour = load_tour()
    server = start_server(tmp_path / "data")
    lines: list[dict] = []

    def emit(line: dict) -> None:
        print(json.dumps(line), flush=True)
        lines.append(line)

    try:
        summary = tour.run_tour(server, PHOTOS, NOTEBOOKS, passes=PASSES, stop_above_mb=STOP_ABOVE_MB,
                                notebook_timeout=150, emit=emit)
    finally:
        server.stop()

    visits = [line for line in lines if not line.get("summary")]
    problems: list[str] = []
    if summary.get("stopped"):
        problems.append(f"the tour stopped at {summary.get('stoppedAt')}: {summary['stopped']}")
    if not summary["alive"]:
        problems.append(f"the server is not alive after the tour (exit code {summary.get('exitCode')})")
    if len(visits) != PASSES * len(PHOTOS) * len(NOTEBOOKS):
        problems.append(f"{len(visits)} notebooks visited, {PASSES * len(PHOTOS) * len(NOTEBOOKS)} planned")
    for line in visits:
        where = f"pass {line['pass']}, {line['photo']}, {line['notebook']}"
        if not line["healthz"]:
            problems.append(f"/healthz did not answer ok after {where}")
        if line.get("timedOut"):
            problems.append(f"still waiting for {line['timedOut']} after {where}")
        if line["previews"] == 0:
            problems.append(f"no preview asked for in {where}")
        if line["frames"] == 0:
            problems.append(f"no frame came for {where}")
    peaks = summary["passPeaksMb"]
    if len(peaks) == PASSES:
        allowed = peaks[0] * (1 + SECOND_PASS_GROWTH) + NOISE_MB
        if peaks[1] > allowed:
            problems.append(f"the second pass raised the peak RSS to {peaks[1]} MB from {peaks[0]} MB (allowed {allowed:.0f})")
    peak = summary.get("peakMb") or 0
    if peak >= PEAK_BOUND_MB:
        problems.append(f"peak RSS {peak} MB is not below {PEAK_BOUND_MB} MB (budget {BUDGET_MB} + 256)")
    budgets = {line.get("budgetMb") for line in visits}
    if budgets and budgets != {BUDGET_MB}:
        problems.append(f"/api/stats reports budgetMb {sorted(map(str, budgets))}, expected the default {BUDGET_MB}")
    zero_rss = [line for line in visits if not (isinstance(line.get("statsRssMb"), (int, float)) and line["statsRssMb"] > 0)]
    if zero_rss:
        problems.append(f"/api/stats rssMb is {zero_rss[0].get('statsRssMb')!r} (not > 0) after {len(zero_rss)} notebooks")
    assert not problems, "\n".join(problems)
