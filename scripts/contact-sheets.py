#!/usr/bin/env python3
"""Contact sheets: every bundled notebook's result rendered on every photo you have, one sheet per notebook, to
look at before calling a change to an effect done (issue 38).

    scripts/contact-sheets.py [--photos DIR] [--width 480] [--cell ID] [--out artifacts/contact-sheets] [notebook ...]

Photos: every HEIC, JPEG and PNG in --photos (default ../shared/photos); a file named `<name>-image.jpg` with a
`<name>-depth.jpg` beside it (a depth app's pair) is one photo with its depth map; other `-depth` files are
skipped. Each tile is `depthbook render` of the notebook's last picture cell, or of --cell (DEPTHBOOK_BIN, else the
release build), captioned with the photo's name, or with the error the render printed. Prints one JSON line per sheet.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".heic", ".jpg", ".jpeg", ".png"}


def photos(folder: Path) -> list[tuple[str, Path, Path | None]]:
    """(name, photo, depth map or None), in name order."""
    found = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in SUFFIXES or path.stem.endswith("-depth"):
            continue
        depth = path.with_name(path.stem[: -len("-image")] + "-depth" + path.suffix) if path.stem.endswith("-image") else None
        found.append((path.stem, path, depth if depth and depth.exists() else None))
    return found


def render(binary: str, notebook: Path, photo: Path, depth: Path | None, width: int, out: Path, cell: str | None) -> str | None:
    """Renders into `out`; the error's last line when it fails."""
    command = [binary, "render", str(notebook), "--photo", str(photo), "--width", str(width), "--output", str(out)]
    if cell:
        command += ["--cell", cell]
    if depth:
        command += ["--depth", str(depth)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or ["failed"])[-1]
    return None


def sheet(tiles: list[tuple[str, Image.Image | None, str | None]], width: int, title: str) -> Image.Image:
    columns = min(4, max(1, len(tiles)))
    caption = 18
    cell_h = max((t.height * width // t.width for _, t, _ in tiles if t), default=width) + caption
    rows = (len(tiles) + columns - 1) // columns
    canvas = Image.new("RGB", (columns * width, rows * cell_h + 24), "white")
    draw = ImageDraw.Draw(canvas)
    draw.text((6, 4), title, fill="black")
    for i, (name, tile, error) in enumerate(tiles):
        x, y = (i % columns) * width, 24 + (i // columns) * cell_h
        if tile:
            canvas.paste(tile.resize((width, tile.height * width // tile.width)), (x, y + caption))
        else:
            draw.text((x + 6, y + caption + 6), (error or "")[:60], fill="red")
        draw.text((x + 6, y + 3), name[:60], fill="black")
    return canvas


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=ROOT.parent / "shared" / "photos")
    parser.add_argument("--width", type=int, default=480)
    parser.add_argument("--cell", help="the cell to render in each notebook (default: its last picture cell)")
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "contact-sheets")
    parser.add_argument("notebooks", nargs="*", help="notebook names or paths (default: every one in Notebooks/)")
    args = parser.parse_args()
    binary = os.environ.get("DEPTHBOOK_BIN") or str(ROOT / ".build" / "release" / "depthbook")
    # A name or a path (`dolly-zoom` or `Notebooks/dolly-zoom.json`): both mean the bundled notebook.
    names = [Path(n).stem for n in args.notebooks] or sorted(p.stem for p in (ROOT / "Notebooks").glob("*.json"))
    args.out.mkdir(parents=True, exist_ok=True)
    everything = photos(args.photos)
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            started = time.monotonic()
            tiles = []
            for photo_name, photo, depth in everything:
                out = Path(scratch) / f"{name}-{photo_name}.jpg"
                error = render(binary, ROOT / "Notebooks" / f"{name}.json", photo, depth, args.width, out, args.cell)
                tiles.append((photo_name, Image.open(out).convert("RGB") if error is None else None, error))
                failures += error is not None
            path = args.out / (f"{name}-{args.cell}.png" if args.cell else f"{name}.png")
            shown = f"cell {args.cell}" if args.cell else "last picture cell"
            sheet(tiles, args.width, f"{name}: {shown} on {len(tiles)} photos, {args.width} px").save(path)
            print(json.dumps({"notebook": name, "sheet": str(path), "photos": len(tiles),
                              "failed": [t[0] for t in tiles if t[1] is None], "seconds": round(time.monotonic() - started, 1)}),
                  flush=True)
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
