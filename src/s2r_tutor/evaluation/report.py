"""Plain-text rendering of an EvalReport: the metrics table (for CI logs) and the failing cases."""

from __future__ import annotations

from ..textable import table
from .runner import EvalReport

LABELS = {
    "hit_at_1": "retrieval hit@1",
    "hit_at_3": "retrieval hit@3",
    "mrr": "retrieval MRR",
    "intent_accuracy": "intent accuracy",
    "act_accuracy": "act accuracy",
    "citation_validity": "citation validity",
    "citation_relevance": "citation relevance",
    "keypoint_coverage": "key-point coverage",
    "refusal_precision": "refusal precision",
    "refusal_recall": "refusal recall",
}


def metrics_table(report: EvalReport) -> str:
    langs = sorted(report.by_language)
    rows = []
    for key, value in report.metrics.items():
        limit = report.thresholds.get(key)
        status = "FAIL" if key in report.failed_metrics else "ok"
        per_lang = tuple(f"{report.by_language[lang].get(key, 0.0):.3f}" for lang in langs)
        rows.append((LABELS.get(key, key), key, f"{value:.3f}", *per_lang,
                     "-" if limit is None else f"{limit:.2f}", status))
    lat = report.latency
    rows.append(("latency per case (ms)", "-", f"p50 {lat.p50_ms:.0f} · p95 {lat.p95_ms:.0f} · max {lat.max_ms:.0f}",
                 *("" for _ in langs), "-", "info"))
    head = (f"eval: {report.n_cases} cases ({report.n_in_scope} in scope, {report.n_out_of_scope} out of scope, "
            f"{report.n_multi_turn} multi-turn; retrieval scored on {report.n_retrieval}) · "
            f"embedder {report.embedder} · backend {report.backend or '-'}")
    return head + "\n" + table(("metric", "name", "value", *langs, "min", "status"), rows)


def failures(report: EvalReport, limit: int | None = None) -> str:
    """One block per failing case: id, file:line, question, then each problem on its own line."""
    failing = [r for r in report.results if not r.ok]
    if not failing:
        return "failing cases: none"
    lines = [f"failing cases: {len(failing)} of {report.n_cases}"]
    for r in failing[:limit]:
        lines.append(f"- {r.id} ({r.where}) {r.question}")
        lines.extend(f"    {p}" for p in r.problems)
    if limit is not None and len(failing) > limit:
        lines.append(f"... and {len(failing) - limit} more (see the JSON report)")
    return "\n".join(lines)


def verdict(report: EvalReport) -> str:
    if report.passed:
        return "eval gate: PASSED"
    worst = ", ".join(f"{k} {report.metrics[k]:.3f} < {report.thresholds[k]:.2f}" for k in report.failed_metrics)
    return f"eval gate: FAILED ({worst})"


def english_line(report: EvalReport) -> str:
    """Issue 17's figures for the English cases (informational, not gated)."""
    e = report.english
    if not e:
        return ""
    return (f"english answers ({e['n_answered']:.0f}): Chinese share of prose mean {e['chinese_share_mean']:.3f} · "
            f"max {e['chinese_share_max']:.3f} (target <= 0.25) · first citation on target "
            f"{e['first_citation_on_target']:.3f}")


def render(report: EvalReport) -> str:
    return "\n\n".join(x for x in [metrics_table(report), english_line(report), failures(report), verdict(report)] if x)
