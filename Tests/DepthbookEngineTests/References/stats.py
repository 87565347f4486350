"""Statistics reference: np.percentile (linear) of the non-NaN samples at the given percentiles, then
np.histogram over [min, max] with the given bins. Output: percentiles..., counts..., holes.
args: bins p1 p2 ..."""
import numpy as np

from refcommon import args, save
import os

d, rest = args()
bins = int(rest[0])
ps = [float(p) for p in rest[1:]]
v = np.fromfile(os.path.join(d, "in0.f32"), dtype="<f4")
valid = v[~np.isnan(v)]
pct = [np.percentile(valid.astype(np.float64), p) for p in ps]
counts, _ = np.histogram(valid, bins=bins, range=(float(valid.min()), float(valid.max())))
save(d, np.array(pct + list(counts) + [np.isnan(v).sum()], np.float64))
