"""Pure metric functions: no I/O, no Tutor. Each takes plain values and returns a number or flag."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..text import normalize


def first_rank(ranked: Sequence[str], expected: Iterable[str]) -> int | None:
    """1-based rank of the first ranked id that is expected; None when none is."""
    wanted = set(expected)
    for rank, sid in enumerate(ranked, 1):
        if sid in wanted:
            return rank
    return None


def hit_at(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def reciprocal_rank(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def quote_is_span(quote: str, text: str) -> bool:
    """A citation is valid when its quote is a non-blank exact substring of the cited chunk."""
    return bool(quote.strip()) and quote in text


def keypoints_found(key_points: Sequence[str], haystack: str) -> list[bool]:
    """Containment after `normalize` (NFKC, lower case, letters and digits only) on both sides."""
    hay = normalize(haystack)
    return [bool(normalize(k)) and normalize(k) in hay for k in key_points]


def mean(values: Iterable[float], empty: float = 1.0) -> float:
    """Arithmetic mean; `empty` when there is nothing to average (a vacuous metric passes)."""
    vals = list(values)
    return sum(vals) / len(vals) if vals else empty


def ratio(numerator: int, denominator: int, empty: float = 1.0) -> float:
    return numerator / denominator if denominator else empty


def refusal_scores(should_refuse: Sequence[bool], refused: Sequence[bool]) -> tuple[float, float]:
    """(precision, recall) of refusing; precision is 1.0 when nothing was refused (vacuous), recall
    is 1.0 when nothing should have been."""
    tp = sum(1 for s, r in zip(should_refuse, refused) if s and r)
    return ratio(tp, sum(refused)), ratio(tp, sum(should_refuse))


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil without floats drifting
    return ordered[int(min(rank, len(ordered))) - 1]


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z0-9]")
_CITE = re.compile(r"\[\d+\]")


def chinese_share(prose: str) -> float:
    """Share of Chinese characters among the letters and digits of an answer's prose (citation
    markers aside; the sources block is not part of `Answer.answer`). 0.0 for prose without any.
    Characters, not words: one Chinese character against one Latin letter (issue 17's measure)."""
    text = _CITE.sub("", prose)
    zh, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    return zh / (zh + latin) if zh + latin else 0.0
