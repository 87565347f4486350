"""Grey morphology reference: scipy.ndimage grey_dilation/erosion with a disc or square footprint,
edges 'nearest'. args: width height channels op shape radius"""
import numpy as np
from scipy import ndimage

from refcommon import args, load, save, shape

d, (w, h, c, op, shp, r) = args()
r = float(r)
R = int(np.floor(r))
y, x = np.mgrid[-R:R + 1, -R:R + 1]
fp = (x * x + y * y <= r * r) if shp == "disc" else np.ones_like(x, bool)
img = load(d, 0, shape(w, h, c)).astype(np.float32)


def one(a):
    dil = lambda z: ndimage.grey_dilation(z, footprint=fp, mode="nearest")
    ero = lambda z: ndimage.grey_erosion(z, footprint=fp, mode="nearest")
    return {"dilate": dil, "erode": ero, "open": lambda z: dil(ero(z)), "close": lambda z: ero(dil(z))}[op](a)


out = one(img) if int(c) == 1 else np.stack([one(img[..., i]) for i in range(int(c))], -1)
save(d, out)
