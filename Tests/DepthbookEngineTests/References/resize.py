"""Resampling reference, written independently of the engine: separable, half-pixel centres, edges clamped,
kernel widened by the reduction factor, weights normalised.
args: in_w in_h channels out_w out_h method (bilinear|bicubic|lanczos|nearest)"""
import numpy as np

from refcommon import args, load, save, shape

d, (iw, ih, c, ow, oh, method) = args()
iw, ih, c, ow, oh = int(iw), int(ih), int(c), int(ow), int(oh)
x = load(d, 0, shape(iw, ih, c)).astype(np.float64).reshape(ih, iw, c)


def kernel(t):
    a = np.abs(t)
    if method == "bilinear":
        return np.maximum(0, 1 - a)
    if method == "bicubic":
        A = -0.5
        return np.where(a <= 1, ((A + 2) * a - (A + 3)) * a * a + 1,
                        np.where(a < 2, ((A * a - 5 * A) * a + 8 * A) * a - 4 * A, 0))
    if method == "lanczos":
        return np.where(a < 3, np.sinc(t) * np.sinc(t / 3), 0)
    raise ValueError(method)


support = {"bilinear": 1, "bicubic": 2, "lanczos": 3}


def matrix(n_in, n_out):
    m = np.zeros((n_out, n_in))
    ratio = n_in / n_out
    for i in range(n_out):
        if method == "nearest":
            m[i, min(n_in - 1, int(np.floor((i + 0.5) * ratio)))] = 1
            continue
        stretch = max(1.0, ratio)
        centre = (i + 0.5) * ratio - 0.5
        s = support[method] * stretch
        js = np.arange(int(np.floor(centre - s)) - 1, int(np.ceil(centre + s)) + 2)
        w = kernel((js - centre) / stretch)
        w = w / w.sum()
        for j, wj in zip(js, w):
            m[i, min(n_in - 1, max(0, j))] += wj
    return m


mx, my = matrix(iw, ow), matrix(ih, oh)
out = np.einsum("yi,ixc->yxc", my, np.einsum("xj,ijc->ixc", mx, x))
save(d, out)
