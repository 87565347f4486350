"""Expected values of formula cells on a small synthetic photo, in float32 as the engine computes them.

Run `python3 Tests/DepthbookEngineTests/References/formulas.py` and paste its output into `expected` in
Tests/DepthbookEffectsTests/FormulaValueTests.swift (which builds the same photo: an 8x2 image with bytes
(i * 37 + 11) % 256, a disparity 0.5 + 0.1 i with a hole at pixel 5, a skin matte i / 15).

The planes read as docs/formulas.md says: the image's bytes / 255; disparity and depth normalised to 0..1 over
the photo's range (holes: disparity 0, depth 1); mattes as they are.
"""
import numpy as np

f32 = np.float32
np.seterr(all="ignore")

n = 16
image = (np.arange(48) * 37 + 11) % 256
image = image.astype(f32).reshape(n, 3) * (f32(1.0) / f32(255.0))
d = f32(0.5) + f32(0.1) * np.arange(n).astype(f32)
d[5] = np.nan
skin = np.arange(n).astype(f32) / f32(15)


def normalize(x, hole):
    valid = x[~np.isnan(x)]
    lo, hi = valid.min(), valid.max()
    scale = f32(1) / (hi - lo)
    v = np.clip((x - lo) * scale, f32(0), f32(1))
    return np.where(np.isnan(x), f32(hole), v).astype(f32)


disparity = normalize(d, 0)
depth = normalize(f32(1) / d, 1)


def col(x):
    return x[:, None]


def smoothstep(e0, e1, x):
    t = np.clip((x - f32(e0)) / (f32(e1) - f32(e0)), f32(0), f32(1))
    return t * t * (f32(3) - f32(2) * t)


r, g, b = image[:, 0], image[:, 1], image[:, 2]
k = f32(3.5)
cases = {
    "mix": "mix(image, gray(disparity), skin)",
    "clamp": "clamp(image * 3 - 1, 0.2, 0.8)",
    "smoothstep": "smoothstep(0.2, 0.8, disparity)",
    "step": "step(0.5, skin)",
    "abs": "abs(image - 0.5)",
    "min": "min(image.r, image.g, image.b)",
    "max": "max(image.r, image.g, image.b)",
    "pow": "pow(image, 2.2)",
    "sqrt": "sqrt(skin)",
    "exp": "exp(disparity)",
    "log": "log(image + 0.01)",
    "luma": "luma(image)",
    "rgb": "rgb(disparity, skin, image.b)",
    "gray": "gray(skin)",
    "select": "image.g > 0.5 ? disparity : 1 - skin",
    "depth": "depth",
    "arithmetic": "$k(0..10 = 2) * skin - (image.r + 0.1) * 2 / 3 + skin ^ 2",
    "comparisons": "(skin < 0.3) + (skin >= 0.6) * 2 + (disparity == 0) * 4 + (skin > 0.5) * 8 + (skin <= 0.2) * 16 + (skin != 0) * 32",
}
values = {
    "mix": image + (col(disparity) - image) * col(skin),
    "clamp": np.clip(image * f32(3) - f32(1), f32(0.2), f32(0.8)),
    "smoothstep": smoothstep(0.2, 0.8, disparity),
    "step": np.where(skin < f32(0.5), f32(0), f32(1)),
    "abs": np.abs(image - f32(0.5)),
    "min": np.minimum(np.minimum(r, g), b),
    "max": np.maximum(np.maximum(r, g), b),
    "pow": np.power(image, f32(2.2)),
    "sqrt": np.sqrt(skin),
    "exp": np.exp(disparity),
    "log": np.log(image + f32(0.01)),
    "luma": f32(0.2126) * r + f32(0.7152) * g + f32(0.0722) * b,
    "rgb": np.stack([disparity, skin, b], axis=1),
    "gray": np.stack([skin, skin, skin], axis=1),
    "select": np.where(g > f32(0.5), disparity, f32(1) - skin),
    "depth": depth,
    "arithmetic": k * skin - (r + f32(0.1)) * f32(2) / f32(3) + np.power(skin, f32(2)),
    "comparisons": (skin < f32(0.3)).astype(f32) + (skin >= f32(0.6)).astype(f32) * f32(2)
    + (disparity == f32(0)).astype(f32) * f32(4) + (skin > f32(0.5)).astype(f32) * f32(8)
    + (skin <= f32(0.2)).astype(f32) * f32(16) + (skin != f32(0)).astype(f32) * f32(32),
}

for name, text in cases.items():
    v = np.asarray(values[name], dtype=f32).reshape(-1)
    assert v.dtype == f32 and not np.isnan(v).any(), name
    print(f'        ("{name}", "{text}", [' + ", ".join("%.9g" % x for x in v) + "]),")
