"""The card sentences that answer an act first, loaded from `data/leads.json` and checked against the
card when the answerer loads: a sentence that is not on the card is a start-up error naming it
(AnswerDataError), never a silently shorter answer."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources

from ..errors import AnswerDataError
from ..models import Intent
from .acts import ACTS
from .card import CardView

Ref = tuple[str, str]  # (anchor, a phrase the sentence contains)


@dataclass(frozen=True)
class Claim:
    lead: tuple[Ref, ...]
    verdict: dict[str, str] | None  # short framing line per language ("不是。"), shown with the card sentence that says why
    topic: Intent | None = None  # the material that supports the verdict, when not the question's own topic
    cue: re.Pattern[str] | None = None  # words that name this claim in a yes/no question, whatever the neighbours vote


@dataclass(frozen=True)
class Missing:
    """Something the card never gives (a number, a vendor, a ranking)."""

    kind: str
    cue: re.Pattern[str]
    names: dict[str, str]
    decline: bool  # nothing on the card bears on it: decline instead of answering around it
    decisive: bool = False  # the cue alone makes the act not_in_card, whatever the neighbours vote


def _refs(where: str, raw) -> tuple[Ref, ...]:
    if not isinstance(raw, list) or not all(isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r)
                                            for r in raw):
        raise AnswerDataError(f"data/leads.json {where}: expected a list of [anchor, phrase] pairs")
    return tuple((a, p) for a, p in raw)


def _pattern(where: str, raw) -> re.Pattern[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        raise AnswerDataError(f"data/leads.json {where}: expected a non-empty pattern")
    try:
        return re.compile(raw, re.I)
    except re.error as exc:
        raise AnswerDataError(f"data/leads.json {where}: bad pattern ({exc})") from exc


class Leads:
    def __init__(self, card: CardView, text: str | None = None):
        data = json.loads(text if text is not None else
                          resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
        intents = {i.value for i in Intent}
        self.leads: dict[tuple[str, str], tuple[Ref, ...]] = {}
        for topic, by_act in data.get("leads", {}).items():
            if topic.split(":", 1)[0] not in intents:
                raise AnswerDataError(f"data/leads.json leads: unknown topic {topic!r}")
            for act, refs in by_act.items():
                if act not in ACTS:
                    raise AnswerDataError(f"data/leads.json leads.{topic}: unknown act {act!r}")
                self.leads[(topic, act)] = _refs(f"leads.{topic}.{act}", refs)
        self.claims = {}
        for cid, c in data.get("claims", {}).items():
            topic = c.get("topic")
            if topic is not None and topic not in intents:
                raise AnswerDataError(f"data/leads.json claims.{cid}: unknown topic {topic!r}")
            self.claims[cid] = Claim(_refs(f"claims.{cid}", c.get("lead")), c.get("verdict"),
                                     Intent(topic) if topic else None, _pattern(f"claims.{cid}.cue", c.get("cue")))
        self.yes_no = _pattern("yes_no_shape", data.get("yes_no_shape"))
        terms = data.get("compare_terms", {})
        if not isinstance(terms, dict):
            raise AnswerDataError("data/leads.json compare_terms: expected {section anchor: pattern}")
        self.compare_terms = {a: _pattern(f"compare_terms.{a}", t) for a, t in terms.items()}
        self.never = _refs("never_lead", data.get("never_lead", []))
        # what a compared side does or aims at (blind 10: comparisons quoted two "示例" lines and never
        # said how the methods differ); a side without an entry leads with its best-scoring sentence
        purposes = data.get("purposes", {})
        if not isinstance(purposes, dict):
            raise AnswerDataError("data/leads.json purposes: expected {section anchor: [[anchor, phrase], ...]}")
        self.purposes = {side: _refs(f"purposes.{side}", refs) for side, refs in purposes.items()}
        openers = data.get("dependent_openers", [])
        if not isinstance(openers, list) or not all(isinstance(o, str) and o.strip() for o in openers):
            raise AnswerDataError("data/leads.json dependent_openers: expected a list of non-empty strings")
        self.openers = tuple(openers)
        first = data.get("table_first_acts", [])
        if not isinstance(first, list) or any(a not in ACTS for a in first):
            raise AnswerDataError(f"data/leads.json table_first_acts: expected a list of acts from {list(ACTS)}")
        self.table_first_acts = frozenset(first)
        bf = data.get("builder_first", {})
        if not isinstance(bf, dict) or any(t not in intents or not isinstance(a, list) or any(x not in ACTS for x in a)
                                           for t, a in bf.items()):
            raise AnswerDataError("data/leads.json builder_first: expected {topic: [act, ...]} with known topics and acts")
        self.builder_first = frozenset((t, x) for t, a in bf.items() for x in a)
        one = data.get("one_line_cues", [])
        if not isinstance(one, list) or not all(isinstance(o, str) and o.strip() for o in one):
            raise AnswerDataError("data/leads.json one_line_cues: expected a list of non-empty patterns")
        try:
            self.one_line = re.compile("|".join(f"(?:{o})" for o in one), re.I) if one else None
        except re.error as exc:
            raise AnswerDataError(f"data/leads.json one_line_cues: bad pattern ({exc})") from exc
        self.missing = [Missing(kind, re.compile(m["cue"]), {"zh": m["zh"], "en": m["en"]}, bool(m["decline"]),
                                bool(m.get("decisive", False)))
                        for kind, m in data.get("not_in_card", {}).items()]
        self.card = card
        self.check()

    def all_refs(self):
        for key, refs in self.leads.items():
            yield f"leads.{key[0]}.{key[1]}", refs
        for cid, claim in self.claims.items():
            yield f"claims.{cid}", claim.lead
        yield "never_lead", self.never
        for side, refs in self.purposes.items():
            yield f"purposes.{side}", refs

    def check(self) -> None:
        """Every referenced sentence must be on the loaded card (skipped when the card is absent:
        a corpus without 04-08 never reaches these leads)."""
        if not self.card.chunk("summary"):
            return
        for side in list(self.purposes) + list(self.compare_terms):
            if self.card.chunk(side) is None:
                raise AnswerDataError(f"data/leads.json purposes: no card section {side!r}")
        for where, refs in self.all_refs():
            for anchor, phrase in refs:
                if not any(phrase in s for s in self.card.sents(anchor)):
                    raise AnswerDataError(f"data/leads.json {where}: no sentence of section {anchor!r} contains "
                                          f"{phrase!r} (was the card edited?)")

    def lead(self, intent: Intent, act: str, focus: set[str]) -> tuple[Ref, ...]:
        """The lead for the part the question singles out; the topic's own lead only when it singles out
        nothing (a question about safety must not lead with the topic's general sentence)."""
        for anchor in sorted(focus):
            if (f"{intent.value}:{anchor}", act) in self.leads:
                return self.leads[(f"{intent.value}:{anchor}", act)]
        return () if focus else self.leads.get((intent.value, act), ())

    def compared(self, question: str) -> list[tuple[int, str]]:
        """(position, anchor) of each concept a comparison names by a compare term (the card's own concept,
        robot simulation): sides that are no method or focus part ("机器人仿真和 Sim2Real 怎么区分")."""
        out = []
        for anchor, pat in self.compare_terms.items():
            m = pat.search(question)
            if m is not None:
                out.append((m.start(), anchor))
        return sorted(out)

    def cued_claim(self, question: str) -> str | None:
        """The misconception a yes/no question states in so many words ("…就是走个流程吧", "…copying the
        model onto the robot, right?"): its claim, whatever the neighbours vote (blind 10 b10-061 read `how`
        and led with an RL sentence). None unless the question has the yes/no shape and exactly one claim's
        cue matches."""
        if self.yes_no is None or not self.yes_no.search(question):
            return None
        hits = [cid for cid, c in self.claims.items() if c.cue is not None and c.cue.search(question)]
        return hits[0] if len(hits) == 1 else None

    def missing_kind(self, question: str) -> Missing | None:
        q = question.lower()
        return next((m for m in self.missing if m.cue.search(q)), None)
