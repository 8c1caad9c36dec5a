"""The customer-story table (`data/rules/scenarios.json`, docs/answering.md "Rule data files"):
gap factors (card tag, cue words, the card sentences that name it, the check it calls for, the one
method the card ties to it), the answer shape per act, verdict lines and matcher constants. Parsed
and validated once; every card sentence it names is checked when the answerer loads
(`check_scenarios`): a reworded card sentence is a start-up error naming it, never a shorter answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ..errors import AnswerDataError
from .lexicon import fold
from . import ruledata as rd

if TYPE_CHECKING:
    from .card import CardView

_TABLE = "scenarios.json"
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
    # the words for the customer (framing, zh/en): what differs, that the system needs adapting for it, what we
    # check first; our wording of the card scenario's tags, said before the card sentences that back it
    reply: dict[str, str] = field(default_factory=dict)
    # the reply states what the story itself told (a part swapped, this one unit against the others): said only
    # where the story names the factor, in its cue words or by a clear neighbour vote (Table.reply_min_vote)
    reply_if_named: bool = False


#: the blocks a story answer is made of (data/rules/scenarios.json "shapes" orders them per act; the
#: first is the point): verdict line + its card sentence, the gap factors ("cause"), every factor's
#: check or just the strongest one's, the methods the card ties to them, the card scenario it
#: resembles, a customer-facing explanation, one card sentence, and the deeper reason of a follow-up
BLOCKS = ("verdict", "cause", "checks", "check1", "methods", "scenario", "customer", "one_line", "deeper", "reason")
TEXTS = ("cause_point", "general_point", "customer_point", "methods_point", "checks_point", "check1", "no_pattern",
         "reason_point", "one_line_point", "checks_done", "letter_open")


@dataclass(frozen=True)
class Verdict:
    key: str
    cues: re.Pattern[str]
    line: dict[str, str]
    cite: tuple[tuple[str, str], ...]
    shape: tuple[str, ...] | None = None  # the shape this verdict answers with (None: the act's)
    asks: re.Pattern[str] | None = None  # the default only: a yes/no it answers must name these (the gap itself)
    # its line says the story is the reality gap ("it looks like the reality gap"): a story about a cause the card
    # does not list gets that cause's uncovered verdict instead
    says_gap: bool = False


@dataclass(frozen=True)
class TriedMethod:
    anchor: str                              # the method's card section
    cues: re.Pattern[str]                    # words naming it in a story
    instead: tuple[tuple[str, str], ...]     # (method anchor, phrase of its card sentence) offered in its place


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
    gap_told: re.Pattern[str] = rd.NEVER  # a result in simulation set against one on site ("仿真里99%，现场七成")
    cue_second: float | None = None  # a second factor the story names in words needs this neighbour vote
    # what a story names that the card does not cover (temperature): (cue words, line said first)
    # only when the story's strongest factor is one of `when_first` (a frosted floor is the ground, said plainly)
    uncovered: tuple[tuple[re.Pattern[str], dict[str, str], frozenset[str]], ...] = ()
    # per uncovered key: the card sentences said after its note when no factor of the card matches the story
    uncovered_cite: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # uncovered keys whose card sentences are said under the note even when a factor of the card is named
    uncovered_lead: frozenset[str] = frozenset()
    # a follow-up in a story conversation: per act, the blocks it shows (not the diagnosis again)
    followup_shapes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # which yes/no a story asks (the verdict kind): the labelled stories with a "verdict" label vote
    # (their `verdict_k` nearest), each kind whose cue words the story uses adds `verdict_cue`
    verdict_k: int = 5
    verdict_cue: float = 1.0
    verdict_min: float = 0.0  # the least vote that names a kind (below: the default)
    story_vote: float = 1.01  # a told story is answered as one when its act neighbours vote scenario at least this
    # ... or when at least this share of its nearest labelled stories (scenario_stories.jsonl) are stories,
    # not the rows labelled factors [] (general questions that merely use a symptom word)
    story_share: float = 1.01
    told_share: float = 1.01  # the same share for a question with no symptom or story cue (StoryMatcher.told)
    told_held: float = 1.01  # ... unless a labelled question (acts.jsonl) this close holds it: its topic stands
    # a `reply_if_named` factor's words are said when the story's words name it or its labelled neighbours vote it
    # at least this (a clear neighbour vote is the story told in other words: "3 of 50 units behave differently", 0.87)
    reply_min_vote: float = 0.0
    reason_cite: tuple[tuple[str, str], ...] = ()  # the card's reason said by a story's "why" follow-up
    tried: re.Pattern[str] = rd.NEVER  # words saying a check was already done ("已经调过", "already re-tuned")
    # per uncovered key: the line said instead of its note when the story asks "is this the gap?" (temperature:
    # "partly", then what the card does not cover), so a yes/no asked is answered (blind 15 b15-009)
    uncovered_verdict: dict[str, dict[str, str]] = field(default_factory=dict)
    # per uncovered key: the card factors that cause names by itself (wear: the body and its motors), kept for a
    # story that tells it in words no factor cue knows ("用了大半年越来越容易绊倒": b48-039 checked terrain only)
    uncovered_names: dict[str, frozenset[str]] = field(default_factory=dict)
    # the card's methods a story says were already applied ("仿真里已经加了域随机化"): never offered again as the
    # fix; its `instead` methods are (blind 15 b15-011 re-recommended the domain randomization the customer had)
    tried_methods: tuple["TriedMethod", ...] = ()
    method_tried_words: re.Pattern[str] = rd.NEVER
    # what a reply for a customer says after the gap line when the story names no factor: the card's sources of the
    # difference and what the real robot's data is for ("why on-site tuning after sim passed": blind 45 b45-039,
    # 47 b47-042, b47en-011 were the gap line and the engineering-process line alone, "thin, no concrete reasons")
    customer_general: tuple[tuple[str, str], ...] = ()

    def methods_tried(self, question: str) -> list["TriedMethod"]:
        """The methods the story says were applied: a method's cue and a `method_tried_words` word in one clause
        ("客户已经加了域随机化"; not "要不要上域随机化", not "是不是域随机化没用")."""
        clauses = re.split(r"[,.;!?，。；！？]", fold(question))
        return [m for m in self.tried_methods
                if any(m.cues.search(c) and self.method_tried_words.search(c) for c in clauses)]

    def done(self, f: Factor, question: str) -> bool:
        """Whether the story says this factor was already checked or tuned: its cue words in the clause of a
        `tried` word, before it ("把仿真里的摩擦重新调过了") or up to 24 characters after it ("we already re-tuned the
        friction"). Its check is then not asked again."""
        q = fold(question)
        out = False
        for m in self.tried.finditer(q):
            start = max((q.rfind(p, 0, m.start()) for p in ",.;!?，。；！？"), default=-1) + 1
            out = out or bool(f.cues.search(q[start: m.end() + 24]))
        return out

    def uncovered_line(self, question: str, lang: str, first: str = "general") -> str:
        return self.uncovered_for(question, lang, first)[0]

    def _uncovered_match(self, question: str, first: str) -> tuple[int, str] | None:
        """(index into `uncovered`, its key) of the first note whose cues the question uses and which applies
        when the story's strongest factor is `first`; None when none does."""
        q = fold(question)
        keys = list(self.uncovered_cite)  # the same order as `uncovered` (both parsed from one list)
        i = next((i for i, (cues, _l, when) in enumerate(self.uncovered) if cues.search(q) and first in when), None)
        return None if i is None else (i, keys[i] if i < len(keys) else "")

    def uncovered_for(self, question: str, lang: str, first: str = "general") -> tuple[str, tuple[tuple[str, str], ...]]:
        """(the note said first, the card sentences it cites when the story matches no factor of the card)."""
        found = self._uncovered_match(question, first)
        if found is None:
            return "", ()
        i, key = found
        return self.uncovered[i][1][lang], self.uncovered_cite.get(key, ())

    def uncovered_key(self, question: str, lang: str, first: str = "general") -> str:
        """The key of the uncovered note `uncovered_for` says ("" when none)."""
        found = self._uncovered_match(question, first)
        return "" if found is None else found[1]

    def asked_act(self, question: str) -> str | None:
        q = fold(question)
        return next((act for act, cues in self.asked if cues.search(q)), None)

    def asks(self, question: str, act: str) -> bool:
        """Whether `question` asks `act` in so many words, whatever other act it asks first."""
        q = fold(question)
        return any(a == act and cues.search(q) for a, cues in self.asked)

    def factor(self, key: str) -> Factor:
        return next(f for f in self.factors if f.key == key)

    def shape(self, act: str) -> tuple[str, ...]:
        return self.shapes.get(act) or self.shapes["default"]

    def verdict(self, question: str, key: str | None = None) -> Verdict:
        """The verdict kind `key` (the labelled stories' vote, story_match.StoryMatcher.verdict) when
        given, else the first whose cue words the question uses (the last is the default)."""
        if key is not None:
            found = next((v for v in self.verdicts if v.key == key), None)
            if found is not None:
                return found
        q = fold(question)
        return next(v for v in self.verdicts if v.cues is rd.NEVER or v.cues.search(q))

    def followup_shape(self, act: str) -> tuple[str, ...] | None:
        return self.followup_shapes.get(act)


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
    factors = []
    for entry, f in rd.keyed(_TABLE, "factors", data.get("factors"), "key"):
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
                              _evidence(f"{entry}.blame", f["blame"]) if f.get("blame") else (),
                              rd.lang_text(_TABLE, f"{entry}.reply", f.get("reply")),
                              rd.flag(_TABLE, f"{entry}.reply_if_named", f.get("reply_if_named", False))))
    if not factors:
        raise AnswerDataError(f"{src}: no factors")
    g = data.get("general")
    if not isinstance(g, dict):
        raise AnswerDataError(f"{src}: 'general' is missing")
    general = Factor("general", rd.lang_text(_TABLE, "general.names", g.get("names")), rd.NEVER, None,
                     _evidence("general", g.get("evidence")), rd.lang_text(_TABLE, "general.check", g.get("check")), None,
                     _evidence("general.say", g["say"]) if g.get("say") else (),
                     reply=rd.lang_text(_TABLE, "general.reply", g.get("reply")))
    m = data.get("match") or {}
    nums = {k: rd.number(_TABLE, f"match.{k}", m.get(k)) for k in ("k", "temperature", "min_vote", "cue_weight", "second_ratio")}
    if nums["k"] < 1 or nums["temperature"] <= 0:
        raise AnswerDataError(f"{src}: match: 'k' must be >= 1 and 'temperature' > 0")
    catch_all = m.get("catch_all")
    cue_second = m.get("cue_second")
    if cue_second is not None:
        cue_second = rd.number(_TABLE, "match.cue_second", cue_second)
    if catch_all is not None and catch_all not in {f.key for f in factors}:
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
                 gap_told=rd.compile_list(_TABLE, "gap_told", data["gap_told"]) if data.get("gap_told") else rd.NEVER,
                 cue_second=cue_second, uncovered=_uncovered(data.get("uncovered")),
                 uncovered_cite={u["key"]: _evidence(f"uncovered.{u['key']}.cite", u["cite"]) if u.get("cite") else ()
                                 for u in data.get("uncovered") or []},
                 uncovered_lead=frozenset(u["key"] for u in data.get("uncovered") or [] if u.get("lead") is True),
                 followup_shapes=_followup_shapes(data.get("followup_shapes")),
                 reason_cite=_evidence("reason.cite", (data.get("reason") or {}).get("cite")),
                 customer_general=_evidence("customer.general", (data.get("customer") or {}).get("general")),
                 verdict_k=int(rd.number(_TABLE, "match.verdict_k", m.get("verdict_k", 5))),
                 verdict_cue=rd.number(_TABLE, "match.verdict_cue", m.get("verdict_cue", 1.0)),
                 verdict_min=rd.number(_TABLE, "match.verdict_min", m.get("verdict_min", 0.0)),
                 story_vote=rd.number(_TABLE, "match.story_vote", m.get("story_vote", 1.01)),
                 story_share=rd.number(_TABLE, "match.story_share", m.get("story_share", 1.01)),
                 told_share=rd.number(_TABLE, "match.told_share", m.get("told_share", 1.01)),
                 told_held=rd.number(_TABLE, "match.told_held", m.get("told_held", 1.01)),
                 reply_min_vote=rd.number(_TABLE, "match.reply_min_vote", m.get("reply_min_vote", 0.0)),
                 tried=rd.compile_list(_TABLE, "tried", data["tried"]) if data.get("tried") else rd.NEVER,
                 uncovered_verdict={u["key"]: rd.lang_text(_TABLE, f"uncovered.{u['key']}.verdict", u["verdict"])
                                    for u in data.get("uncovered") or [] if u.get("verdict") is not None},
                 tried_methods=_tried_methods(data.get("tried_methods")),
                 uncovered_names=_uncovered_names(data.get("uncovered"), {f.key for f in factors}),
                 method_tried_words=rd.compile_list(_TABLE, "method_tried_words", data["method_tried_words"])
                 if data.get("method_tried_words") else rd.NEVER)


def _tried_methods(raw: object) -> tuple[TriedMethod, ...]:
    out = []
    for entry, m in rd.keyed(_TABLE, "tried_methods", raw or [], "anchor"):
        out.append(TriedMethod(m["anchor"], rd.compile_list(_TABLE, f"{entry}.cues", m.get("cues")),
                               _evidence(f"{entry}.instead", m.get("instead"))))
    return tuple(out)


def _followup_shapes(raw: object) -> dict[str, tuple[str, ...]]:
    from .acts import ACTS

    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise AnswerDataError(f"{rd.source(_TABLE)}: followup_shapes: must map acts to blocks")
    bad = [a for a in raw if a not in ACTS]
    if bad:
        raise AnswerDataError(f"{rd.source(_TABLE)}: followup_shapes: unknown act(s) {bad}; choose from {', '.join(ACTS)}")
    return {a: _shape(f"followup_shapes.{a}", v) for a, v in raw.items()}


def _uncovered(raw: object) -> tuple[tuple[re.Pattern[str], dict[str, str], frozenset[str]], ...]:
    out = []
    for entry, u in rd.keyed(_TABLE, "uncovered", raw or [], "key"):
        when = u.get("when_first")
        if not (isinstance(when, list) and when and all(isinstance(x, str) for x in when)):
            raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}: 'when_first' must list factor keys")
        out.append((rd.compile_list(_TABLE, f"{entry}.cues", u.get("cues")), rd.lang_text(_TABLE, f"{entry}.line", u.get("line")),
                    frozenset(when)))
    return tuple(out)


def _uncovered_names(raw: object, keys: set[str]) -> dict[str, frozenset[str]]:
    out = {}
    for entry, u in rd.keyed(_TABLE, "uncovered", raw or [], "key"):
        names = u.get("names", [])
        if not (isinstance(names, list) and all(x in keys for x in names)):
            raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}: 'names' must list factor keys of 'factors'")
        out[u["key"]] = frozenset(names)
    return out


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
    """act -> blocks; every key is an act of answer/acts.py, "default" (which must be there) or "letter" (an
    email draft asked for: data/forms.json)."""
    from .acts import ACTS

    if not isinstance(raw, dict) or "default" not in raw:
        raise AnswerDataError(f"{rd.source(_TABLE)}: shapes: needs a 'default' shape")
    bad = [a for a in raw if a not in ("default", "letter") and a not in ACTS]
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
        asks = rd.compile_list(_TABLE, f"{entry}.asks", v["asks"]) if v.get("asks") else None
        says_gap = v.get("says_gap", False)
        if not isinstance(says_gap, bool):
            raise AnswerDataError(f"{rd.source(_TABLE)}: {entry}.says_gap: must be true or false")
        out.append(Verdict(v["key"], cues, rd.lang_text(_TABLE, f"{entry}.line", v.get("line")), cite, shape, asks,
                           says_gap))
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
             *(("customer", c) for c in t.customer_cite), *(("reason", c) for c in t.reason_cite),
             *(("customer.general", c) for c in t.customer_general),
             *((f"uncovered.{k}", c) for k, refs in t.uncovered_cite.items() for c in refs),
             *((f"tried_methods.{m.anchor}.instead", c) for m in t.tried_methods for c in m.instead),
             *((f"customer.close.{lang}", c) for lang, refs in t.customer_close.items() for c in refs)]
    for where, (anchor, phrase) in cites:
        if not any(phrase in s for s in card.sents(anchor)):
            missing.append(f"{where}: section {anchor!r} has no sentence containing {phrase!r}")
    if missing:
        raise AnswerDataError(f"{rd.source(_TABLE)}: the card no longer has what the table names: " + "; ".join(missing))
