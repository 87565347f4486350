"""Disc (bokeh) mean reference: scipy.ndimage.correlate with a flat disc x^2+y^2 <= r^2, edges 'nearest'.
args: width height channels radius"""
import numpy as np
from scipy import ndimage

from refcommon import args, load, save, shape

d, (w, h, c, r) = args()
r = float(r)
R = int(np.floor(r))
y, x = np.mgrid[-R:R + 1, -R:R + 1]
k = (x * x + y * y <= r * r).astype(np.float64)
k /= k.sum()
img = load(d, 0, shape(w, h, c)).astype(np.float64)
if int(c) == 1:
    out = ndimage.correlate(img, k, mode="nearest")
else:
    out = np.stack([ndimage.correlate(img[..., i], k, mode="nearest") for i in range(int(c))], -1)
save(d, out)
