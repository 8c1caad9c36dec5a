"""The benchmark's quick mode runs end to end and its report has every section (no timing asserts)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from s2r_tutor.settings import PROJECT_ROOT

pytest.importorskip("rank_bm25")
pytest.importorskip("bm25s")
pytest.importorskip("psutil")


@pytest.mark.slow
def test_quick_bench_writes_every_section(tmp_path):
    from bench.report import SECTIONS

    out, raw = tmp_path / "RESULTS.md", tmp_path / "results.json"
    p = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out), "--json", str(raw)],
                       cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    text = out.read_text("utf-8")
    positions = [text.find(s) for s in SECTIONS]
    assert all(pos >= 0 for pos in positions), [s for s, pos in zip(SECTIONS, positions) if pos < 0]
    assert positions == sorted(positions), "sections out of order"
    for needle in ("hit@1", "MRR", "p95", "s2r-tutor --help", "Tutor.load()", "rank_bm25", "bm25s", "**ours**",
                   "hnsw", "ivf", "recall@10", "passages/s", "peak RSS", "faiss-cpu"):
        assert needle in text, needle
    res = json.loads(raw.read_text("utf-8"))
    failed = {k: v["error"] for k, v in res["quality"].items() if "error" in v}
    failed.update({f"{r.get('impl', r.get('kind'))}": r["error"] for r in res["sparse"] + res["dense"] if "error" in r})
    assert not failed, failed


def test_synthetic_tokens_equal_tokenizing_the_text():
    from bench import synth
    from s2r_tutor.retrieval.tokenize import make_tokenizer

    tokenizer = make_tokenizer()
    pool = synth.card_sentences()
    corpus = synth.make_corpus(pool, 200, seed=3)
    toks = synth.tokens(pool, corpus, tokenizer, check=200)  # raises if composing differs
    assert len(toks) == 200 and all(toks)


def test_percentile_nearest_rank():
    from bench.measure import percentile, summarize

    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50 and percentile(values, 95) == 95 and percentile(values, 99) == 99
    assert summarize([]) == {"n": 0}
    assert summarize([3.0])["p99"] == 3.0
