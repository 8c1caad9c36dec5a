"""Grading a reader's reply: options by letter, number or text; key terms by any glossary spelling
(zh or en); free text by key points, each matched by its terms, its characters, or (across
languages) by embedding similarity to the reply's phrases. Feedback quotes and cites the passage,
in the session's language when one is given, else in the reply's.
"""

from __future__ import annotations

import math
import re
import threading
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from ..text import clean_input, detect_language, normalize
from .bank import FALSE, TRUE, Question, check_language
from . import structure as S
from .terms import form_in, forms_of, terms_in

Verdict = Literal["correct", "partial", "wrong"]
_CJK = re.compile(r"[\u3400-\u9fff]")

# a reply phrase "covers" a key point by embedding when it is at least this similar AND that key
# point is its nearest among every key point of the bank (absolute e5 cosines alone are too flat)
EMBED_MIN_SIM = 0.84
MAX_MISSED_SHOWN = 5  # feedback quotes at most this many missed key points
MAX_REPLY_CHARS = 1000  # a longer reply is graded on its start (pasting the card earns nothing more)
EMBED_MIN_Z = 4.0  # ... and stands out: (sim - mean over the pool) / std over the pool
TRUE_WORDS = {"对", "正确", "是", "是的", "真", "true", "t", "yes", "y", "right", "correct", "√", "✓", "o"}
FALSE_WORDS = {"错", "错误", "不对", "否", "不是", "假", "false", "f", "no", "n", "wrong", "incorrect", "×", "✗", "x"}


class Grade(BaseModel):
    question_id: str
    verdict: Verdict
    score: float = Field(ge=0, le=1)
    matched: list[str] = Field(default_factory=list, description="key points (or the option) the reply got")
    missed: list[str] = Field(default_factory=list, description="key points the reply did not cover")
    feedback: str = Field(description="Markdown: verdict, what was missed, and the cited passage quoted")
    chunk_id: str
    section: str
    quote: str
    language: Literal["zh", "en"]


def _bigrams(text: str) -> set[str]:
    n = normalize(text)
    return {n[i: i + 2] for i in range(len(n) - 1)} or ({n} if n else set())


def _overlap(kp: str, reply: str) -> float:
    """Share of the key point's character bigrams found in the reply (recall, not symmetric).
    Chinese only: Latin bigrams ('at', 'on') are shared by unrelated words."""
    if not _CJK.search(kp):
        return 0.0
    a = _bigrams(kp)
    return len(a & _bigrams(reply)) / len(a) if a else 0.0


def _segments(reply: str) -> list[str]:
    parts = re.split(r"[，,。.;；、/\n!?！？]|\band\b|\bor\b|和|以及|还有", reply)
    segs = [p.strip() for p in parts if len(normalize(p)) >= 2]
    return list(dict.fromkeys([*segs, reply.strip()]))


def _choice_index(q: Question, reply: str) -> int | None:
    r = reply.strip()
    if m := re.fullmatch(r"[(（]?([A-Za-z]|\d{1,2})[)）.、．]?", r):
        tok = m.group(1)
        i = int(tok) - 1 if tok.isdigit() else ord(tok.upper()) - ord("A")
        if 0 <= i < len(q.choices):
            return i
    nr = normalize(r)
    for i, c in enumerate(q.choices):
        if nr and nr == normalize(c):
            return i
    for i, c in enumerate(q.choices_en):  # an option typed as the English reader saw it
        if nr and c and nr == normalize(c):
            return i
    return None


def _truth(reply: str) -> str | None:
    r = reply.strip().lower().rstrip("。.!！")
    if r in TRUE_WORDS:
        return TRUE
    if r in FALSE_WORDS:
        return FALSE
    return None


class Grader:
    """Grades against one bank; the bank's key points are embedded once, lazily."""

    def __init__(self, bank: list[Question], embedder=None):
        self.bank = bank
        self.embedder = embedder
        self._pool: list[str] | None = None
        self._pool_vecs: np.ndarray | None = None
        self._lock = threading.Lock()

    # -- embedding support -------------------------------------------------------------------
    def warm(self) -> None:
        """Embed the bank's key points now (the chat calls this in the background at start-up)."""
        self._ensure_pool()

    def _ensure_pool(self) -> None:
        with self._lock:
            if self._pool is None:
                pool = {normalize(k): k for q in self.bank for k in q.key_points if normalize(k)}
                vecs = self.embedder.embed_queries(list(pool.values())) if self.embedder and pool else None
                self._pool_vecs, self._pool = vecs, list(pool.values())

    def _embed_hits(self, q: Question, reply: str) -> set[str]:
        """Key points of `q` that some phrase of the reply is nearest to (and close enough)."""
        if self.embedder is None:
            return set()
        self._ensure_pool()
        if self._pool_vecs is None:
            return set()
        own = {normalize(k): k for k in q.key_points}
        segs = _segments(reply)
        vecs = self.embedder.embed_queries(segs)
        sims = vecs @ self._pool_vecs.T
        hits = set()
        for row in sims:
            best = int(np.argmax(row))
            z = (row[best] - row.mean()) / max(float(row.std()), 1e-6)
            if row[best] >= EMBED_MIN_SIM and z >= EMBED_MIN_Z and normalize(self._pool[best]) in own:
                hits.add(own[normalize(self._pool[best])])
        return hits

    # -- matching ----------------------------------------------------------------------------
    def _kp_hit(self, kp: str, reply: str) -> bool:
        if normalize(kp) and normalize(kp) in normalize(reply):
            return True
        ts = terms_in(kp)
        covered = [t for t in ts if any(form_in(f, reply) for f in t.forms)]
        if ts and len(covered) * 2 >= len(ts):
            return True
        return len(normalize(kp)) >= 4 and _overlap(kp, reply) >= 0.6

    def _term_match(self, q: Question, reply: str) -> Verdict:
        forms = [q.answer, *q.accept]
        if any(form_in(f, reply) for f in forms):
            return "correct"
        nr = normalize(reply)
        if len(nr) >= 2 and any(nr in normalize(f) and len(nr) * 2 >= len(normalize(f)) for f in forms):
            return "correct"
        if any(_overlap(f, reply) >= 0.5 for f in forms if len(normalize(f)) >= 3):
            return "partial"
        if self._embed_hits(q, reply):
            return "partial"
        return "wrong"

    # -- grading -----------------------------------------------------------------------------
    def grade(self, q: Question, reply: str, language: str | None = None) -> Grade:
        """`language` ('zh' / 'en'): the session's, for the feedback; None: the reply's (a reply
        without words, such as 'A' or '2', then gets Chinese)."""
        reply = clean_input(reply if isinstance(reply, str) else "")[:MAX_REPLY_CHARS]
        if language is not None:
            lang = check_language(language)
        else:
            lang = detect_language(reply) if re.search(r"[A-Za-z\u3400-\u9fff]{2,}", reply) else "zh"
        matched: list[str] = []
        missed: list[str] = []
        by_points = False
        if not reply:
            verdict, score = "wrong", 0.0
        elif q.kind == "truefalse":
            said = _truth(reply)
            if said is None and (i := _choice_index(q, reply)) is not None:
                said = q.choices[i]
            verdict = "correct" if said == q.answer else "wrong"
            score = 1.0 if verdict == "correct" else 0.0
        elif q.choices and (i := self._pick(q, reply)) is not None:
            verdict = "correct" if normalize(q.choices[i]) == normalize(q.answer) else "wrong"
            score = 1.0 if verdict == "correct" else 0.0
            (matched if verdict == "correct" else missed).append(q.answer)
        elif q.kind in ("recall", "scenario"):
            by_points = True
            emb = self._embed_hits(q, reply)
            for kp in q.key_points:
                (matched if kp in emb or self._kp_hit(kp, reply) else missed).append(kp)
            n = len(q.key_points)
            needed = n if n <= 2 else min(5, math.ceil(0.6 * n))
            score = min(1.0, len(matched) / needed) if needed else 0.0
            verdict = "correct" if score >= 1 else "partial" if matched else "wrong"
        elif q.kind == "choice":
            verdict, score = "wrong", 0.0  # free text that names no option
            missed.append(q.answer)
        else:  # term
            verdict = self._term_match(q, reply)
            score = {"correct": 1.0, "partial": 0.5, "wrong": 0.0}[verdict]
            (matched if verdict == "correct" else missed).append(q.answer)
        return Grade(question_id=q.id, verdict=verdict, score=round(score, 3), matched=matched, missed=missed,
                     feedback=feedback(q, verdict, matched, missed, lang, by_points), chunk_id=q.chunk_id,
                     section=q.section, quote=q.quote, language=lang)

    def _pick(self, q: Question, reply: str) -> int | None:
        """The option the reply names: by letter/number/text, or (not for scenarios, whose free
        text is graded by key points) by any glossary spelling of exactly one option."""
        if (i := _choice_index(q, reply)) is not None:
            return i
        if q.kind == "scenario":
            return None
        named = {i for i, c in enumerate(q.choices) if any(form_in(f, reply) for f in _choice_forms(c))}
        return named.pop() if len(named) == 1 else None


def _choice_forms(choice: str) -> list[str]:
    parts = S.heading_term(choice) or (choice, None)
    forms = forms_of(choice)
    for part in parts:
        if part:
            forms += forms_of(part)
    return list(dict.fromkeys(forms))


# plain symbols (DejaVu has them), not emoji: a kiosk or headless browser may lack an emoji font
_VERDICT = {"zh": {"correct": "✓ 正确", "partial": "◐ 部分正确", "wrong": "✗ 不正确"},
            "en": {"correct": "✓ Correct", "partial": "◐ Partly correct", "wrong": "✗ Not quite"}}


def feedback(q: Question, verdict: str, matched: list[str], missed: list[str], lang: str,
             by_points: bool = False) -> str:
    """Markdown: the verdict, (for key-point grading) what was covered and missed, the expected
    answer, and the cited passage quoted with its section id."""
    zh = lang == "zh"
    lines = [f"**{_VERDICT[lang][verdict]}**"]

    def points(items: list[str]) -> str:  # card text: 「…」 in Chinese, “…” in English (its English where known)
        if zh:
            return "、".join(f"「{m}」" for m in items)
        return ", ".join(f"“{m}”" for m in dict.fromkeys(q.point(m, lang) for m in items))

    if by_points:
        if matched:
            lines.append(("答到了：" if zh else "You covered: ") + points(matched))
        if missed:
            shown = points(missed[:MAX_MISSED_SHOWN])
            more = len(missed) - MAX_MISSED_SHOWN
            if more > 0:
                shown += f"（另有 {more} 项）" if zh else f" (and {more} more)"
            lines.append(("还漏了：" if zh else "You missed: ") + shown)
    if verdict != "correct" and not by_points:
        lines.append(("正确答案：" if zh else "Expected answer: ") + q.shown(q.answer, lang))
    explanation = q.explain(lang)
    if explanation and not by_points and q.quote not in explanation:
        lines.append(explanation)
    if zh or not q.quote_en:
        lines.append(("出处" if zh else "Source") + f" [{q.chunk_id}] {q.section}")
        lines.append("> " + q.quote)
    else:  # English with the Chinese original, as the chat's sources show a citation
        lines.append(f"Source [{q.chunk_id}] {q.section_en or q.section}")
        lines.append("> " + q.quote_en)
        lines.append("> " + q.quote)
    return "\n\n".join(lines)


def grade(question: Question, reply: str, embedder=None, bank: list[Question] | None = None,
          language: str | None = None) -> Grade:
    """Grade one reply. Pass the whole `bank` so embedding matches are judged against every key
    point of the card (a phrase counts only for the key point it is nearest to)."""
    return Grader(bank or [question], embedder).grade(question, reply, language)
