"""Intent detection: the labelled neighbours' topic votes (answer/acts.py), the retrieval ranking as a
prior, and the phrase rules that survived ablation as light features.

The rules are data (`data/rules/intents.json`, docs/answering.md "Rule data files"): each family adds
its weight to one intent when it matches the canonical question. The top retrieved sections add a
prior (`anchor_intent`), which decides when nothing else speaks and breaks near-ties. Whether a
question is in scope at all is `refusal.py`'s job, not this module's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..errors import AnswerDataError
from ..models import Intent
from . import ruledata as rd
from .lexicon import canonical

_FILE = "intents.json"
_INTENTS = {i.value: i for i in Intent}


@dataclass(frozen=True)
class Rule:
    name: str
    intent: Intent
    pattern: re.Pattern[str]
    weight: float


@dataclass(frozen=True)
class IntentRules:
    rules: tuple[Rule, ...]
    symptom: re.Pattern[str]   # a complaint: a symptom observed ...
    context: re.Pattern[str]   # ... after a change or at a place
    scenario_weight: float
    anchor_intent: dict[str, Intent]
    anchor_prefix_intent: tuple[tuple[str, Intent], ...]
    prior: tuple[float, ...]


def _intent(entry: str, value: object) -> Intent:
    if value not in _INTENTS:
        raise AnswerDataError(f"{rd.source(_FILE)}: {entry}: unknown intent {value!r}; choose one of {', '.join(sorted(_INTENTS))}")
    return _INTENTS[value]


def parse_rules(data: dict) -> IntentRules:
    rules = []
    for entry, r in rd.keyed(_FILE, "rules", data.get("rules"), "name"):
        rules.append(Rule(r["name"], _intent(entry, r.get("intent")), rd.compile_list(_FILE, entry, r.get("patterns")),
                          rd.number(_FILE, f"{entry}.weight", r.get("weight"))))
    anchors = data.get("anchor_intent")
    if not isinstance(anchors, dict):
        raise AnswerDataError(f"{rd.source(_FILE)}: 'anchor_intent' must map section anchors to intents")
    prefixes = data.get("anchor_prefix_intent") or []
    prior = data.get("prior")
    if not isinstance(prior, list):
        raise AnswerDataError(f"{rd.source(_FILE)}: 'prior' must list the first and second sections' votes")
    return IntentRules(
        tuple(rules), rd.compile_list(_FILE, "symptom", data.get("symptom")), rd.compile_list(_FILE, "context", data.get("context")),
        rd.number(_FILE, "scenario_weight", data.get("scenario_weight")),
        {a: _intent(f"anchor_intent.{a}", v) for a, v in anchors.items()},
        tuple((p, _intent(f"anchor_prefix_intent[{n}]", i)) for n, (p, i) in enumerate(prefixes)),
        tuple(rd.number(_FILE, "prior", x) for x in prior))


@lru_cache(maxsize=1)
def intent_rules() -> IntentRules:
    return parse_rules(rd.load(_FILE))


def __getattr__(name: str):
    # the names other modules have always imported: a complaint's two halves, the anchor table, the prior
    r = intent_rules()
    table = {"SYMPTOM": r.symptom, "CONTEXT": r.context, "ANCHOR_INTENT": r.anchor_intent, "PRIOR": r.prior}
    if name in table:
        return table[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def anchor_intent(anchor: str) -> Intent | None:
    """The intent a section speaks to: the anchor table, else the shared anchor conventions, else None."""
    r = intent_rules()
    if anchor in r.anchor_intent:
        return r.anchor_intent[anchor]
    return next((i for prefix, i in r.anchor_prefix_intent if anchor.startswith(prefix)), None)


def is_complaint(question: str) -> bool:
    """A symptom observed after a change or at a place ("换了传感器以后识别不准")."""
    r = intent_rules()
    q = canonical(question)
    return bool(r.symptom.search(q) and r.context.search(q))


@dataclass
class IntentScore:
    intent: Intent
    scores: dict[Intent, float]
    ruled: bool  # True when a phrase rule (not only the retrieval prior) fired


def rule_scores(question: str) -> dict[Intent, float]:
    r = intent_rules()
    q = canonical(question)
    scores: dict[Intent, float] = {}
    for rule in r.rules:
        if rule.pattern.search(q):
            scores[rule.intent] = scores.get(rule.intent, 0.0) + rule.weight
    if r.symptom.search(q) and r.context.search(q):
        scores[Intent.scenario] = max(scores.get(Intent.scenario, 0.0), r.scenario_weight)
    return scores


def detect_intent(question: str, anchors: list[str], votes: dict[Intent, float] | None = None,
                  prior: tuple[float, ...] | None = None) -> IntentScore:
    """`anchors`: the retrieved sections' anchors, best first; `votes`: the labelled neighbours' topic
    votes (answer/acts.py), already weighted, added to the rules and the retrieval prior; `prior`: the
    votes of the first and second retrieved sections (Settings.answer.section_votes)."""
    prior = intent_rules().prior if prior is None else prior
    scores = rule_scores(question)
    ruled = bool(scores)
    for intent, v in (votes or {}).items():
        scores[intent] = scores.get(intent, 0.0) + v
    for weight, anchor in zip(prior, anchors):
        intent = anchor_intent(anchor)
        if intent is not None:
            scores[intent] = scores.get(intent, 0.0) + weight
    if not scores:
        return IntentScore(Intent.definition, scores, ruled)
    order = [i for i in Intent]
    best = max(scores, key=lambda i: (scores[i], -order.index(i)))
    return IntentScore(best, scores, ruled)
