"""Run a Tutor over eval cases: one `CaseResult` per case, aggregated into an `EvalReport`."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, computed_field

from ..models import Answer
from ..settings import EvalThresholds
from . import metrics as m
from ..retrieval.chunking import container_sections
from ..retrieval.corpus import load_corpus
from .cases import EvalCase, check_sections, expand_containers

if TYPE_CHECKING:
    from ..tutor import Tutor

SEARCH_K = 10  # sections ranked for MRR; an expected section below this is a miss
SEARCH_HITS = 50  # hits fetched, so that split sections still leave SEARCH_K distinct sections


class CitationCheck(BaseModel):
    marker: int
    chunk_id: str
    section_id: str | None = Field(description="'<card>#<anchor>' of the cited chunk; None if unknown")
    valid: bool = Field(description="the quote is an exact span of the corpus chunk")
    relevant: bool = Field(description="the cited section is one the case expects")


class CaseResult(BaseModel):
    id: str
    where: str = Field(description="file:line of the case")
    question: str
    language: str
    multi_turn: bool
    out_of_scope: bool
    expected_sections: list[str]
    expected_intent: str
    expected_act: str | None = Field(None, description="the labelled act (None: not scored for act)")
    # retrieval (in-scope single-turn cases; None when not scored)
    ranked: list[str] = Field(default_factory=list, description="section ids from tutor.search, best first")
    rank: int | None = Field(None, description="1-based rank of the first expected section")
    retrieval_scored: bool = False
    # answer
    intent: str | None = None
    act: str | None = None
    refused: bool | None = None
    answer: str = ""
    citations: list[CitationCheck] = Field(default_factory=list)
    key_points_found: list[str] = Field(default_factory=list)
    key_points_missing: list[str] = Field(default_factory=list)
    latency_ms: float = Field(0.0, description="wall time of tutor.ask for this case")
    search_ms: float | None = Field(None, description="wall time of tutor.search (retrieval-scored cases)")
    chinese_share: float | None = Field(None, description="Chinese share of the answer prose (English "
                                        "answers only; metrics.chinese_share)")
    error: str | None = Field(None, description="exception raised while answering, if any")
    problems: list[str] = Field(default_factory=list, description="what went wrong, in words")

    @computed_field
    @property
    def ok(self) -> bool:
        return not self.problems

    @computed_field
    @property
    def intent_ok(self) -> bool:
        return self.intent == self.expected_intent

    @computed_field
    @property
    def cites_expected(self) -> bool:
        return any(c.relevant for c in self.citations)


class LatencyStats(BaseModel):
    mean_ms: float
    p50_ms: float
    p95_ms: float
    max_ms: float


class EvalReport(BaseModel):
    cases_file: str
    corpus_dir: str
    embedder: str
    backend: str | None = Field(None, description="answer backend of the first answered case")
    n_cases: int
    n_in_scope: int
    n_out_of_scope: int
    n_multi_turn: int
    n_retrieval: int = Field(description="cases scored for retrieval (in scope, single turn)")
    metrics: dict[str, float]
    by_language: dict[str, dict[str, float]] = Field(
        default_factory=dict, description="the same metrics over the zh and the en cases (not gated)")
    english: dict[str, float] = Field(
        default_factory=dict, description="English answers (not gated): chinese_share_mean/max over answered en "
        "cases, first_citation_on_target over in-scope en cases")
    thresholds: dict[str, float]
    failed_metrics: list[str]
    passed: bool
    latency: LatencyStats
    results: list[CaseResult]


def section_ids(tutor: "Tutor") -> dict[str, str]:
    """chunk id -> section id (a split chunk '…#reality-gap-2' belongs to '…#reality-gap')."""
    return {c.chunk_id: f"{c.doc_id}#{c.anchor}" for c in tutor.chunks}


def resolve_sections(tutor: "Tutor", cases: list[EvalCase]) -> list[EvalCase]:
    """Cases with every expected section checked against `tutor`'s corpus; a heading with no text of
    its own stands for its subsections (see `expand_containers`)."""
    containers = {f"{card.meta.id}#{parent}": [f"{card.meta.id}#{a}" for a in below]
                  for card in load_corpus(tutor.settings.corpus_dir)
                  for parent, below in container_sections(card).items()}
    cases = expand_containers(cases, containers)
    check_sections(cases, set(section_ids(tutor).values()))
    return cases


def _score_retrieval(tutor: "Tutor", case: EvalCase, sec: dict[str, str], r: CaseResult) -> None:
    t0 = time.perf_counter()
    hits = tutor.search(case.question, k=SEARCH_HITS)
    r.search_ms = round((time.perf_counter() - t0) * 1000, 2)
    ranked: list[str] = []
    for h in hits:
        sid = sec.get(h.chunk_id, h.chunk_id)
        if sid not in ranked:
            ranked.append(sid)
    ranked = ranked[:SEARCH_K]
    r.ranked, r.retrieval_scored = ranked, True
    r.rank = m.first_rank(ranked, case.expected_sections)
    if r.rank != 1:
        where = "not in the top 10" if r.rank is None else f"at rank {r.rank}"
        r.problems.append(f"retrieval: expected {'/'.join(case.expected_sections)} {where}; "
                          f"top 3 {', '.join(ranked[:3])}")


def _score_answer(answer: Answer, case: EvalCase, sec: dict[str, str], chunk_text: dict[str, str],
                  r: CaseResult) -> None:
    expected = set(case.expected_sections)
    r.intent, r.act, r.refused, r.answer = answer.intent, answer.act, answer.refused, answer.answer
    if case.act is not None and answer.act != case.act:
        r.problems.append(f"act: got {answer.act}, expected {case.act}")
    if answer.language == "en" and not answer.refused:
        r.chinese_share = round(m.chinese_share(answer.answer), 4)
    for c in answer.citations:
        sid = sec.get(c.chunk_id)
        valid = sid is not None and m.quote_is_span(c.quote, chunk_text[c.chunk_id])
        r.citations.append(CitationCheck(marker=c.marker, chunk_id=c.chunk_id, section_id=sid,
                                         valid=valid, relevant=sid in expected))
        if not valid:
            r.problems.append(f"citation [{c.marker}] {c.chunk_id}: quote is not a span of the chunk: "
                              f"{c.quote[:60]!r}")
    if case.out_of_scope and not answer.refused:
        r.problems.append("should have refused (out of scope) but answered")
    if not case.out_of_scope and answer.refused:
        r.problems.append("refused an in-scope question")
    if answer.intent != case.intent.value:
        r.problems.append(f"intent: got {answer.intent}, expected {case.intent.value}")
    if not case.out_of_scope and not r.cites_expected:
        cited = ", ".join(c.section_id or c.chunk_id for c in r.citations) or "nothing"
        r.problems.append(f"citations: cited {cited}; expected one of {', '.join(case.expected_sections)}")
    haystack = "\n".join([answer.answer, *(c.quote for c in answer.citations)])
    if answer.language == "en":  # an English answer names the card's terms by their English glosses
        from ..retrieval.glossary import GLOSSARY

        named = [t.zh for t in GLOSSARY if t.core and t.en.lower() in answer.answer.lower()]
        haystack = "\n".join([haystack, *named])
    found = m.keypoints_found(case.key_points, haystack)
    r.key_points_found = [k for k, f in zip(case.key_points, found) if f]
    r.key_points_missing = [k for k, f in zip(case.key_points, found) if not f]
    if r.key_points_missing:
        r.problems.append(f"key points missing: {', '.join(r.key_points_missing)}")


def run_case(tutor: "Tutor", case: EvalCase, sec: dict[str, str], chunk_text: dict[str, str]) -> tuple[CaseResult, Answer | None]:
    r = CaseResult(id=case.id, where=case.where, question=case.question, language=case.language,
                   multi_turn=case.multi_turn, out_of_scope=case.out_of_scope,
                   expected_sections=case.expected_sections, expected_intent=case.intent.value,
                   expected_act=case.act)
    if not case.out_of_scope and not case.multi_turn:
        _score_retrieval(tutor, case, sec, r)
    t0 = time.perf_counter()
    try:
        answer = tutor.ask(case.question, case.history)
    except Exception as exc:  # one broken case is a failed case, not a crashed gate
        r.latency_ms = round((time.perf_counter() - t0) * 1000, 2)
        r.error = f"{exc.__class__.__name__}: {exc}"
        r.problems.append(f"error: {r.error}")
        r.key_points_missing = list(case.key_points)
        return r, None
    r.latency_ms = round((time.perf_counter() - t0) * 1000, 2)
    _score_answer(answer, case, sec, chunk_text, r)
    return r, answer


def aggregate(results: list[CaseResult]) -> dict[str, float]:
    scored = [r for r in results if r.retrieval_scored]
    in_scope = [r for r in results if not r.out_of_scope]
    citations = [c for r in results for c in r.citations]
    n_found = sum(len(r.key_points_found) for r in results)
    n_points = n_found + sum(len(r.key_points_missing) for r in results)
    precision, recall = m.refusal_scores([r.out_of_scope for r in results], [bool(r.refused) for r in results])
    return {
        "hit_at_1": m.mean(float(m.hit_at(r.rank, 1)) for r in scored),
        "hit_at_3": m.mean(float(m.hit_at(r.rank, 3)) for r in scored),
        "mrr": m.mean(m.reciprocal_rank(r.rank) for r in scored),
        "intent_accuracy": m.mean(float(r.intent_ok) for r in results),
        "act_accuracy": m.mean(float(r.act == r.expected_act) for r in results if r.expected_act is not None),
        "citation_validity": m.ratio(sum(c.valid for c in citations), len(citations)),
        "citation_relevance": m.mean(float(r.cites_expected) for r in in_scope),
        "keypoint_coverage": m.ratio(n_found, n_points),
        "refusal_precision": precision,
        "refusal_recall": recall,
    }


def english_summary(results: list[CaseResult]) -> dict[str, float]:
    """Chinese share of English answers (mean, max) and how often their first citation is on target."""
    shares = [r.chinese_share for r in results if r.language == "en" and r.chinese_share is not None]
    in_scope = [r for r in results if r.language == "en" and not r.out_of_scope]
    if not in_scope and not shares:
        return {}
    first = [float(bool(r.citations) and r.citations[0].relevant) for r in in_scope]
    return {"chinese_share_mean": round(m.mean(shares, 0.0), 4), "chinese_share_max": round(max(shares, default=0.0), 4),
            "first_citation_on_target": round(m.mean(first), 4), "n_answered": float(len(shares))}


def run_eval(tutor: "Tutor", cases: list[EvalCase], thresholds: EvalThresholds | None = None,
             cases_file: str = "") -> EvalReport:
    """Answer every case with `tutor`, score it, and compare the metrics with `thresholds`."""
    thresholds = thresholds or tutor.settings.thresholds
    sec = section_ids(tutor)
    cases = resolve_sections(tutor, cases)
    chunk_text = {c.chunk_id: c.text for c in tutor.chunks}
    results, backend = [], None
    for case in cases:
        r, answer = run_case(tutor, case, sec, chunk_text)
        results.append(r)
        backend = backend or (answer.backend if answer else None)
    scores = {k: round(v, 4) for k, v in aggregate(results).items()}
    by_language = {
        lang: {k: round(v, 4) for k, v in aggregate([r for r in results if r.language == lang]).items()}
        for lang in sorted({r.language for r in results})
    }
    limits = thresholds.model_dump()
    failed = [k for k, v in scores.items() if v < limits[k]]
    lat = [r.latency_ms for r in results]
    return EvalReport(
        cases_file=cases_file, corpus_dir=str(tutor.settings.corpus_dir), embedder=tutor.embedder.id,
        backend=backend, n_cases=len(results), n_in_scope=sum(not r.out_of_scope for r in results),
        n_out_of_scope=sum(r.out_of_scope for r in results), n_multi_turn=sum(r.multi_turn for r in results),
        n_retrieval=sum(r.retrieval_scored for r in results), metrics=scores, by_language=by_language,
        english=english_summary(results),
        thresholds=limits,
        failed_metrics=failed, passed=not failed,
        latency=LatencyStats(mean_ms=round(m.mean(lat, 0.0), 2), p50_ms=m.percentile(lat, 50),
                             p95_ms=m.percentile(lat, 95), max_ms=max(lat, default=0.0)),
        results=results,
    )
