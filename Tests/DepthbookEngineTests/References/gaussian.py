"""Gaussian blur reference: scipy.ndimage.gaussian_filter, edges 'nearest', truncate 3, per channel.
args: width height channels sigma"""
import numpy as np
from scipy import ndimage

from refcommon import args, load, save, shape

d, (w, h, c, sigma) = args()
x = load(d, 0, shape(w, h, c)).astype(np.float64)
s = float(sigma)
sig = (s, s) if int(c) == 1 else (s, s, 0)
save(d, ndimage.gaussian_filter(x, sig, mode="nearest", truncate=3.0))
