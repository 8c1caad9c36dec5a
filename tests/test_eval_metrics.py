"""Metric functions and aggregation on hand-built inputs; `--min` parsing; the rendered table."""

from __future__ import annotations

import pytest

from s2r_tutor.evaluation import metrics as m
from s2r_tutor.evaluation.cli import UsageError, parse_min
from s2r_tutor.evaluation.report import failures, metrics_table, verdict
from s2r_tutor.evaluation.runner import CaseResult, CitationCheck, EvalReport, LatencyStats, aggregate
from s2r_tutor.settings import EvalThresholds


def test_ranks_hits_and_mrr():
    ranked = ["a#x", "a#y", "a#z"]
    assert m.first_rank(ranked, ["a#y", "a#z"]) == 2
    assert m.first_rank(ranked, ["b#q"]) is None
    assert m.hit_at(2, 1) is False and m.hit_at(2, 3) is True and m.hit_at(None, 3) is False
    assert m.reciprocal_rank(4) == 0.25 and m.reciprocal_rank(None) == 0.0


def test_quote_must_be_an_exact_nonblank_span():
    text = "仿真永远只是现实世界的近似，这种差异通常被称为 Reality Gap。"
    assert m.quote_is_span("这种差异通常被称为 Reality Gap", text)
    assert not m.quote_is_span("这种差异被称为 Reality Gap", text)  # paraphrase is not a quote
    assert not m.quote_is_span("  ", text)


def test_keypoints_use_normalized_containment():
    hay = "The *reality  gap*: 摩擦系数可能不准确（见 [1]）"
    assert m.keypoints_found(["Reality Gap", "摩擦系数", "重力", "!!"], hay) == [True, True, False, False]
    assert m.keypoints_found(["强化学习 ≠ Sim2Real"], "但强化学习 ≠ Sim2Real，两者") == [True]


def test_refusal_scores_and_vacuous_cases():
    should = [True, True, False, False]
    assert m.refusal_scores(should, [True, False, True, False]) == (0.5, 0.5)
    assert m.refusal_scores(should, [False] * 4) == (1.0, 0.0)  # nothing refused: precision vacuous
    assert m.refusal_scores([False, False], [False, False]) == (1.0, 1.0)


def test_mean_ratio_percentile():
    assert m.mean([]) == 1.0 and m.mean([], 0.0) == 0.0 and m.mean([1, 0]) == 0.5
    assert m.ratio(0, 0) == 1.0 and m.ratio(1, 4) == 0.25
    vals = [float(v) for v in range(1, 101)]
    assert m.percentile(vals, 50) == 50 and m.percentile(vals, 95) == 95 and m.percentile([], 50) == 0.0
    assert m.percentile([7.0], 95) == 7.0


def result(**kw) -> CaseResult:
    base = dict(id="c", where="f:1", question="q", language="zh", multi_turn=False, out_of_scope=False,
                expected_sections=["04-08#a"], expected_intent="definition")
    return CaseResult(**{**base, **kw})


def cite(valid=True, relevant=True) -> CitationCheck:
    return CitationCheck(marker=1, chunk_id="04-08#a", section_id="04-08#a", valid=valid, relevant=relevant)


def test_aggregate_on_hand_built_results():
    rs = [
        result(id="1", retrieval_scored=True, rank=1, intent="definition", refused=False,
               citations=[cite(), cite(valid=False, relevant=False)], key_points_found=["x", "y"]),
        result(id="2", retrieval_scored=True, rank=2, intent="methods", refused=False,
               citations=[cite(relevant=False)], key_points_found=["x"], key_points_missing=["z"]),
        result(id="3", multi_turn=True, intent="definition", refused=True),  # not retrieval-scored
        result(id="4", out_of_scope=True, expected_sections=[], expected_intent="out_of_scope",
               intent="out_of_scope", refused=True),
        result(id="5", out_of_scope=True, expected_sections=[], expected_intent="out_of_scope",
               intent="definition", refused=False, citations=[cite(relevant=False)]),
    ]
    got = aggregate(rs)
    assert got["hit_at_1"] == 0.5 and got["hit_at_3"] == 1.0 and got["mrr"] == 0.75
    assert got["intent_accuracy"] == 3 / 5
    assert got["citation_validity"] == 3 / 4
    assert got["citation_relevance"] == 1 / 3  # in scope: only case 1 cites an expected section
    assert got["keypoint_coverage"] == 3 / 4
    assert got["refusal_precision"] == 1 / 2 and got["refusal_recall"] == 1 / 2
    assert set(got) == set(EvalThresholds.model_fields), "every gated metric is computed"


def test_parse_min_overrides_settings_thresholds():
    base = EvalThresholds()
    t = parse_min(["hit_at_1=0.5", "hit@3=0.6", "intent-accuracy=0"], base)
    assert (t.hit_at_1, t.hit_at_3, t.intent_accuracy, t.mrr) == (0.5, 0.6, 0.0, base.mrr)
    for bad, msg in [("speed=1", "METRIC one of"), ("hit_at_1", "METRIC=VALUE"),
                     ("mrr=high", "not a number"), ("mrr=2", "between 0 and 1")]:
        with pytest.raises(UsageError, match=msg):
            parse_min([bad], base)


def test_report_rendering_lists_failed_metrics_and_cases():
    rs = [result(id="ok1", retrieval_scored=True, rank=1, intent="definition", refused=False),
          result(id="bad1", where="cases.jsonl:7", retrieval_scored=True, rank=None, intent="methods",
                 refused=False, problems=["intent: got methods, expected definition"])]
    report = EvalReport(cases_file="cases.jsonl", corpus_dir="corpus", embedder="e", n_cases=2, n_in_scope=2,
                        n_out_of_scope=0, n_multi_turn=0, n_retrieval=2,
                        metrics={"hit_at_1": 0.5, "mrr": 0.5},
                        by_language={"zh": {"hit_at_1": 0.5, "mrr": 0.5}}, thresholds={"hit_at_1": 0.85, "mrr": 0.1},
                        failed_metrics=["hit_at_1"], passed=False,
                        latency=LatencyStats(mean_ms=1, p50_ms=1, p95_ms=2, max_ms=2), results=rs)
    table = metrics_table(report)
    assert table.splitlines()[1].split() == ["metric", "name", "value", "zh", "min", "status"]
    assert "retrieval hit@1" in table and "FAIL" in table and "0.500" in table and "p95 2" in table
    text = failures(report)
    assert "failing cases: 1 of 2" in text and "bad1 (cases.jsonl:7)" in text and "intent: got methods" in text
    assert verdict(report) == "eval gate: FAILED (hit_at_1 0.500 < 0.85)"
    dumped = report.model_dump()
    assert dumped["results"][1]["ok"] is False and dumped["results"][0]["ok"] is True
