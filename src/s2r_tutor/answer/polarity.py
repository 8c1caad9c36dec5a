"""Which way a reader's claim points (issue 14/17, round 16): "Sim2Real 不光是给强化学习用的，这话靠谱吗"
tests the rl-only claim, but asserts its true side; the claim's verdict line 「不是。」 answers only the
false side (blind 14 b14-024 opened with 「不是。」 and then quoted the card saying the opposite).

`data/claim_statements.jsonl` labels reader statements of both polarities per claim, each with its truth
per the card and the card sentence that decides it. The statements of the claim read closest to the
question decide: an embedding alone hardly tells 只 from 不只, so each statement's score is its cosine
plus `lexical_weight` × the share of its character pairs (English: words and word pairs) that the question
has, which does a little. The best true and the best false statement must differ by `margin`, and the
question's units found only in one side's statements of the claim (不光, 还得, "not just" — the words that
carry the polarity, not the topic) must not lean the other way; else the verdict is too close to call and
no yes/no is said at all. Wrong is worse than silent: a flipped verdict was graded 0, a missing one 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import numpy as np

from ..errors import AnswerDataError
from ..retrieval.glossary import expand_query
from . import ruledata as rd
from .card import CardView
from .lexicon import fold
from .vectors import labelled_vectors

SOURCE = "data/claim_statements.jsonl"
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Statement:
    claim: str
    text: str
    true: bool
    cite: tuple[str, str]  # (anchor, phrase): the card sentence that decides it


@dataclass(frozen=True)
class Judgement:
    true: bool | None  # None: too close to call (say no yes/no)
    cite: tuple[str, str] | None  # the deciding card sentence of the winning statement
    margin: float


def load_statements(text: str | None = None, source: str = SOURCE) -> list[Statement]:
    """Parse the labelled statements; a bad line is an AnswerDataError naming `source:line`."""
    text = resources.files("s2r_tutor").joinpath(source).read_text("utf-8") if text is None else text
    out: list[Statement] = []
    for n, row in rd.jsonl_rows(text, source):
        unknown = set(row) - {"claim", "text", "true", "cite"}
        if unknown:
            raise AnswerDataError(f"{source}:{n}: unknown key(s) {sorted(unknown)}")
        claim, txt, truth, cite = row.get("claim"), row.get("text"), row.get("true"), row.get("cite")
        if not isinstance(claim, str) or not claim:
            raise AnswerDataError(f"{source}:{n}: 'claim' must name a claim of data/leads.json")
        if not isinstance(txt, str) or not txt.strip():
            raise AnswerDataError(f"{source}:{n}: 'text' must be a non-empty statement")
        if not isinstance(truth, bool):
            raise AnswerDataError(f"{source}:{n}: 'true' must be true or false")
        if not (isinstance(cite, list) and len(cite) == 2 and all(isinstance(x, str) and x for x in cite)):
            raise AnswerDataError(f"{source}:{n}: 'cite' must be [anchor, phrase]")
        out.append(Statement(claim, txt.strip(), truth, (cite[0], cite[1])))
    if not out:
        raise AnswerDataError(f"{source}: no statements")
    return out


def check_statements(statements: list[Statement], claims: dict, card: CardView, source: str = SOURCE) -> None:
    """Every statement names a known claim, every claim it names has both polarities, and every cited
    sentence is on the card (skipped when the card is absent, as for data/leads.json)."""
    for s in statements:
        if s.claim not in claims:
            raise AnswerDataError(f"{source}: statement {s.text!r} names unknown claim {s.claim!r}")
        if getattr(claims[s.claim], "holds", None) is None:
            raise AnswerDataError(f"{source}: claim {s.claim!r} has statements but no 'holds' in data/leads.json")
    for cid in {s.claim for s in statements}:
        sides = {s.true for s in statements if s.claim == cid}
        if sides != {True, False}:
            raise AnswerDataError(f"{source}: claim {cid!r} needs statements of both polarities")
    if not card.chunk("summary"):
        return
    for s in statements:
        anchor, phrase = s.cite
        if not any(phrase in x for x in card.sents(anchor)):
            raise AnswerDataError(f"{source}: statement {s.text!r}: no sentence of section {anchor!r} contains "
                                  f"{phrase!r} (was the card edited?)")


# the question's own yes/no form is no part of the statement it tests: 是不是 holds 不是, "can we" no polarity
_ASKING = re.compile(r"是不是|对不对|是否|能不能|可不可以|行不行|有没有|这话|靠谱|[吗吧呢嘛么啊]|听说|有人说|"
                     r"\b(?:is it|isn'?t it|right|true|correct|can|could|do|does|we|i|you|the|a|an|is|are|it|so|that)\b")
_STOP_CJK = set("的了是在和也就都把给")


def units(text: str) -> set[str]:
    """Character pairs of the Chinese runs (single characters too, so 只 / 光 count; a few function
    characters do not), English words and word pairs, after the question's yes/no wording is taken out:
    the lexical side of a statement's score."""
    t = _ASKING.sub(" ", fold(text))
    out: set[str] = set()
    for run in re.findall(r"[\u3400-\u9fff]+", t):
        out.update(c for c in run if c not in _STOP_CJK)
        out.update(run[i:i + 2] for i in range(len(run) - 1))
    words = re.findall(r"[a-z0-9']+", t)
    out.update(words)
    out.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    return out


class Polarity:
    def __init__(self, statements: list[Statement], vectors: np.ndarray, lexical_weight: float = 0.5,
                 margin: float = 0.04):
        self.statements, self.vectors = statements, vectors
        self.units = [units(s.text) for s in statements]
        self.lexical_weight, self.margin = lexical_weight, margin
        self.claims = {s.claim for s in statements}
        # per claim: the units only its true statements have, and only its false ones
        self.sides: dict[str, tuple[set[str], set[str]]] = {}
        for cid in self.claims:
            t = set().union(*(u for u, s in zip(self.units, statements) if s.claim == cid and s.true))
            f = set().union(*(u for u, s in zip(self.units, statements) if s.claim == cid and not s.true))
            self.sides[cid] = (t - f, f - t)

    def lean(self, claim: str, question: str, exclude: int | None = None) -> int:
        """(units of the question only true statements have) − (only false ones have): > 0 leans true."""
        if exclude is None:
            only_t, only_f = self.sides[claim]
        else:  # leave one out (the data check): the sides without that statement
            rest = [(u, s) for i, (u, s) in enumerate(zip(self.units, self.statements)) if i != exclude and s.claim == claim]
            t = set().union(*(u for u, s in rest if s.true))
            f = set().union(*(u for u, s in rest if not s.true))
            only_t, only_f = t - f, f - t
        q = units(question)
        return len(q & only_t) - len(q & only_f)

    def scores(self, claim: str, qv: np.ndarray | None, question: str, exclude: int | None = None):
        q = units(question)
        out = []
        for i, s in enumerate(self.statements):
            if s.claim != claim or i == exclude:
                continue
            cos = float(self.vectors[i] @ qv) if qv is not None else 0.0
            lex = len(self.units[i] & q) / max(1, len(self.units[i]))
            out.append((cos + self.lexical_weight * lex, i))
        return out

    def judge(self, claim: str, qv: np.ndarray | None, question: str, default: bool | None = None,
              cued: bool = False, exclude: int | None = None) -> Judgement | None:
        """None when the claim has no labelled statements (its verdict line stands as written).

        `default`: the side the claim's verdict line answers (data/leads.json `holds`): the labelled questions
        that name the claim mostly state that side, so keeping it needs less than turning it round. Keeping it:
        the closest statements on its side by half the margin, the polarity words not against it. Turning it:
        the full margin and the polarity words for the other side too. `cued`: the question used the claim's
        own cue words (that side's words), so an unsure reading keeps the default unless the polarity words
        are against it. Otherwise unsure: no yes/no."""
        if claim not in self.claims:
            return None
        scored = self.scores(claim, qv, question, exclude)
        best = {True: max((sc for sc, i in scored if self.statements[i].true), default=-9.0),
                False: max((sc for sc, i in scored if not self.statements[i].true), default=-9.0)}
        side = best[True] > best[False]
        margin = abs(best[True] - best[False])
        lean = self.lean(claim, question, exclude)
        against = bool(lean) and (lean > 0) != side
        if default is None:
            sure = (margin >= self.margin and not against) or (margin >= self.margin / 2 and bool(lean) and not against)
        elif side == default:
            sure = margin >= self.margin / 2 and not against
        else:
            sure = margin >= self.margin and bool(lean) and not against
        if not sure and cued and default is not None and not (lean and (lean > 0) != default):
            side, sure = default, True
        top = max((x for x in scored if self.statements[x[1]].true == side), default=None)
        cite = self.statements[top[1]].cite if top is not None else None
        return Judgement(side if sure else None, cite, margin)


def statement_vectors(statements: list[Statement], embedder, cache_dir) -> np.ndarray:
    texts = [expand_query(s.text) for s in statements]
    return labelled_vectors(texts, embedder, "claim_statements.vectors", cache_dir, "labelled claim statements")
