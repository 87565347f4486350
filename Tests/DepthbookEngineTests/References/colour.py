"""Colour references in numpy (float64), written from the formulas' definitions.
args: op [params...]; in0 = RGB samples (n x 3); in1 = second image; in2 = plane (for sourceOver)."""
import os

import numpy as np

from refcommon import args, save

d, (op, *p) = args()


def load(i, c):
    return np.fromfile(os.path.join(d, f"in{i}.f32"), dtype="<f4").astype(np.float64).reshape(-1, c)


x = load(0, 3)
Y = x @ np.array([0.299, 0.587, 0.114])


def to_lin(v):
    a = np.abs(v)
    return np.sign(v) * np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4)


def to_srgb(v):
    a = np.abs(v)
    return np.sign(v) * np.where(a <= 0.0031308, a * 12.92, 1.055 * a ** (1 / 2.4) - 0.055)


if op == "toLinear":
    out = to_lin(x)
elif op == "toSRGB":
    out = to_srgb(x)
elif op == "exposure":
    out = to_srgb(to_lin(x) * 2.0 ** float(p[0]))
elif op == "colorControls":
    s, b, c = map(float, p)
    out = ((Y[:, None] + (x - Y[:, None]) * s + b) - 0.5) * c + 0.5
elif op == "vibrance":
    a = float(p[0])
    spread = np.clip(x.max(1) - x.min(1), 0, 1)
    f = 1 + a * (1 - spread)
    out = Y[:, None] + (x - Y[:, None]) * f[:, None]
elif op == "multiply":
    out = x * load(1, 3)
elif op == "screen":
    out = 1 - (1 - x) * (1 - load(1, 3))
elif op == "add":
    out = x + load(1, 3)
elif op == "sourceOver":
    a = load(2, 1)
    out = x * a + load(1, 3) * (1 - a)
elif op == "maxComponent":
    out = np.repeat(x.max(1, keepdims=True), 3, 1)
elif op == "gamma":
    out = np.sign(x) * np.abs(x) ** float(p[0])
else:
    raise ValueError(op)
save(d, out)
