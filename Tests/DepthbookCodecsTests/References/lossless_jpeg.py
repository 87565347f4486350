"""Writes the lossless JPEG (SOF3) fixtures of LosslessJPEGTests with encoders that are not Depthbook's.

    python3 Tests/DepthbookCodecsTests/References/lossless_jpeg.py

Needs numpy and imagecodecs (PyPI; 2026.3.6 was used), and a C compiler for ljpeg_encode.c. Encoders:
- imagecodecs.jpeg8_encode(lossless=True): libjpeg-turbo 3.1 (bundled in the wheel), predictors 1-7,
  2 to 16 bits;
- imagecodecs.ljpeg_encode: liblj92 (predictor 6, 16 bits), a second, unrelated encoder;
- ljpeg_encode.c: the same libjpeg-turbo 3.1 through its libjpeg API, for what jpeg8_encode does not
  expose: a point transform and restart intervals.

Every fixture is a 48x32 depth-like map (`depth16.u16`, little-endian uint16: a ground plane growing
towards the bottom, a near disc, noise, zero holes, and a sample of 32768 beside a hole so that a
difference of category 16 occurs), reduced to the fixture's precision (`value >> (16 - precision)`),
with the point transform's low bits cleared. `lossless-jpeg.json` lists each file with its parameters;
the script checks every file against libjpeg-turbo's own decoder before writing the list.
`disparity-half.jpg` stores the same map as half-float disparity bit patterns (Apple's 'hdis'), with
`disparity-half.f32` the values numpy reads them as.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

import imagecodecs
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "LosslessJPEG")
WIDTH, HEIGHT = 48, 32


def source_map():
    rng = np.random.default_rng(26)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)
    ground = 6000 + 30000 * y / (HEIGHT - 1)
    disc = ((x - 30) ** 2 + (y - 12) ** 2) <= 49
    values = np.where(disc, 61000 + 40 * (x - 30), ground)
    values += rng.normal(0, 400, values.shape)
    values = np.clip(np.rint(values), 1, 65535).astype(np.uint16)
    # Holes: a blob and a scattered few.
    values[3:7, 4:11] = 0
    values[rng.integers(0, HEIGHT, 12), rng.integers(0, WIDTH, 12)] = 0
    # 32768 right after a hole: the difference from its left neighbour is exactly 2^15 (category 16).
    values[20, 9] = 0
    values[20, 10] = 32768
    values[20, 11] = 65535
    return values


def build_helper(workdir):
    """Compiles ljpeg_encode.c against the wheel's libjpeg-turbo 3 (libjpeg v8 ABI)."""
    libs = os.path.join(os.path.dirname(os.path.dirname(imagecodecs.__file__)), "imagecodecs.libs")
    lib = sorted(glob.glob(os.path.join(libs, "libjpeg-*")))[0]
    with open("/usr/include/x86_64-linux-gnu/jconfig.h") as f:
        config = f.read().replace("#define JPEG_LIB_VERSION  62", "#define JPEG_LIB_VERSION  80")
    with open(os.path.join(workdir, "jconfig.h"), "w") as f:
        f.write(config)
    exe = os.path.join(workdir, "ljpeg_encode")
    subprocess.run(["cc", "-O1", "-I", workdir, "-o", exe, os.path.join(HERE, "ljpeg_encode.c"), lib,
                    "-Wl,-rpath," + libs], check=True)
    return exe


def sof3(data):
    """(precision, predictor, point transform, restart interval) as the stream states them."""
    i = data.index(b"\xff\xc3")
    precision = data[i + 4]
    s = data.index(b"\xff\xda")
    n = data[s + 4]
    predictor = data[s + 5 + 2 * n]
    point = data[s + 7 + 2 * n] & 0x0F
    d = data.find(b"\xff\xdd")
    restart = (data[d + 4] << 8 | data[d + 5]) if 0 <= d < s else 0
    return precision, predictor, point, restart


def main():
    os.makedirs(OUT, exist_ok=True)
    src = source_map()
    src.astype("<u2").tofile(os.path.join(OUT, "depth16.u16"))
    fixtures = []

    def add(name, data, encoder, precision, point=0):
        expected = (src >> (16 - precision)) >> point << point
        decoded = imagecodecs.jpeg8_decode(data)
        assert np.array_equal(decoded, expected), name
        stated = sof3(data)
        assert stated[0] == precision and stated[2] == point, (name, stated)
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        fixtures.append({"file": name, "encoder": encoder, "width": WIDTH, "height": HEIGHT, "precision": precision,
                         "predictor": stated[1], "pointTransform": point, "restartInterval": stated[3]})

    for predictor in range(1, 8):
        data = imagecodecs.jpeg8_encode(src, lossless=True, predictor=predictor, bitspersample=16)
        add(f"depth16-p{predictor}.jpg", data, "libjpeg-turbo 3.1 (imagecodecs.jpeg8_encode)", 16)
    for bits, predictor in [(12, 7), (8, 1), (2, 4)]:
        reduced = src >> (16 - bits)
        data = imagecodecs.jpeg8_encode(reduced.astype(np.uint16 if bits > 8 else np.uint8), lossless=True,
                                        predictor=predictor, bitspersample=bits)
        add(f"depth{bits}-p{predictor}.jpg", data, "libjpeg-turbo 3.1 (imagecodecs.jpeg8_encode)", bits)
    add("depth16-lj92.jpg", imagecodecs.ljpeg_encode(src, bitspersample=16), "liblj92 (imagecodecs.ljpeg_encode)", 16)

    with tempfile.TemporaryDirectory() as work:
        exe = build_helper(work)
        raw = os.path.join(work, "in.u16")
        src.astype("<u2").tofile(raw)
        # predictor, point transform, restart interval in MCUs, in rows
        for name, predictor, point, mcus, rows in [("depth16-p6-pt2-rst3rows.jpg", 6, 2, 0, 3),
                                                   ("depth16-p7-rst1row.jpg", 7, 0, WIDTH, 0)]:
            out = os.path.join(work, name)
            subprocess.run([exe, raw, str(WIDTH), str(HEIGHT), "16", str(predictor), str(point), str(mcus), str(rows), out],
                           check=True)
            with open(out, "rb") as f:
                add(name, f.read(), "libjpeg-turbo 3.1 (ljpeg_encode.c)", 16, point)

    # Half floats, as Apple's native 'hdis' format: disparity 0.5...2.5 from the same map, NaN in its holes,
    # stored as the float16 bit patterns; numpy's float16 -> float32 gives the expected values.
    disparity = np.where(src == 0, np.nan, 0.5 + 2.0 * (src.astype(np.float64) - 1) / 65534).astype(np.float16)
    half = imagecodecs.jpeg8_encode(disparity.view(np.uint16), lossless=True, predictor=1, bitspersample=16)
    assert np.array_equal(imagecodecs.jpeg8_decode(half), disparity.view(np.uint16))
    with open(os.path.join(OUT, "disparity-half.jpg"), "wb") as f:
        f.write(half)
    disparity.astype("<f4").tofile(os.path.join(OUT, "disparity-half.f32"))

    with open(os.path.join(OUT, "lossless-jpeg.json"), "w") as f:
        json.dump({"source": "depth16.u16", "fixtures": fixtures, "halfFloat": {"file": "disparity-half.jpg", "expected": "disparity-half.f32"}},
                  f, indent=1)
        f.write("\n")
    for fx in fixtures:
        print(fx["file"], os.path.getsize(os.path.join(OUT, fx["file"])), "bytes", fx)


if __name__ == "__main__":
    sys.exit(main())
