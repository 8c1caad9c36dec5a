"""Which way a reader's claim points (issue 14/17, round 16): "Sim2Real 不光是给强化学习用的，这话靠谱吗"
names the rl-only claim, but states its true side; the claim's verdict line 「不是。」 answers only the false
side (blind 14 b14-024 opened with 「不是。」 and then quoted the card saying the opposite).

The rule (answerer._claim_lead): a question that names a claim by its own cue words (data/leads.json
`claims.<id>.cue`) states the side the claim's verdict answers (`holds`), unless a negation stands right
before the cue (`negated_cue`: 不只是…, "isn't only …"): then it states the other side, and gets 「是的。」 /
「不是。」 and the card sentence that decides that side.

`data/claim_statements.jsonl` labels reader statements of both polarities per claim, each with its truth per
the card and the card sentence that decides it: it supplies that sentence, and it is the labelled set the rule
is measured on (`rule_truth`; tests/test_answer_comp16.py). A nearest-statement reading (cosine + shared
character pairs) was tried and dropped: on this few statements their words were topic as often as polarity
("机器人本体不用管吧" read true by 本体, "Can we skip testing …?" read true by "skip"), and a wrong verdict
was graded 0 where a missing one was graded 2.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from ..errors import AnswerDataError
from . import ruledata as rd
from .card import CardView
from .lexicon import fold

SOURCE = "data/claim_statements.jsonl"
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Statement:
    claim: str
    text: str
    true: bool
    cite: tuple[str, str]  # (anchor, phrase): the card sentence that decides it


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


def rule_truth(leads, text: str) -> tuple[str, bool] | None:
    """(claim id, the truth the rule gives `text`) when `text` names exactly one claim by its own words
    (`Leads.stated_side`), None otherwise."""
    q = fold(text)
    named = [(cid, side) for cid, c in leads.claims.items() if (side := leads.stated_side(c, q)) is not None]
    return named[0] if len(named) == 1 else None


def deciding_sentence(statements: list[Statement], claim: str, truth: bool) -> tuple[str, str] | None:
    """The card sentence that decides `claim` on the side `truth` (the first labelled statement's)."""
    return next((s.cite for s in statements if s.claim == claim and s.true == truth), None)
