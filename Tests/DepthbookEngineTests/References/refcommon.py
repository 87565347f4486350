"""Helpers for the engine's numpy/scipy references: raw float32 in/out in a temp dir."""
import os
import sys

import numpy as np


def load(d, i, shape):
    return np.fromfile(os.path.join(d, f"in{i}.f32"), dtype="<f4").reshape(shape)


def save(d, arr):
    np.ascontiguousarray(arr, dtype="<f4").tofile(os.path.join(d, "out.f32"))


def args():
    return sys.argv[1], sys.argv[2:]


def shape(w, h, c):
    w, h, c = int(w), int(h), int(c)
    return (h, w) if c == 1 else (h, w, c)
