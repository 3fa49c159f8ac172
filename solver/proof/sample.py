"""What a sample of a proof's classes says about the whole proof: its projected CPU time, with an
interval, its tail and its memory.

A sample is the first N classes of the seeded class order (`ProofPlan.canonical_order`), a
uniform random sample of the canonical classes drawn without replacement, so the mean CPU
time of a sampled class times the canonical class count estimates the whole proof's CPU time
without bias. The interval is a BCa bootstrap interval of that mean (bias-corrected and
accelerated: the acceleration, from the jackknife, widens the upper side for the right-skewed
per-class times a proof has, where a plain percentile or normal interval is too narrow there),
from `RESAMPLES` resamples drawn by the seed, so the same records give the same interval.
No interval computed from a sample can allow for classes heavier than any it holds: the tail
(the largest classes' times and the share of the projection they carry) says how much the
estimate leans on a few classes; when that share is large, prove more classes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..errors import ParameterError

RESAMPLES = 10_000
CONFIDENCE = 0.95
TAIL = 5            # the largest classes listed (and whose share is given)
TOP_SHARE = 0.01    # ... and the share of the projection from this fraction of the sample, the largest


@dataclass(frozen=True)
class Projection:
    """The projected CPU-seconds of a whole proof from a sample of its classes."""

    sampled: int               # classes in the sample
    classes: int               # canonical classes of the whole proof
    mean: float                # CPU-seconds per sampled class
    median: float
    total: float               # mean x classes
    low: float | None          # the CONFIDENCE interval of total (None with fewer than two classes)
    high: float | None
    tail: list[tuple[int, float]]  # the TAIL largest (class id, CPU-seconds), largest first
    top_count: int             # the ceil(TOP_SHARE x sampled) largest classes ...
    top_share: float           # ... carry this share of the sample's CPU time (so of the projection)
    tail_share: float          # the TAIL largest carry this share

    def to_dict(self) -> dict:
        return {"sampled": self.sampled, "classes": self.classes, "mean_cpu_seconds": round(self.mean, 3),
                "median_cpu_seconds": round(self.median, 3), "projected_cpu_seconds": round(self.total),
                "interval": None if self.low is None else {"low": round(self.low), "high": round(self.high),
                                                           "confidence": CONFIDENCE, "method": "BCa bootstrap",
                                                           "resamples": RESAMPLES},
                "tail": [{"class_id": c, "cpu_seconds": round(s, 3)} for c, s in self.tail],
                "top_share": {"classes": self.top_count, "share": round(self.top_share, 4)},
                "tail_share": {"classes": len(self.tail), "share": round(self.tail_share, 4)}}


def project(class_seconds: dict[int, float], classes: int, seed: int = 0) -> Projection:
    """The projection of a proof of `classes` canonical classes from the CPU-seconds of a
    uniform sample of them (class id -> seconds); the interval's resamples are drawn by `seed`."""
    if not class_seconds:
        raise ParameterError("sample", "no class proved: nothing to project from")
    ids = sorted(class_seconds, key=lambda c: (-class_seconds[c], c))
    times = np.array([class_seconds[c] for c in ids], np.float64)
    n, whole = len(times), float(times.sum())
    mean = whole / n
    low, high = _bca_mean(times, seed) if n > 1 else (None, None)
    top = math.ceil(TOP_SHARE * n)
    shares = [float(times[:k].sum()) / whole if whole > 0 else 0.0 for k in (top, min(TAIL, n))]
    return Projection(n, classes, mean, float(np.median(times)), mean * classes,
                      None if low is None else low * classes, None if high is None else high * classes,
                      [(c, class_seconds[c]) for c in ids[:TAIL]], top, *shares)


def _bca_mean(times: np.ndarray, seed: int) -> tuple[float, float]:
    """The BCa bootstrap CONFIDENCE interval of the mean of `times` (Efron and Tibshirani,
    An Introduction to the Bootstrap, ch. 14)."""
    n, mean = len(times), float(times.mean())
    if np.all(times == times[0]):
        return mean, mean
    rng = np.random.default_rng(seed)
    means = np.concatenate([times[rng.integers(0, n, (min(1000, RESAMPLES - done), n))].mean(axis=1)
                            for done in range(0, RESAMPLES, 1000)])
    normal = NormalDist()
    below = (np.count_nonzero(means < mean) + 0.5 * np.count_nonzero(means == mean)) / RESAMPLES
    bias = normal.inv_cdf(min(max(below, 1 / RESAMPLES), 1 - 1 / RESAMPLES))
    jack = (times.sum() - times) / (n - 1)  # the mean without each class
    spread = jack.mean() - jack
    squares = float((spread ** 2).sum())
    accel = float((spread ** 3).sum()) / (6 * squares ** 1.5) if squares > 0 else 0.0
    ends = []
    for alpha in ((1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2):
        z = bias + normal.inv_cdf(alpha)
        ends.append(float(np.quantile(means, normal.cdf(bias + z / (1 - accel * z)))))
    return ends[0], ends[1]
