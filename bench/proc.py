"""Run one benchmark phase in a fresh interpreter and read back its JSON result + peak memory.

Every phase runs in its own process so that its peak RSS (`ru_maxrss`) belongs to it alone and no
phase warms a cache for the next one. The child prints one JSON line after `MARK` on stdout;
everything else (progress, library logs) goes to stderr, which is shown only on failure.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

MARK = "@@bench-result@@"
ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def run_phase(target: str, kwargs: dict | None = None, env: dict | None = None, timeout: float = 600) -> dict:
    """Call `module:function(**kwargs)` in a child interpreter; its dict result gains `peak_rss_mb`
    and `wall_s` (the whole child, interpreter start included)."""
    cmd = [sys.executable, "-m", "bench.proc", target, json.dumps(kwargs or {})]
    child_env = {**os.environ, **(env or {})}
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, env=child_env, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    for line in reversed(p.stdout.splitlines()):
        if line.startswith(MARK):
            result = json.loads(line[len(MARK):])
            result["wall_s"] = round(wall, 3)
            return result
    raise RuntimeError(f"phase {target} failed (exit {p.returncode}):\n{p.stderr[-3000:]}")


def stop(proc: subprocess.Popen, timeout: float = 15) -> None:
    """Terminate a server the bench started; kill it when it does not stop within `timeout`."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def _child(target: str, kwargs_json: str) -> None:
    module, func = target.split(":")
    result = getattr(importlib.import_module(module), func)(**json.loads(kwargs_json))
    result["peak_rss_mb"] = peak_rss_mb()
    sys.stdout.write(MARK + json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    _child(sys.argv[1], sys.argv[2])
