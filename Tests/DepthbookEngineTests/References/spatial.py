"""Spatial references: box (uniform_filter), motion blur and affine (map_coordinates, bilinear, edges
clamped), guided filter (He et al., box means with uniform_filter). Float64.
args: op width height channels [params...]"""
import numpy as np
from scipy import ndimage

from refcommon import args, load, save, shape

d, (op, w, h, c, *p) = args()
w, h, c = int(w), int(h), int(c)
img = load(d, 0, shape(w, h, c)).astype(np.float64).reshape(h, w, c)


def per_channel(f):
    return np.stack([f(img[..., i]) for i in range(c)], -1)


def sample(a, ys, xs):
    return ndimage.map_coordinates(a, [ys, xs], order=1, mode="nearest")


if op == "box":
    r = int(p[0])
    out = per_channel(lambda a: ndimage.uniform_filter(a, 2 * r + 1, mode="nearest"))
elif op == "motion":
    r, ang = int(p[0]), np.deg2rad(float(p[1]))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    out = per_channel(lambda a: np.mean([sample(a, yy + t * np.sin(ang), xx + t * np.cos(ang)) for t in range(-r, r + 1)], 0))
elif op == "affine":
    A, B, C, D, TX, TY = map(float, p)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    u, v = xx + 0.5 - TX, yy + 0.5 - TY
    det = A * D - B * C
    sx, sy = (D * u - C * v) / det - 0.5, (-B * u + A * v) / det - 0.5
    out = per_channel(lambda a: sample(a, sy, sx))
elif op == "guided":
    r, eps = int(p[0]), float(p[1])
    guide = load(d, 1, (h, w, 3)).astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    src = img[..., 0]
    box = lambda a: ndimage.uniform_filter(a, 2 * r + 1, mode="nearest")
    mi, mp = box(guide), box(src)
    a = (box(guide * src) - mi * mp) / (box(guide * guide) - mi * mi + eps)
    b = mp - a * mi
    out = (box(a) * guide + box(b))[..., None]
else:
    raise ValueError(op)
save(d, out)
