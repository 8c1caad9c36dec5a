"""Timing and summary helpers shared by every phase."""

from __future__ import annotations

import os
import time
from typing import Callable, Iterable


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    rank = max(1, min(len(s), int(-(-p * len(s) // 100))))  # ceil(p/100 * n), clamped
    return s[rank - 1]


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
