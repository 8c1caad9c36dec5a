"""The gate is real: with retrieval broken, `s2r-tutor eval` exits 3 and says which metrics failed."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from s2r_tutor import embedders
from s2r_tutor.cli import EXIT_GATE, EXIT_USAGE, main
from s2r_tutor.errors import EvalCaseError
from s2r_tutor.settings import PROJECT_ROOT

CASES = PROJECT_ROOT / "tests" / "eval" / "cases.jsonl"


class NoiseEmbedder:
    """Random unit vectors (seeded by the text, so runs repeat): an embedder that knows nothing."""

    id = "noise-test"
    dim = 64

    def _embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
            rows.append(np.random.default_rng(seed).standard_normal(self.dim))
        return embedders.l2_normalize(np.array(rows))

    embed_queries = embed_passages = _embed


@pytest.fixture
def noise(monkeypatch):
    monkeypatch.setitem(embedders.BACKENDS, "noise", lambda model: NoiseEmbedder())
    monkeypatch.setenv("S2R_EMBEDDER", "noise")
    # Rank by the (noisy) dense scores alone, so BM25 cannot rescue retrieval.
    monkeypatch.setenv("S2R_FUSION", "weighted")
    monkeypatch.setenv("S2R_DENSE_WEIGHT", "1.0")


def test_noise_embedder_fails_the_gate(noise, tmp_path, capsys):
    report_file = tmp_path / "report.json"
    rc = main(["--index-dir", str(tmp_path / "index"), "eval", "--cases", str(CASES),
               "--report", str(report_file)])
    out = capsys.readouterr().out
    assert rc == EXIT_GATE
    report = json.loads(report_file.read_text(encoding="utf-8"))
    assert report["embedder"] == "noise-test" and report["passed"] is False
    assert {"hit_at_1", "hit_at_3", "mrr"} <= set(report["failed_metrics"])
    assert report["metrics"]["hit_at_1"] < 0.5
    assert "eval gate: FAILED" in out and "retrieval hit@1" in out and "failing cases:" in out


def test_min_flag_and_bad_cases_file(noise, tmp_path, capsys):
    # Thresholds lowered to zero by flags: the same broken run passes the gate (flags are applied).
    flags = [f"--min={k}=0" for k in ("hit_at_1", "hit_at_3", "mrr", "intent_accuracy", "act_accuracy", "citation_validity",
                                       "citation_relevance", "keypoint_coverage", "refusal_precision",
                                       "refusal_recall")]
    small = tmp_path / "small.jsonl"
    small.write_text("\n".join(CASES.read_text(encoding="utf-8").splitlines()[:5]) + "\n", encoding="utf-8")
    rc = main(["--index-dir", str(tmp_path / "index"), "eval", "--cases", str(small), "--json", *flags])
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["passed"] and report["thresholds"]["hit_at_1"] == 0.0
    assert main(["eval", "--cases", str(small), "--min", "speed=1"]) == EXIT_USAGE
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    with pytest.raises(EvalCaseError, match=r"bad\.jsonl:1: invalid case"):
        from s2r_tutor.evaluation.cases import load_cases
        load_cases(bad)
    assert main(["eval", "--cases", str(bad)]) == 1
    assert "bad.jsonl:1" in capsys.readouterr().err
