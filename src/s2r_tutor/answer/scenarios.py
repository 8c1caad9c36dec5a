"""Customer-scenario walkthroughs: the story -> the gap factors it names -> the card's evidence for
each, the check it calls for and the one method the card ties to it.

Both tables are data (docs/answering.md, "Rule data files"): `data/rules/scenarios.json` (factor ->
card sentences -> check -> tied method) and `data/rules/scenario_stories.jsonl` (labelled stories).
A story's factors come from its nearest labelled stories over the question vector search already
computed, plus the factors' cue words as light features (`StoryMatcher`). A complaint that matches
no factor gets the card's general reality-gap factors, named as such. Every card sentence the table
names is checked when the answerer loads (`check_scenarios`): a reworded card sentence is a start-up
error naming it.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import AnswerDataError
from .card import lines, unnumber
from .labels import label
from .lexicon import fold
from . import ruledata as rd
from .vectors import labelled_vectors

if TYPE_CHECKING:
    from .card import CardView, Writer
    from .focus import Focus

log = logging.getLogger("s2r_tutor.answer")
_TABLE = "scenarios.json"
_STORIES = "scenario_stories.jsonl"
SCENARIO_ANCHORS = ["scenario-factory-floor", "scenario-payload", "scenario-sensors", "scenario-precision"]


@dataclass(frozen=True)
class Factor:
    key: str
    names: dict[str, str]                  # the card's tag, and its English rendering
    cues: re.Pattern[str]                  # light features: words a story naming this factor often uses
    pattern: str | None                    # the card scenario (anchor) this factor is, if any
    evidence: tuple[tuple[str, str], ...]  # (anchor, a phrase of the card sentence that names it)
    check: dict[str, str]                  # what to check next (framing, names the factor)
    method: tuple[str, str] | None         # (method anchor, the phrase of its card sentence naming the factor)


@dataclass(frozen=True)
class Table:
    factors: tuple[Factor, ...]
    general: Factor              # the card's general reality-gap factors (a story no factor matches)
    note: dict[str, str]         # "the card has no scenario for this case; ..."
    k: int
    temperature: float
    min_vote: float
    cue_weight: float
    catch_all: str | None = None  # kept only when it is the strongest factor
    second_ratio: float = 0.0     # a further factor needs at least this share of the strongest's vote

    def factor(self, key: str) -> Factor:
        return next(f for f in self.factors if f.key == key)


def _evidence(entry: str, raw: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, list) or not raw:
        raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}: 'evidence' must list {{anchor, contains}} entries")
    out = []
    for i, e in enumerate(raw):
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) and e.get(k) for k in ("anchor", "contains")):
            raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}: evidence[{i}] needs 'anchor' and 'contains'")
        out.append((e["anchor"], e["contains"]))
    return tuple(out)


def parse_table(data: dict) -> Table:
    """The factor table from its JSON object; a malformed entry is an AnswerDataError naming it."""
    src = rd.source(_TABLE)
    factors, seen = [], set()
    for i, f in enumerate(data.get("factors") or []):
        entry = f"factors[{i}]" + (f" ({f.get('key')})" if isinstance(f, dict) else "")
        if not isinstance(f, dict) or not isinstance(f.get("key"), str) or f["key"] in seen:
            raise AnswerDataError(f"{src}: {entry}: needs a unique 'key'")
        seen.add(f["key"])
        method = f.get("method")
        if method is not None and not (isinstance(method, dict) and all(isinstance(method.get(k), str) and method.get(k)
                                                                        for k in ("anchor", "ties"))):
            raise AnswerDataError(f"{src}: {entry}: 'method' must be null or {{anchor, ties}}")
        pattern = f.get("pattern")
        if pattern is not None and pattern not in SCENARIO_ANCHORS:
            raise AnswerDataError(f"{src}: {entry}: unknown card scenario {pattern!r}")
        factors.append(Factor(f["key"], rd.lang_text(_TABLE, f"{entry}.names", f.get("names")),
                              rd.compile_list(_TABLE, f"{entry}.cues", f.get("cues")), pattern,
                              _evidence(entry, f.get("evidence")), rd.lang_text(_TABLE, f"{entry}.check", f.get("check")),
                              (method["anchor"], method["ties"]) if method else None))
    if not factors:
        raise AnswerDataError(f"{src}: no factors")
    g = data.get("general")
    if not isinstance(g, dict):
        raise AnswerDataError(f"{src}: 'general' is missing")
    general = Factor("general", rd.lang_text(_TABLE, "general.names", g.get("names")), rd.NEVER, None,
                     _evidence("general", g.get("evidence")), rd.lang_text(_TABLE, "general.check", g.get("check")), None)
    m = data.get("match") or {}
    nums = {k: rd.number(_TABLE, f"match.{k}", m.get(k)) for k in ("k", "temperature", "min_vote", "cue_weight", "second_ratio")}
    if nums["k"] < 1 or nums["temperature"] <= 0:
        raise AnswerDataError(f"{src}: match: 'k' must be >= 1 and 'temperature' > 0")
    catch_all = m.get("catch_all")
    if catch_all is not None and catch_all not in seen:
        raise AnswerDataError(f"{src}: match.catch_all: unknown factor {catch_all!r}")
    return Table(tuple(factors), general, rd.lang_text(_TABLE, "general.note", g.get("note")),
                 int(nums["k"]), nums["temperature"], nums["min_vote"], nums["cue_weight"], catch_all, nums["second_ratio"])


@lru_cache(maxsize=1)
def table() -> Table:
    return parse_table(rd.load(_TABLE))


def check_scenarios(card: "CardView") -> None:
    """Every card sentence, scenario and method the table names must be on the card (skipped for a
    card without the 04-08 sections): a reworded sentence is an AnswerDataError naming it."""
    if card.chunk("reality-gap") is None:
        return
    t = table()
    missing = []
    for f in (*t.factors, t.general):
        for anchor, phrase in f.evidence:
            if not any(phrase in s for s in card.sents(anchor)):
                missing.append(f"{f.key}: section {anchor!r} has no sentence containing {phrase!r}")
        if f.pattern and card.chunk(f.pattern) is None:
            missing.append(f"{f.key}: card scenario {f.pattern!r} is missing")
        if f.method and not any(f.method[1] in s for s in card.sents(f.method[0])):
            missing.append(f"{f.key}: method {f.method[0]!r} no longer names {f.method[1]!r}")
    if missing:
        raise AnswerDataError(f"{rd.source(_TABLE)}: the card no longer has what the table names: " + "; ".join(missing))


# -- story -> factors ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Story:
    text: str
    factors: tuple[str, ...]


def load_stories(text: str | None = None) -> list[Story]:
    src = rd.source(_STORIES)
    text = rd.read_text(_STORIES) if text is None else text
    keys = {f.key for f in table().factors}
    out = []
    for n, row in rd.jsonl_rows(text, src):
        story, factors = row.get("story"), row.get("factors")
        if not isinstance(story, str) or not story.strip() or not isinstance(factors, list):
            raise AnswerDataError(f"{src}:{n}: needs 'story' (text) and 'factors' (a list)")
        unknown = [f for f in factors if f not in keys]
        if unknown:
            raise AnswerDataError(f"{src}:{n}: unknown factor(s) {unknown}; choose from {sorted(keys)}")
        out.append(Story(story.strip(), tuple(factors)))
    if not out:
        raise AnswerDataError(f"{src}: no labelled stories")
    return out


def story_vectors(stories: list[Story], embedder, cache_dir: Path | None) -> np.ndarray:
    """The stories' query vectors (answer/vectors.py: shipped file, index cache, or computed once)."""
    from ..retrieval.glossary import expand_query

    texts = [expand_query(s.text) for s in stories]
    return labelled_vectors(texts, embedder, "rules/scenario_stories.vectors", cache_dir, "labelled customer stories")


class StoryMatcher:
    """Story -> factor keys: votes of the nearest labelled stories, plus cue words as light features."""

    def __init__(self, stories: list[Story], vectors: np.ndarray, t: Table | None = None):
        self.stories, self.vectors, self.t = stories, vectors, t or table()

    def votes(self, qv: np.ndarray | None, question: str) -> dict[str, float]:
        t = self.t
        out = {f.key: 0.0 for f in t.factors}
        if qv is not None and len(self.stories):
            sims = self.vectors @ qv
            top = np.argsort(-sims)[: t.k]
            best = float(sims[top[0]])
            weights = [math.exp((float(sims[i]) - best) / t.temperature) for i in top]
            total = sum(weights)
            for i, w in zip(top, weights):
                for key in self.stories[i].factors:
                    out[key] += w / total
        q = fold(question)
        for f in t.factors:
            if f.cues.search(q):
                out[f.key] += t.cue_weight
        return out

    def match(self, qv: np.ndarray | None, question: str) -> list[str]:
        """The factors the story names, strongest first ([] when it names none)."""
        votes = self.votes(qv, question)
        found = sorted((k for k, v in votes.items() if v >= self.t.min_vote), key=lambda k: -votes[k])
        found = [k for k in found if votes[k] >= self.t.second_ratio * votes[found[0]]]
        return [k for i, k in enumerate(found) if k != self.t.catch_all or i == 0]


def match_factors(question: str) -> list[Factor]:
    """Without a vector (the load-time dry run, a matcher-less caller): the factors whose cue words the
    story uses; the catch-all environment factor only when it names no other."""
    q = fold(question)
    found = [f for f in table().factors if f.cues.search(q)]
    named = [f for f in found if f.key != table().catch_all]
    return named or found


# -- the walkthrough ---------------------------------------------------------------------------
def _clause(sentence: str, phrase: str) -> str:
    """In a sentence that lists four or more causes, just the clause with `phrase`."""
    parts = [c for c in re.split(r"[，；。]", sentence) if c]
    return unnumber(next((c for c in parts if phrase in c), sentence) if len(parts) >= 4 else sentence)


def _pattern_line(w: "Writer", anchor: str) -> str:
    return w.bullet(anchor, *w.card.sents(anchor), sep=" ", label=label(w.lang, anchor, w.card.heading(anchor)))


def _section(w: "Writer", key: str, *items: str) -> str:
    body = lines(*items)
    if not body:
        return ""
    return w.ledger.frame(f"**{label(w.lang, key)}**") + "\n" + body


def _factor_line(w: "Writer", fac: Factor, whole: bool = False) -> str:
    evidence = [w.sentence(a, p) for a, p in fac.evidence]
    spans = evidence if whole else [_clause(s, p) for s, (_, p) in zip(evidence, fac.evidence)]
    cited = [w.quote(a, s) for (a, _), s in zip(fac.evidence, spans)]
    body = ("；" if w.lang == "zh" else "; ").join(c for c in cited if c)
    if not body:
        return ""
    w.ledger.frame(f"**{fac.names[w.lang]}**")
    return f"- **{fac.names[w.lang]}**{'：' if w.lang == 'zh' else ': '}{body}"


def _method_line(w: "Writer", fac: Factor) -> str:
    """The one method the card ties to the factor: its sentence that names it, cited."""
    if fac.method is None:
        return ""
    anchor, ties = fac.method
    return w.bullet(anchor, w.sentence(anchor, ties), label=w.card.heading(anchor))


def factors_for(f: "Focus") -> list[Factor]:
    """The focus's factors: decided by the answerer's StoryMatcher when it set them, else cue words."""
    t = table()
    if f.factors is not None:
        return [t.factor(k) for k in f.factors if any(x.key == k for x in t.factors)]
    return match_factors(f.question)


def build_scenario(w: "Writer", f: "Focus") -> dict[str, str]:
    """A walkthrough from the symptom: the gap factors the story names (with the card's evidence), the
    checks they call for and the one method the card ties to each, the card scenario it resembles,
    and real-robot validation, ordered by what is asked (f.act). A complaint no factor matches gets
    the card's general gap factors, said to be general."""
    from .intents import SYMPTOM

    t = table()
    factors = factors_for(f)
    symptom = bool(SYMPTOM.search(fold(f.question)))
    if not symptom and all(x.key == "environment" for x in factors):
        factors = []  # "when should a solution engineer think of Sim2Real with a customer": no story, no factor
    # a complaint (or a "what do I check" about one) that names no factor: the card's general gap factors
    general = not factors and (symptom or f.act in ("check_first", "why")) and not re.search(r"场景|scenario", fold(f.question))
    patterns = list(dict.fromkeys(x.pattern for x in factors if x.pattern))[:1]
    if not patterns and not factors and not general:
        patterns = SCENARIO_ANCHORS  # "what scenarios does the card list?", or a complaint the card has no scenario for
    if general:
        factor_lines = [w.ledger.frame(t.note[w.lang]), _factor_line(w, t.general, whole=True)]
        checks = [w.ledger.frame(f"- {t.general.check[w.lang]}")]
    else:
        factor_lines = [_factor_line(w, x) for x in factors]
        checks = [w.ledger.frame(f"- {x.check[w.lang]}") for x in factors]
    methods = list(dict.fromkeys(x.method for x in factors if x.method))
    method_lines = [_method_line(w, next(x for x in factors if x.method == m)) for m in methods]
    parts = {
        "patterns": _section(w, "sc-patterns", *[_pattern_line(w, a) for a in patterns]),
        "factors": _section(w, "sc-factors", *factor_lines),
        "checks": _section(w, "sc-checks", *checks, *method_lines),
        # "don't ask which algorithm, compare sim and site" is advice on where to start: only for a first
        # step or an approach, or where no story is told (blind 8: under every "why" it read as canned)
        "why": (_section if factors or general else (lambda _w, _k, *items: lines(*items)))(  # no story: no "why this happens"
            w, "sc-why", w.bullet("reality-gap", w.sentence("reality-gap", "Reality Gap")),
            w.bullet("solution-engineers", w.sentence("solution-engineers", "重点不是"))
            if f.act in ("check_first", "how") or not (factors or general) else ""),
        # words an engineer can say to the customer: the card's sentence written for solution engineers
        "reply": w.bullet("solution-engineers", w.sentence("solution-engineers", "解决方案人员要知道")),
        "validation": w.bullet("related-robot-data", w.sentence("related-robot-data", "真机安全验证")),
        # the reason behind the reason: past the budget of a first "why", what a follow-up "为什么？" adds
        # (only on a follow-up: a first "why" that fits them all in its budget would leave "为什么？" nothing new)
        "deeper": lines(w.bullet("why-hard", w.sentence("why-hard", "完美复制品")),
                        w.bullet("physical-system", w.sentence("physical-system", "越不准确"))) if f.followup else "",
    }
    # the closing "data matters, but real-robot safety validation stays" line answers "what next / do we
    # need to retrain", not "why" or "what do I tell the customer" (blind 8: an off-topic tail there)
    order = {"check_first": ("patterns", "checks", "factors", "validation"),
             "why": ("factors", "patterns", "why", "checks", "deeper"),
             "customer_reply": ("patterns", "reply", "factors", "why"),
             "overview": ("patterns", "factors", "checks"),
             "verdict": ("patterns", "why", "factors", "checks", "validation"),
             }.get(f.act, ("patterns", "factors", "checks", "why"))
    if not factors and not general:  # no symptom named: the card's scenarios, or when to think of Sim2Real at all
        order = ("patterns", "why") if f.act == "overview" or re.search(r"场景|scenario", fold(f.question)) else ("why", "patterns")
    return {"body": "\n\n".join(parts[k] for k in order if parts[k])}
