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
from dataclasses import dataclass, field
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
    say: tuple[tuple[str, str], ...] = ()   # what to tell a customer differs (default: the first evidence)
    blame: tuple[tuple[str, str], ...] = ()  # why it is not only the algorithm, for this factor


#: the blocks a story answer is made of (data/rules/scenarios.json "shapes" orders them per act; the
#: first is the point): verdict line + its card sentence, the gap factors ("cause"), every factor's
#: check or just the strongest one's, the methods the card ties to them, the card scenario it
#: resembles, a customer-facing explanation, one card sentence, and the deeper reason of a follow-up
BLOCKS = ("verdict", "cause", "checks", "check1", "methods", "scenario", "customer", "one_line", "deeper")
TEXTS = ("cause_point", "general_point", "customer_point", "methods_point", "checks_point", "check1", "no_pattern")


@dataclass(frozen=True)
class Verdict:
    key: str
    cues: re.Pattern[str]
    line: dict[str, str]
    cite: tuple[tuple[str, str], ...]
    shape: tuple[str, ...] | None = None  # the shape this verdict answers with (None: the act's)


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
    shapes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # act -> blocks ("default" for the rest)
    verdicts: tuple[Verdict, ...] = ()
    one_line: re.Pattern[str] = rd.NEVER
    one_line_cite: tuple[tuple[str, str], ...] = ()
    customer_cite: tuple[tuple[str, str], ...] = ()
    customer_close: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)  # lang -> spans
    text: dict[str, dict[str, str]] = field(default_factory=dict)
    asked: tuple[tuple[str, re.Pattern[str]], ...] = ()  # (act, cue words): what a story explicitly asks
    story_cues: re.Pattern[str] = rd.NEVER  # story words the symptom list misses ("拉不开门把手")
    cue_second: float | None = None  # a second factor the story names in words needs this neighbour vote

    def asked_act(self, question: str) -> str | None:
        q = fold(question)
        return next((act for act, cues in self.asked if cues.search(q)), None)

    def factor(self, key: str) -> Factor:
        return next(f for f in self.factors if f.key == key)

    def shape(self, act: str) -> tuple[str, ...]:
        return self.shapes.get(act) or self.shapes["default"]

    def verdict(self, question: str) -> Verdict:
        q = fold(question)
        return next(v for v in self.verdicts if v.cues is rd.NEVER or v.cues.search(q))


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
                              (method["anchor"], method["ties"]) if method else None,
                              _evidence(f"{entry}.say", f["say"]) if f.get("say") else (),
                              _evidence(f"{entry}.blame", f["blame"]) if f.get("blame") else ()))
    if not factors:
        raise AnswerDataError(f"{src}: no factors")
    g = data.get("general")
    if not isinstance(g, dict):
        raise AnswerDataError(f"{src}: 'general' is missing")
    general = Factor("general", rd.lang_text(_TABLE, "general.names", g.get("names")), rd.NEVER, None,
                     _evidence("general", g.get("evidence")), rd.lang_text(_TABLE, "general.check", g.get("check")), None,
                     _evidence("general.say", g["say"]) if g.get("say") else ())
    m = data.get("match") or {}
    nums = {k: rd.number(_TABLE, f"match.{k}", m.get(k)) for k in ("k", "temperature", "min_vote", "cue_weight", "second_ratio")}
    if nums["k"] < 1 or nums["temperature"] <= 0:
        raise AnswerDataError(f"{src}: match: 'k' must be >= 1 and 'temperature' > 0")
    catch_all = m.get("catch_all")
    cue_second = m.get("cue_second")
    if cue_second is not None:
        cue_second = rd.number(_TABLE, "match.cue_second", cue_second)
    if catch_all is not None and catch_all not in seen:
        raise AnswerDataError(f"{src}: match.catch_all: unknown factor {catch_all!r}")
    shapes = _shapes(data.get("shapes"))
    verdicts = _verdicts(data.get("verdicts"), shapes)
    one = data.get("one_line") or {}
    text = data.get("text") or {}
    missing = [k for k in TEXTS if k not in text]
    if missing:
        raise AnswerDataError(f"{src}: text: missing {missing}")
    return Table(tuple(factors), general, rd.lang_text(_TABLE, "general.note", g.get("note")),
                 int(nums["k"]), nums["temperature"], nums["min_vote"], nums["cue_weight"], catch_all, nums["second_ratio"],
                 shapes, verdicts, rd.compile_list(_TABLE, "one_line.cues", one.get("cues")),
                 _evidence("one_line.cite", one.get("cite")),
                 _evidence("customer.cite", (data.get("customer") or {}).get("cite")),
                 {lang: _evidence(f"customer.close.{lang}", refs) if refs else ()
                  for lang, refs in ((data.get("customer") or {}).get("close") or {}).items()},
                 {k: rd.lang_text(_TABLE, f"text.{k}", text[k]) for k in TEXTS}, _asked(data.get("asked")),
                 rd.compile_list(_TABLE, "story_cues", data["story_cues"]) if data.get("story_cues") else rd.NEVER,
                 cue_second=cue_second)


def _asked(raw: object) -> tuple[tuple[str, re.Pattern[str]], ...]:
    from .acts import ACTS

    out = []
    for i, a in enumerate(raw or []):
        if not isinstance(a, dict) or a.get("act") not in ACTS:
            raise AnswerDataError(f"{rd.source(_TABLE)}: asked[{i}]: needs an 'act' of answer/acts.py")
        out.append((a["act"], rd.compile_list(_TABLE, f"asked[{i}].cues", a.get("cues"))))
    return tuple(out)


def _shape(entry: str, raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(b, str) for b in raw):
        raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}: must be a non-empty list of blocks")
    bad = [b for b in raw if b not in BLOCKS]
    if bad:
        raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}: unknown block(s) {bad}; choose from {', '.join(BLOCKS)}")
    return tuple(raw)


def _shapes(raw: object) -> dict[str, tuple[str, ...]]:
    """act -> blocks; every key is an act of answer/acts.py (or "default", which must be there)."""
    from .acts import ACTS

    if not isinstance(raw, dict) or "default" not in raw:
        raise AnswerDataError(f"{rd.source(_TABLE)}: shapes: needs a 'default' shape")
    bad = [a for a in raw if a != "default" and a not in ACTS]
    if bad:
        raise AnswerDataError(f"{rd.source(_TABLE)}: shapes: unknown act(s) {bad}; choose from {', '.join(ACTS)}")
    return {a: _shape(f"shapes.{a}", v) for a, v in raw.items()}


def _verdicts(raw: object, shapes: dict) -> tuple[Verdict, ...]:
    if not isinstance(raw, list) or not raw:
        raise AnswerDataError(f"{rd.source(_TABLE)}: verdicts: must list at least the default variant")
    out = []
    for i, v in enumerate(raw):
        entry = f"verdicts[{i}]" + (f" ({v.get('key')})" if isinstance(v, dict) else "")
        if not isinstance(v, dict) or not isinstance(v.get("key"), str):
            raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}: needs a 'key'")
        cues = rd.compile_list(_TABLE, f"{entry}.cues", v["cues"]) if v.get("cues") else rd.NEVER
        cite = _evidence(f"{entry}.cite", v["cite"]) if v.get("cite") else ()
        shape = _shape(f"{entry}.shape", v["shape"]) if v.get("shape") is not None else None
        out.append(Verdict(v["key"], cues, rd.lang_text(_TABLE, f"{entry}.line", v.get("line")), cite, shape))
    if out[-1].cues is not rd.NEVER or any(v.cues is rd.NEVER for v in out[:-1]):
        raise AnswerDataError(f"{rd.source(_TABLE)}: verdicts: only the last variant (the default) has no cues")
    return tuple(out)


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
        for where, refs in (("say", f.say), ("blame", f.blame)):
            missing += [f"{f.key}.{where}: section {a!r} has no sentence containing {p!r}"
                        for a, p in refs if not any(p in s for s in card.sents(a))]
    cites = [*((f"verdicts ({v.key})", c) for v in t.verdicts for c in v.cite), *(("one_line", c) for c in t.one_line_cite),
             *(("customer", c) for c in t.customer_cite),
             *((f"customer.close.{lang}", c) for lang, refs in t.customer_close.items() for c in refs)]
    for where, (anchor, phrase) in cites:
        if not any(phrase in s for s in card.sents(anchor)):
            missing.append(f"{where}: section {anchor!r} has no sentence containing {phrase!r}")
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
        out = self.neighbour_votes(qv)
        q = fold(question)
        for f in t.factors:
            if f.cues.search(q):
                out[f.key] += t.cue_weight
        return out

    def neighbour_votes(self, qv: np.ndarray | None) -> dict[str, float]:
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
        return out

    def match(self, qv: np.ndarray | None, question: str) -> list[str]:
        """The factors the story names, strongest first ([] when it names none)."""
        votes = self.votes(qv, question)
        found = sorted((k for k, v in votes.items() if v >= self.t.min_vote), key=lambda k: -votes[k])
        found = [k for k in found if votes[k] >= self.t.second_ratio * votes[found[0]]]
        found = [k for i, k in enumerate(found) if k != self.t.catch_all or i == 0]
        if len(found) == 1 and self.t.cue_second is not None:
            # a story that names two causes (slope + oil + a battery pack): a second factor whose cue words
            # it uses and that its neighbours also vote for (match.cue_second, leave-one-out in answering.md)
            q, nv = fold(question), self.neighbour_votes(qv)
            more = sorted((f.key for f in self.t.factors if f.key not in found and f.key != self.t.catch_all
                           and f.cues.search(q) and nv[f.key] >= self.t.cue_second), key=lambda k: -nv[k])
            found += more[:1]
        return found


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


def _evidence_for(w: "Writer", fac: Factor, refs: tuple[tuple[str, str], ...] | None = None) -> tuple[tuple[str, str], ...]:
    """The factor's evidence (or `refs`) as the reader will see it: English is aligned by whole
    sentence, so a clause of the long causes sentence ("传感器会有噪声") would show the whole sentence,
    friction and motors first (blind 9 b9en-003); an English answer leaves such a clause out when the
    factor has a sentence of its own."""
    refs = fac.evidence if refs is None else refs
    if w.lang != "en" or fac.key == "general":  # the general factor is the list of causes itself
        return refs
    own = tuple((a, p) for a, p in refs if len([c for c in re.split(r"[，；。]", w.sentence(a, p)) if c]) < 4)
    return own or refs[:1]


def _factor_line(w: "Writer", fac: Factor, whole: bool = False) -> str:
    refs = _evidence_for(w, fac)
    evidence = [w.sentence(a, p) for a, p in refs]
    spans = [unnumber(s).rstrip("；;") for s in evidence] if whole else [_clause(s, p) for s, (_, p) in zip(evidence, refs)]
    # a whole sentence's 。 before a ；-joined next piece reads "模拟。 [1]；": the piece is quoted without it
    spans = [x.rstrip("。") if i < len(spans) - 1 else x for i, x in enumerate(spans)]
    cited = [w.quote(a, s) for (a, _), s in zip(refs, spans)]
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
    return w.bullet(anchor, w.sentence(anchor, ties), label=w.card.heading(anchor).rstrip("？?"))


def is_story(question: str) -> bool:
    """A symptom told (摔, 变差, slips, …), not a question about the card's list of scenarios."""
    from .intents import SYMPTOM

    q = fold(question)
    return bool(SYMPTOM.search(q) or table().story_cues.search(q)) and not re.search(r"场景|scenario", q)


def factors_for(f: "Focus") -> list[Factor]:
    """The story's factors: decided by the answerer's StoryMatcher when it set them, else cue words.
    A story that names no factor gets the card's general gap factors ([table().general]); a question
    that tells no story ("when should an engineer think of Sim2Real") gets []. The answerer reads a
    non-empty list as "the walkthrough answers in its own shape"."""
    t = table()
    if f.factors is not None:
        found = [t.factor(k) for k in f.factors if any(x.key == k for x in t.factors)]
    else:
        found = match_factors(f.question)
    story = is_story(f.question)
    if not story and all(x.key == (t.catch_all or "") for x in found):
        found = []  # "when should a solution engineer think of Sim2Real with a customer": no story, no factor
    if not found and story:
        return [t.general]
    return found


class _Blocks:
    """Renders a story answer's blocks; a card sentence or check said once is not said again."""

    def __init__(self, w: "Writer", f: "Focus", factors: list[Factor]):
        self.w, self.f, self.t = w, f, table()
        self.factors = factors
        self.general = factors == [self.t.general]
        self.used: set[str] = set()

    def _text(self, key: str, **kw: str) -> str:
        return self.t.text[key][self.w.lang].format(**kw)

    def _frame(self, text: str) -> str:
        return self.w.ledger.frame(f"**{text}**")

    def _fresh(self, *items: str) -> list[str]:
        out = []
        for it in items:
            if it and it not in self.used:
                self.used.add(it)
                out.append(it)
        return out

    def _cited(self, refs: tuple[tuple[str, str], ...]) -> list[str]:
        """The card sentences `refs` name, cited, each once per answer."""
        out = []
        for anchor, phrase in refs:
            s = unnumber(self.w.sentence(anchor, phrase))
            if s and f"{anchor}|{s}" not in self.used:
                self.used.add(f"{anchor}|{s}")
                q = self.w.quote(anchor, s)
                if q:
                    out.append(q)
        return out

    def _stop(self, quoted: str) -> str:
        """A cited clause said as a sentence: 。 before its marker (zh; English shows whole sentences)."""
        if self.w.lang != "zh":
            return quoted
        m = re.search(r"(?:\s*\[\d+\])+$", quoted)
        text, marks = (quoted[: m.start()], m.group(0)) if m else (quoted, "")
        return quoted if text.endswith(("。", "！", "？")) else text.rstrip("；;，,") + "。" + marks

    def _spans(self, refs: tuple[tuple[str, str], ...]) -> list[str]:
        """Card spans quoted as they stand (a part of a sentence), each once per answer."""
        out = []
        for anchor, span in refs:
            if f"{anchor}|{span}" not in self.used:
                self.used.add(f"{anchor}|{span}")
                q = self.w.quote(anchor, span)
                if q:
                    out.append(self._stop(q))
        return out

    def _say(self) -> list[str]:
        """The clauses that tell a customer what differs in this story: the strongest factor's `say`
        (default: its first evidence) and a second factor's first clause, clauses of one section joined
        into one cited sentence."""
        facs = [self.t.general] if self.general else self.factors[:2]
        refs = _evidence_for(self.w, facs[0], facs[0].say or facs[0].evidence[:1])
        if self.w.lang == "en":  # English shows whole sentences: one, the factor's own (not "weight, …"), not said yet
            refs = [(a, p) for a, p in refs if f"{a}|{_clause(self.w.sentence(a, p), p).rstrip('；;')}" not in self.used][-1:]
        else:  # a story naming two causes: the second factor's first clause too
            refs = (*refs, *[r for x in facs[1:] for r in (x.say or x.evidence)[:1]])
        groups: dict[str, list[str]] = {}
        for a, p in refs:
            c = _clause(self.w.sentence(a, p), p).rstrip("；;")
            if c and f"{a}|{c}" not in self.used:
                self.used.add(f"{a}|{c}")
                groups.setdefault(a, []).append(c)
        def sep(cs: list[str]) -> str:  # clauses of one sentence read with ，; labelled list items with ；
            return ("；" if any("：" in c for c in cs) else "，") if self.w.lang == "zh" else "; "

        return [self._stop(q) for a, cs in groups.items() if (q := self.w.quote(a, *cs, sep=sep(cs)))]

    def _blame(self) -> list[str]:
        """After a blame verdict: the card's reason it is not only the algorithm for this factor (scenario
        4's 不能只看算法效果 as its whole scenario line, said once; physical-system's 同一套算法…)."""
        if self.general:
            return []
        out = []
        for a, p in self.factors[0].blame:
            if a.startswith("scenario-"):
                out += self._fresh(_pattern_line(self.w, a))
            else:
                out += self._cited(((a, p),))
        return out

    def _names(self) -> str:
        sep = "、" if self.w.lang == "zh" else "; "
        return sep.join(re.sub(r"\s*\([^)]*\)", "", x.names[self.w.lang]) for x in self.factors)

    def _factor_lines(self) -> list[str]:
        if self.general:
            return self._fresh(_factor_line(self.w, self.t.general, whole=True))
        return self._fresh(*[_factor_line(self.w, x) for x in self.factors])

    def _checks(self, first_only: bool = False) -> list[str]:
        facs = self.factors[:1] if first_only else self.factors
        return self._fresh(*[self.w.ledger.frame(f"- {x.check[self.w.lang]}") for x in facs])

    def _methods(self) -> list[str]:
        methods = list(dict.fromkeys(x.method for x in self.factors if x.method))
        return self._fresh(*[_method_line(self.w, next(x for x in self.factors if x.method == m)) for m in methods])

    def render(self, block: str, point: bool) -> str:
        w = self.w
        if block == "verdict":
            v = self.t.verdict(self.f.question)
            cited = self._cited(v.cite)
            body = " ".join(cited) if cited else ""
            if not cited:  # a verdict line with no sentence of its own (retrain): the methods say it
                return lines(self._frame(v.line[w.lang]), *self._methods())
            return lines(self._frame(v.line[w.lang]), body, *(self._blame() if v.key == "blame" else ()))
        if block == "cause":
            if self.general:
                return lines(self._frame(self._text("general_point")) if point else
                             w.ledger.frame(f"**{label(w.lang, 'sc-factors')}**"), *self._factor_lines())
            head = self._frame(self._text("cause_point", names=self._names())) if point else \
                w.ledger.frame(f"**{label(w.lang, 'sc-factors')}**")
            return lines(head, *self._factor_lines())
        if block in ("checks", "check1"):
            items = self._checks(first_only=block == "check1")
            if not items:
                return ""
            head = self._text("checks_point") if point else (self._text("check1") if block == "check1" else label(w.lang, "sc-checks"))
            return lines(self._frame(head), *items)
        if block == "methods":
            items = self._methods()
            return lines(self._frame(self._text("methods_point")), *items) if items else ""
        if block == "scenario":
            # the strongest factor's card scenario only: a lighting story whose second factor is the
            # sensors is not the card's sensor-swap scenario
            anchors = [self.factors[0].pattern] if self.factors[0].pattern else []
            items = self._fresh(*[_pattern_line(w, a) for a in anchors])
            if not items:
                return ""
            return items[0] if point else lines(w.ledger.frame(f"**{label(w.lang, 'sc-patterns')}**"), *items)
        if block == "customer":
            # what one can say to the customer, each a cited card sentence or clause: the reality gap,
            # what differs in this story (the factor's `say`), and the closing span (never a line
            # addressed to our own engineers, such as 解决方案人员要知道)
            close = self.t.customer_close.get(w.lang, ())
            body = " ".join([*self._cited(self.t.customer_cite), *self._say(), *self._spans(close)])
            scen = self.render("scenario", point=True) if not self.general else ""
            return lines(self._frame(self._text("customer_point")), body, f"- {scen.lstrip('- ')}" if scen else "")
        if block == "one_line":
            return " ".join(self._cited(self.t.one_line_cite))
        if block == "deeper":
            if not self.f.followup:
                return ""
            return lines(*self._fresh(w.bullet("why-hard", w.sentence("why-hard", "完美复制品")),
                                      w.bullet("physical-system", w.sentence("physical-system", "越不准确"))))
        raise ValueError(block)


def story_shape(f: "Focus", t: Table | None = None) -> tuple[str, ...]:
    """The blocks a story answer shows, in order, for the question's act (data: scenarios.json shapes);
    a verdict variant may bring its own shape (retrain), a blame ("是不是算法的问题") answers the blame
    first, and "one line for the customer" is one card sentence."""
    t = t or table()
    q = fold(f.question)  # a follow-up's carries the earlier question: "客户说是软件的问题" + "那怎么讲" is still a blame
    # what the story itself asks in so many words; a follow-up's act was read from its own cue words
    act = (None if f.followup else t.asked_act(q)) or f.act
    if t.one_line.search(q):  # "one line for the customer": one card sentence, whatever act was read
        return ("one_line",)
    shape = t.shape(act)
    v = t.verdict(q)
    if v.shape is not None and act in ("verdict", "how"):
        return v.shape
    if v.key == "blame" and v.shape is None and shape[0] != "verdict":
        shape = ("verdict", *shape)
    return shape


def build_scenario(w: "Writer", f: "Focus") -> dict[str, str]:
    """A customer story answered in the shape its act asks for (scenarios.json "shapes"): the point
    first (the verdict, the cause, the check, the method, words for the customer), then only the
    blocks that act needs. A story no factor matches gets the card's general gap factors, said to be
    general. A question that tells no story gets the card's scenarios and when to think of Sim2Real."""
    factors = factors_for(f)
    if not factors:
        why = lines(w.bullet("reality-gap", w.sentence("reality-gap", "Reality Gap")),
                    w.bullet("solution-engineers", w.sentence("solution-engineers", "重点不是")))
        patterns = _section(w, "sc-patterns", *[_pattern_line(w, a) for a in SCENARIO_ANCHORS])
        first_patterns = f.act == "overview" or re.search(r"场景|scenario", fold(f.question))
        return {"body": "\n\n".join(x for x in ((patterns, why) if first_patterns else (why, patterns)) if x)}
    blocks = _Blocks(w, f, factors)
    parts: list[str] = []
    last = ""
    for block in story_shape(f):
        text = blocks.render(block, point=not parts)
        if not text:
            continue
        if block == "customer" and last == "verdict" and len(parts) == 1:
            # "客户说是我们软件的问题，怎么接": the blame's answer and the words for the customer are one point
            parts[0] += "\n" + text
        else:
            parts.append(text)
        last = block
    return {"body": "\n\n".join(parts)}
