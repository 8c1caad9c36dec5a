"""How many threads numpy's BLAS may use in this process (`Settings.blas_threads`)."""

from __future__ import annotations

import logging

log = logging.getLogger("s2r_tutor")


def limit_blas_threads(n: int) -> None:
    """Cap the BLAS libraries loaded so far (numpy's OpenBLAS, FAISS's) at `n` threads; 0 leaves them alone.

    Why: the answerer's neighbour votes (acts, their ask clauses, customer stories) are matrix-vector
    products of a few thousand rows. A threaded OpenBLAS keeps its threads spinning after each one, on the
    cores the embedder's OpenMP threads need next: on 2 cores `ask` measured p50 111 ms / p95 220 ms with
    the default threads and 15 / 30 ms with one (bench/RESULTS.md has the run). It is process-wide, as
    BLAS thread pools are; a host application that wants threaded BLAS sets `blas_threads=0`.
    """
    if n <= 0:
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # an install without it answers correctly, only slower under threads
        log.info("threadpoolctl is not installed: BLAS threads left as they are")
        return
    threadpool_limits(limits=n, user_api="blas")
