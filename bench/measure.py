"""Timing and summary helpers shared by every phase."""

from __future__ import annotations

import os
import time
from typing import Callable, Iterable

# One nearest-rank percentile for the whole project: the eval report's (also imported from here).
from s2r_tutor.evaluation.metrics import percentile  # noqa: F401  (re-exported)


def summarize(ms: list[float]) -> dict:
    """p50/p95/p99/mean/max of millisecond samples, rounded for the report."""
    if not ms:
        return {"n": 0}
    return {"n": len(ms), "p50": round(percentile(ms, 50), 3), "p95": round(percentile(ms, 95), 3),
            "p99": round(percentile(ms, 99), 3), "mean": round(sum(ms) / len(ms), 3), "max": round(max(ms), 3)}


def time_each(fn: Callable, items: Iterable, reps: int = 1, warmup: int = 2) -> list[float]:
    """Milliseconds of `fn(item)` for every item, `reps` passes, after `warmup` untimed calls."""
    items = list(items)
    for item in items[:warmup]:
        fn(item)
    out = []
    for _ in range(reps):
        for item in items:
            t0 = time.perf_counter()
            fn(item)
            out.append((time.perf_counter() - t0) * 1000)
    return out


def timed(fn: Callable, *args, **kwargs) -> tuple[object, float]:
    """(result, seconds) of one call."""
    t0 = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - t0


def loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []
