"""The card sentences that answer an act first, loaded from `data/leads.json` and checked against the
card when the answerer loads: a sentence that is not on the card is a start-up error naming it
(AnswerDataError), never a silently shorter answer."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources

from ..errors import AnswerDataError
from ..models import Intent
from .acts import ACTS
from .card import CardView
from .lexicon import fold

#: a question's sentences, each with its closing mark ("…了吧？" / "…软件")
_SENTENCE = re.compile(r"[^。！？!?]+[。！？!?]*")

Ref = tuple[str, str]  # (anchor, a phrase the sentence contains)


# words that may sit between a negation and what it negates ("without any RL", "不用任何仿真")
_FILLER = re.compile(r"\s*(?:(?:any|the|a|an|using|doing|even)\s+|任何|完全|再){0,2}\s*")
# "the card gives no X" of two or more things asked ("卡片没有给出{X}，也没有给出{Y}。")
_ALSO_MISSING = {"zh": "，也没有给出", "en": ", nor "}

@dataclass(frozen=True)
class Claim:
    lead: tuple[Ref, ...]
    verdict: dict[str, str] | None  # short framing line per language ("不是。"), shown with the card sentence that says why
    topic: Intent | None = None  # the material that supports the verdict, when not the question's own topic
    cue: re.Pattern[str] | None = None  # words that name this claim in a yes/no question, whatever the neighbours vote
    # whether the claim as its labelled questions state it is true per the card (its verdict line answers that
    # side); a reader who states the other side gets the other answer (data/claim_statements.jsonl, polarity.py)
    holds: bool | None = None
    # words that state the claim's other side ("还得再验证" for direct-deploy): that side, unless negated
    other_cue: re.Pattern[str] | None = None
    # the subject the claim is about, which a question (or the conversation it follows) must name for its
    # neighbours to read the claim: "客户想把仿真里训好的策略装到改装过的机器人上，说反正算法一样，可行吗"
    # sits near "强化学习全部放到实体机器人上练，可行吗" and read the RL claim (dev b17-014)
    subject: re.Pattern[str] | None = None
    # read only where its cue matches, and there over any claim the neighbours read: a cue that names a part
    # AND says it is enough ("把质量调对就一劳永逸了？") is more specific than the neighbours, which read the
    # part's topic ("is matching the mass enough?" read body-params, "Yes, the card says so") or, alone, a
    # neighbouring claim's questions (perfect-sim's)
    by_cue: bool = False
    # a by_cue claim asked inside a told story still answers it ("客户现场效果差，我是不是得先问清楚他们用的哪种算法？"
    # is no question about the site's gap: blind 35 b35-008 got the story's 「是的，这属于 Reality Gap」)
    over_story: bool = False
    # the verdict and its lead sentences are the whole answer: the topic's body under them re-explained what was not
    # asked ("RL 也能直接在真机上练吧" got 都可以 and then both sides of RL vs Sim2Real, blind 37 b37-006, b37en-023)
    alone: bool = False


@dataclass(frozen=True)
class Missing:
    """Something the card never gives (a number, a vendor, a ranking)."""

    kind: str
    cue: re.Pattern[str]
    names: dict[str, str]
    decline: bool  # nothing on the card bears on it: decline instead of answering around it
    decisive: bool = False  # the cue alone makes the act not_in_card, whatever the neighbours vote
    # the cue in a question's own form ("how many hours", "多久"): asked, never a story's mention of it, so
    # the neighbours' other acts do not overrule it (blind 11 b11en-025 "how many hours ... before it goes on
    # hardware" read as why-simulation and answered without saying the card gives no hours)
    asked: re.Pattern[str] | None = None
    # the card sentences that bear on what is missing, said first after "the card does not give …" (blind 13
    # b13en-028: "no complex formulas needed" stood as what the card says about success rates)
    says: tuple[Ref, ...] = ()
    # phrasings in which the cue is not what is asked ("要不要先问客户用的哪种算法" asks whether to ask: the card
    # answers that, 重点不是问客户使用了什么算法)
    unless: re.Pattern[str] | None = None
    # sections the kind is about, when only a question about one of them lacks it ("真机微调具体怎么弄": the card
    # gives each method one example line and no procedure, while the whole process has its six steps); empty: any
    parts: tuple[str, ...] = ()
    # the act such a question still is ("具体怎么做" asks how): answered "the card does not give …" all the same
    act: str | None = None
    # declined even where the question names a card topic (a licence fee for the simulator: 仿真 names one)
    always_decline: bool = False

    def is_asked(self, question: str) -> bool:
        return self.asked is not None and bool(self.asked.search(question.lower()))


def _refs(where: str, raw) -> tuple[Ref, ...]:
    if not isinstance(raw, list) or not all(isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r)
                                            for r in raw):
        raise AnswerDataError(f"data/leads.json {where}: expected a list of [anchor, phrase] pairs")
    return tuple((a, p) for a, p in raw)


@dataclass(frozen=True)
class Words:
    """Plain words for a customer about a topic (leads.json customer_words), and the card sentences they restate."""

    text: dict[str, str]      # language -> the words, in quotation marks
    rests_on: tuple[Ref, ...]  # cited right after them, every one
    unless: re.Pattern[str] | None = None  # a question about this, though of the topic, is not answered by them


@dataclass(frozen=True)
class Condition:
    """A condition a comparison may ask about, and the compared sides the card ties to it."""

    cue: re.Pattern[str]
    fits: tuple[str, ...]     # sections that fit the condition
    against: tuple[str, ...]  # sections the card rules out under it
    verdict: dict[str, str]   # framing per language: {fit} / {against} are the sides' names
    id: str = ""              # the label acts.jsonl examples carry as 'condition' (read by neighbours)
    opposite: str | None = None  # the condition it negates ("no data" / "data at hand"): an embedding hardly
                                 # tells them apart, so such a pair is read by cue words only
    asks: bool = False        # its cue asks which sides fit ("哪几个得用真实数据", "which of those use real data"):
                              # the cue answers whatever act the question reads and on a follow-up too


@dataclass(frozen=True)
class ArcLine:
    """One line of an overview: a framing label per language ("{names}" filled with the named sections'
    names) and the card sentences it quotes."""

    label: dict[str, str]
    refs: tuple[Ref, ...]
    names: tuple[str, ...] = ()


def _conditions(raw) -> tuple[Condition, ...]:
    if not isinstance(raw, list):
        raise AnswerDataError("data/leads.json compare_conditions: expected a list")
    out = []
    for i, c in enumerate(raw):
        where = f"compare_conditions[{i}]"
        ok = (isinstance(c, dict) and isinstance(c.get("verdict"), dict)
              and all(isinstance(c["verdict"].get(k), str) for k in ("zh", "en"))
              and all(isinstance(c.get(k, []), list) and all(isinstance(x, str) for x in c.get(k, []))
                      for k in ("fits", "against")) and (c.get("fits") or c.get("against")))
        if not ok or not isinstance(c.get("id"), str) or not c["id"]:
            raise AnswerDataError(f"data/leads.json {where}: needs 'id', 'cue', 'fits' and/or 'against' (anchors) "
                                  "and 'verdict' {zh, en}")
        for lang, text in c["verdict"].items():
            names = set(re.findall(r"{(\w+)}", text))
            if not names <= {"fit", "against"} or ("against" in names and not c.get("against")):
                raise AnswerDataError(f"data/leads.json {where}.verdict.{lang}: only {{fit}} and {{against}} "
                                      "(with an 'against' list) may be named")
        out.append(Condition(_pattern(f"{where}.cue", c.get("cue")), tuple(c.get("fits", [])),
                             tuple(c.get("against", [])), dict(c["verdict"]), c["id"], c.get("opposite"),
                             c.get("asks") is True))
    ids = {c.id for c in out}
    if len(ids) != len(out):
        raise AnswerDataError("data/leads.json compare_conditions: ids must be unique")
    for c in out:
        if c.opposite is not None and c.opposite not in ids:
            raise AnswerDataError(f"data/leads.json compare_conditions {c.id}: unknown opposite {c.opposite!r}")
    return tuple(out)


def _pattern(where: str, raw) -> re.Pattern[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        raise AnswerDataError(f"data/leads.json {where}: expected a non-empty pattern")
    try:
        return re.compile(raw, re.I)
    except re.error as exc:
        raise AnswerDataError(f"data/leads.json {where}: bad pattern ({exc})") from exc


@dataclass(frozen=True)
class ExampleSetting:
    """An example asked for a setting of the reader's own (leads.json example_setting): `cue`'s named groups hold the
    setting's words; `line` (zh, en) says the card has no example for it, before the card's own."""

    cue: re.Pattern[str]
    unless: re.Pattern[str] | None
    line: dict[str, str]
    generic: frozenset[str] = frozenset()  # nouns that name no setting ("东西", "情况")

    def named(self, question: str, unknown: Callable[[str], list[str]]) -> bool:
        """The question (folded) asks an example for a setting whose words include one the card never uses."""
        if self.unless is not None and self.unless.search(question):
            return False
        hit = self.cue.search(question)
        return hit is not None and any(set(unknown(g)) - self.generic for g in hit.groupdict().values() if g)


def _example_setting(raw) -> ExampleSetting | None:
    if raw is None:
        return None
    cue = _pattern("example_setting.cue", raw.get("cue")) if isinstance(raw, dict) else None
    generic = raw.get("generic", []) if isinstance(raw, dict) else None
    if cue is None or not cue.groupindex or not all(isinstance(raw.get(x), str) and raw[x].strip() for x in ("zh", "en")) \
            or not isinstance(generic, list) or not all(isinstance(w, str) and w.strip() for w in generic):
        raise AnswerDataError("data/leads.json example_setting: expected {cue (with named groups for the setting's "
                              "words), unless (optional), generic (optional: [word, ...]), zh, en}")
    return ExampleSetting(cue, _pattern("example_setting.unless", raw.get("unless")), {x: raw[x] for x in ("zh", "en")},
                          frozenset(generic))


@dataclass(frozen=True)
class ExampleThin:
    """Card parts whose only example is one line restating the part (leads.json example_thin): an example asked of
    one of them says first that the card gives no worked case of it (`line`, zh/en, with {name})."""

    names: dict[str, dict[str, str]]  # anchor -> {zh, en}: the part's name
    line: dict[str, str]

    def said(self, anchor: str, lang: str) -> str | None:
        name = self.names.get(anchor)
        return self.line[lang].format(name=name[lang]) if name else None


def _example_thin(raw) -> ExampleThin | None:
    if raw is None:
        return None
    names = raw.get("parts") if isinstance(raw, dict) else None
    if not (isinstance(names, dict) and names and all(isinstance(v, dict) and all(isinstance(v.get(x), str) and v[x].strip()
                                                                                   for x in ("zh", "en")) for v in names.values())
            and all(isinstance(raw.get(x), str) and "{name}" in raw[x] for x in ("zh", "en"))):
        raise AnswerDataError("data/leads.json example_thin: expected {parts: {anchor: {zh, en}}, zh, en} with {name} "
                              "in each line")
    return ExampleThin({a: dict(v) for a, v in names.items()}, {x: raw[x] for x in ("zh", "en")})


def _cue_line(where: str, entry) -> tuple[re.Pattern[str], dict[str, str]] | None:
    """(cue, verdict line per language) of an optional {cue, verdict: {zh, en}} entry."""
    if entry is None:
        return None
    if not (isinstance(entry, dict) and isinstance(entry.get("verdict"), dict)
            and all(isinstance(entry["verdict"].get(k), str) for k in ("zh", "en"))):
        raise AnswerDataError(f"data/leads.json {where}: needs 'cue' and 'verdict' {{zh, en}}")
    return _pattern(f"{where}.cue", entry.get("cue")), dict(entry["verdict"])


def _fillers(rows) -> dict[str, tuple[str, str]]:
    """leads.json filler_clauses as {Chinese clause: (section, its English)}; checked against the card in `check`."""
    if not isinstance(rows, list) or not all(isinstance(r, dict) and set(r) == {"anchor", "zh", "en"}
                                             and all(isinstance(v, str) and v.strip() for v in r.values()) for r in rows):
        raise AnswerDataError('data/leads.json filler_clauses: expected [{"anchor", "zh", "en"}, ...] of non-empty strings')
    return {r["zh"]: (r["anchor"], r["en"]) for r in rows}


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
            holds = c.get("holds")
            if holds is not None and not isinstance(holds, bool):
                raise AnswerDataError(f"data/leads.json claims.{cid}: 'holds' must be true or false")
            self.claims[cid] = Claim(_refs(f"claims.{cid}", c.get("lead")), c.get("verdict"),
                                     Intent(topic) if topic else None, _pattern(f"claims.{cid}.cue", c.get("cue")),
                                     holds, _pattern(f"claims.{cid}.other_cue", c.get("other_cue")),
                                     _pattern(f"claims.{cid}.subject", c.get("subject")), c.get("by_cue") is True,
                                     c.get("over_story") is True, c.get("alone") is True)
            if c.get("alone") not in (None, True, False):
                raise AnswerDataError(f"data/leads.json claims.{cid}: 'alone' must be true or false")
            if c.get("by_cue") not in (None, True, False) or (c.get("by_cue") and self.claims[cid].cue is None):
                raise AnswerDataError(f"data/leads.json claims.{cid}: 'by_cue' must be true or false, with a 'cue'")
            if c.get("over_story") not in (None, True, False) or (c.get("over_story") and not (
                    c.get("by_cue") and self.claims[cid].topic is not None)):
                raise AnswerDataError(f"data/leads.json claims.{cid}: 'over_story' must be true or false, on a "
                                      "by_cue claim with a 'topic'")
        self.yes_no = _pattern("yes_no_shape", data.get("yes_no_shape"))
        wh = data.get("wh_shape") or {}
        if not isinstance(wh, dict):
            raise AnswerDataError("data/leads.json wh_shape: needs 'pattern' and 'unless'")
        self.sim_fault = _pattern("sim_fault", data.get("sim_fault"))
        self.wh = _pattern("wh_shape.pattern", wh.get("pattern"))
        self.wh_unless = _pattern("wh_shape.unless", wh.get("unless"))
        self.why_led = _pattern("wh_shape.why_led", wh.get("why_led"))
        self.reported = _pattern("reported_speech", data.get("reported_speech"))
        if self.reported is not None and "said" not in self.reported.groupindex:
            raise AnswerDataError("data/leads.json reported_speech: needs a named group 'said' (what was said)")
        terms = data.get("compare_terms", {})
        if not isinstance(terms, dict):
            raise AnswerDataError("data/leads.json compare_terms: expected {section anchor: pattern}")
        self.compare_terms = {a: _pattern(f"compare_terms.{a}", t) for a, t in terms.items()}
        self.never = _refs("never_lead", data.get("never_lead", []))
        self.reader_only = _refs("reader_only", data.get("reader_only", []))
        addressed = data.get("reader_openers", [])
        if not isinstance(addressed, list) or not all(isinstance(o, str) and o.strip() for o in addressed):
            raise AnswerDataError("data/leads.json reader_openers: expected a list of non-empty strings")
        self.reader_openers = tuple(addressed)
        self._fillers = _fillers(data.get("filler_clauses", []))
        self.fillers: dict[str, str] = {}  # Chinese clause -> its English, once checked against the card
        only = data.get("lead_only_for", {})
        if not isinstance(only, dict) or any(t not in intents for t in only):
            raise AnswerDataError("data/leads.json lead_only_for: expected {topic: [[anchor, phrase], ...]} with known topics")
        self.only_for = {t: _refs(f"lead_only_for.{t}", refs) for t, refs in only.items()}
        not_act = data.get("never_lead_act", {})
        if not isinstance(not_act, dict) or any(x.partition(":")[0] not in intents or x.partition(":")[2] not in ACTS
                                                for x in not_act):
            raise AnswerDataError("data/leads.json never_lead_act: expected {'topic:act': [[anchor, phrase], ...]} "
                                  "with known topics and acts")
        self.never_act = {x: _refs(f"never_lead_act.{x}", refs) for x, refs in not_act.items()}
        self.conditions = _conditions(data.get("compare_conditions", []))
        # "which one should we pick" with no condition the card ties to a side: say the card does not rank them
        self.unranked = _cue_line("compare_unranked", data.get("compare_unranked"))
        # "are X and Y the same thing?" of two sides: say they are not, then what each one does
        self.same = _cue_line("compare_same", data.get("compare_same"))
        # what sets two compared sides apart, in one line (round 33: "域随机化和系统辨识有啥区别" got the two lines and
        # never said the difference, blind 31 b31-008, b31en-026): a framing line, each half a card sentence's gist
        self.contrast: dict[frozenset[str], dict[str, str]] = {}
        for i, c in enumerate(data.get("compare_contrast", {}).get("pairs", [])):
            sides = c.get("sides") if isinstance(c, dict) else None
            if not (isinstance(sides, list) and len(sides) == 2 and all(isinstance(x, str) for x in sides)
                    and all(isinstance(c.get(k), str) and c[k] for k in ("zh", "en"))):
                raise AnswerDataError(f"data/leads.json compare_contrast.pairs[{i}]: needs 'sides' (two card anchors), "
                                      "'zh' and 'en'")
            self.contrast[frozenset(sides)] = {"zh": c["zh"], "en": c["en"]}
        self.opposite = _cue_line("compare_opposite", data.get("compare_opposite"))
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
        tf = data.get("table_first", {})
        if not isinstance(tf, dict) or any(t not in intents or not isinstance(a, list) or any(x not in ACTS for x in a)
                                           for t, a in tf.items()):
            raise AnswerDataError("data/leads.json table_first: expected {topic: [act, ...]} with known topics and acts")
        self.table_first = frozenset((t, x) for t, a in tf.items() for x in a)
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
        self.missing = []
        # a request for "a number" of whatever is asked ("need a number for the deck"): no second thing asked
        self.missing_generic = _pattern("missing_generic", data.get("missing_generic"))
        for kind, m in data.get("not_in_card", {}).items():
            if kind.startswith("_"):
                continue
            try:
                asked = re.compile(m["asked"]) if m.get("asked") else None
                self.missing.append(Missing(kind, re.compile(m["cue"]), {"zh": m["zh"], "en": m["en"]},
                                            bool(m["decline"]), bool(m.get("decisive", False)), asked,
                                            _refs(f"not_in_card.{kind}.says", m.get("says", [])),
                                            re.compile(m["unless"]) if m.get("unless") else None,
                                            tuple(m.get("parts", ())), m.get("act"), bool(m.get("always_decline", False))))
                if m.get("act") not in (None, *ACTS):
                    raise AnswerDataError(f"data/leads.json not_in_card {kind}: unknown act {m['act']!r}")
            except (re.error, KeyError) as exc:
                raise AnswerDataError(f"data/leads.json not_in_card {kind}: {exc}") from exc
        # "pros and cons of X": one line of the card's upside and one of its downside, per topic whose card
        # states both (blind 10-12: b10-052, b11-042, b12-041, b12en-027 listed the upsides only)
        pc = data.get("pros_cons", {})
        if not isinstance(pc, dict) or any(t not in intents for t in pc.get("topics", {})) or (
                pc and not all(isinstance(pc.get("labels", {}).get(k), list) and len(pc["labels"][k]) == 2
                               for k in ("zh", "en"))):
            raise AnswerDataError("data/leads.json pros_cons: needs 'cue', 'labels' {zh, en: [pro, con]} and "
                                  "'topics' {topic: {pros: refs, cons: refs}} with known topics")
        self.pros_cons_cue = _pattern("pros_cons.cue", pc.get("cue"))
        self.pros_cons_labels = {k: tuple(v) for k, v in pc.get("labels", {}).items()}
        self.pros_cons = {t: (_refs(f"pros_cons.{t}.pros", v.get("pros")), _refs(f"pros_cons.{t}.cons", v.get("cons")))
                          for t, v in pc.get("topics", {}).items()}
        # "sim2real 跟域随机化啥关系": a whole and a part the card lists under it; the relation leads
        po = data.get("compare_part_of")
        if po is not None and not (isinstance(po, dict) and isinstance(po.get("whole"), str)
                                   and isinstance(po.get("parts"), list)
                                   and all(isinstance(po.get("verdict", {}).get(k), str) for k in ("zh", "en"))):
            raise AnswerDataError("data/leads.json compare_part_of: needs 'whole', 'parts' and 'verdict' {zh, en}")
        self.part_of = po
        an = data.get("analogy")
        if an is not None and not (isinstance(an, dict) and isinstance(an.get("cue"), str)):
            raise AnswerDataError("data/leads.json analogy: needs 'cue' and 'lead' [[anchor, phrase], ...]")
        self.analogy = None if an is None else (_pattern("analogy.cue", an["cue"]), _refs("analogy.lead", an.get("lead")))
        # a topic whose card section has a picture of its own: "an analogy?" after "is Sim2Real the same as RL?"
        # asks for a picture of that difference, not of why robots train in simulation (blind 15 b15en-027)
        at = (an or {}).get("topics", {})
        if not isinstance(at, dict) or any(t not in intents for t in at):
            raise AnswerDataError("data/leads.json analogy.topics: expected {topic: [[anchor, phrase], ...]} with known topics")
        self.analogy_topics = {Intent(t): _refs(f"analogy.topics.{t}", v) for t, v in at.items()}
        # a topic's plain version where it is no analogy: the reality gap's plain line and its concrete differences
        pl = (an or {}).get("plain", {})
        if not isinstance(pl, dict) or any(t not in intents for t in pl):
            raise AnswerDataError("data/leads.json analogy.plain: expected {topic: [[anchor, phrase], ...]} with known topics")
        self.plain = {Intent(t): _refs(f"analogy.plain.{t}", v) for t, v in pl.items()}
        # the one sentence of a topic's picture or plain version that a one-line ask keeps ("plain english? one line
        # pls" got the three-sentence walking scene, blind 31 b31en-001)
        ol = (an or {}).get("one_line", {})
        if not isinstance(ol, dict) or any(t not in intents for t in ol):
            raise AnswerDataError("data/leads.json analogy.one_line: expected {topic: [[anchor, phrase]]} with known topics")
        self.picture_line = {Intent(t): _refs(f"analogy.one_line.{t}", v) for t, v in ol.items()}
        # plain words for a customer about a whole topic, each resting on card sentences the answer cites after them
        cw = {k: v for k, v in data.get("customer_words", {}).items() if not k.startswith("_")}
        if any(t not in intents or not isinstance(v, dict)
               or not all(isinstance(v.get(x), str) and v[x].startswith("“") and v[x].endswith("”") for x in ("zh", "en"))
               for t, v in cw.items()):
            raise AnswerDataError("data/leads.json customer_words: expected {topic: {zh: '“…”', en: '“…”', rests_on: "
                                  "[[anchor, phrase], ...]}} with known topics, each wording in quotation marks")
        self.customer_words = {Intent(t): Words({x: v[x] for x in ("zh", "en")}, _refs(f"customer_words.{t}.rests_on", v.get("rests_on")),
                                                _pattern(f"customer_words.{t}.unless", v.get("unless")))
                               for t, v in cw.items()}
        self.example_setting = _example_setting(data.get("example_setting"))
        self.example_thin = _example_thin(data.get("example_thin"))
        pt = data.get("pair_topics", [])
        if not isinstance(pt, list) or any(t not in intents for t in pt):
            raise AnswerDataError("data/leads.json pair_topics: expected [topic, ...] with known topics")
        self.pair_topics = frozenset(Intent(t) for t in pt)
        ll = data.get("one_line_lead", {})
        if not isinstance(ll, dict) or any(t not in intents for t in ll):
            raise AnswerDataError("data/leads.json one_line_lead: expected {topic: [[anchor, phrase]]} with known topics")
        self.one_line_lead = {Intent(t): _refs(f"one_line_lead.{t}", v) for t, v in ll.items()}
        oc = data.get("one_line_compare", {"lead": {}, "relation": {}})
        if not isinstance(oc, dict) or any(not isinstance(oc.get(k), dict) or any(t not in intents for t in oc[k])
                                           for k in ("lead", "relation")):
            raise AnswerDataError("data/leads.json one_line_compare: expected {'lead': {topic: [[anchor, phrase]]}, "
                                  "'relation': {topic: [[anchor, phrase]]}, 'relation_asked': pattern} with known topics")
        self.one_line_compare = {Intent(t): _refs(f"one_line_compare.lead.{t}", v) for t, v in oc["lead"].items()}
        self.one_line_relation = {Intent(t): _refs(f"one_line_compare.relation.{t}", v) for t, v in oc["relation"].items()}
        self.relation_asked = _pattern("one_line_compare.relation_asked", oc.get("relation_asked"))
        il = data.get("item_leads", {})
        if not isinstance(il, dict) or any(not isinstance(v, dict) or any(not isinstance(x, dict) for x in v.values())
                                           for v in il.values()):
            raise AnswerDataError("data/leads.json item_leads: expected {act: {anchor: {item phrase: [[anchor, phrase]]}}}")
        if unknown := sorted(set(il) - set(ACTS)):
            raise AnswerDataError(f"data/leads.json item_leads: unknown act(s) {unknown}; choose from {', '.join(ACTS)}")
        self.item_leads = {(act, a, item): _refs(f"item_leads.{act}.{a}.{item}", refs)
                           for act, lists in il.items() for a, items in lists.items() for item, refs in items.items()}
        pi = data.get("pitch")
        if pi is not None and not (isinstance(pi, dict) and isinstance(pi.get("cue"), str) and isinstance(pi.get("lead"), dict)
                                   and all(t in intents for t in pi["lead"])):
            raise AnswerDataError("data/leads.json pitch: needs 'cue' (a pattern) and 'lead' {topic: [[anchor, phrase]]}")
        self.pitch_cue = _pattern("pitch.cue", pi["cue"]) if pi else None
        self.pitch_one_line = _pattern("pitch.one_line_cue", pi.get("one_line_cue")) if pi else None
        self.pitch_lead = {Intent(t): _refs(f"pitch.lead.{t}", v) for t, v in (pi or {}).get("lead", {}).items()}
        self.pitch_line = {Intent(t): _refs(f"pitch.one_line.{t}", v) for t, v in (pi or {}).get("one_line", {}).items()}
        if any(t not in self.pitch_lead for t in self.pitch_line):
            raise AnswerDataError("data/leads.json pitch.one_line: every topic needs a 'lead' too")
        nc = data.get("negated_cue")
        if nc is not None and not (isinstance(nc, dict) and all(isinstance(nc.get(k), str) for k in ("pattern", "asking", "clause"))):
            raise AnswerDataError("data/leads.json negated_cue: needs 'pattern', 'asking' and 'clause'")
        self.negated = None if nc is None else tuple(_pattern(f"negated_cue.{k}", nc[k]) for k in ("pattern", "asking", "clause"))
        ra = data.get("ranking_ask")
        if ra is not None and not (isinstance(ra, dict) and isinstance(ra.get("sides"), list) and len(ra["sides"]) >= 2
                                   and isinstance(ra.get("cue"), str) and isinstance(ra.get("group"), str)
                                   and all(isinstance(ra.get("verdict", {}).get(k), str) for k in ("zh", "en"))):
            raise AnswerDataError("data/leads.json ranking_ask: needs 'cue', 'group', 'sides' (two or more) and 'verdict' {zh, en}")
        self.ranking = None if ra is None else (_pattern("ranking_ask.cue", ra.get("cue")),
                                                _pattern("ranking_ask.group", ra.get("group")),
                                                tuple(ra["sides"]), ra["verdict"])
        # "walk me through sim2real" / "an overview for a customer deck": the card's arc in a few labelled, cited
        # lines (what it is, why simulation, the gap, the four methods, when to think of it), not the definition
        # block nor the lines closest to the words "overview" (blind 15 b15-061, b15en-034)
        ov = data.get("overview_arc")
        if ov is not None and not (isinstance(ov, dict) and isinstance(ov.get("topics"), list)
                                   and all(t in intents for t in ov["topics"]) and isinstance(ov.get("lines"), list)
                                   and all(isinstance(x, dict) and all(isinstance((x.get("label") or {}).get(k), str)
                                                                       for k in ("zh", "en")) for x in ov["lines"])):
            raise AnswerDataError("data/leads.json overview_arc: needs 'topics' (known topics) and 'lines' "
                                  "[{label: {zh, en}, refs: [[anchor, phrase]], names: [anchor, ...]}]")
        self.arc_topics = frozenset(ov["topics"]) if ov else frozenset()
        self.arc_cue = _pattern("overview_arc.cue", ov.get("cue")) if ov else None
        self.arc = tuple(ArcLine({k: x["label"][k] for k in ("zh", "en")}, _refs(f"overview_arc.lines[{i}].refs", x.get("refs")),
                                 tuple(x.get("names", [])))
                         for i, x in enumerate(ov["lines"] if ov else []))
        lc = data.get("list_counts", {})
        numbers = lc.get("numbers", {})
        if not (isinstance(numbers, dict) and all(isinstance(k, str) and k.strip() and isinstance(v, int) and v >= 2
                                                  for k, v in numbers.items())
                and isinstance(lc.get("zh_measures", ""), str)):
            raise AnswerDataError("data/leads.json list_counts: needs 'numbers' {word: count >= 2} and 'zh_measures' (a string)")
        self.counts = {k.lower(): v for k, v in numbers.items()}
        zh = "".join(re.escape(k) for k in numbers if not k.isascii())
        en = "|".join(re.escape(k) for k in numbers if k.isascii())
        alts = ([f"([{zh}])[{re.escape(lc.get('zh_measures', ''))}]"] if zh and lc.get("zh_measures") else []) + \
            ([rf"\b({en})\b"] if en else [])
        self.count_cue = re.compile("|".join(alts), re.I) if alts else None
        self.card = card
        self.check()

    def announced(self, text: str) -> int | None:
        """The count of things a line announces ("四种直观思路", "four intuitive ideas"), or None."""
        m = self.count_cue.search(text) if self.count_cue is not None else None
        return self.counts[next(g for g in m.groups() if g).lower()] if m else None

    def all_refs(self):
        for key, refs in self.leads.items():
            yield f"leads.{key[0]}.{key[1]}", refs
        for cid, claim in self.claims.items():
            yield f"claims.{cid}", claim.lead
        yield "never_lead", self.never
        yield "reader_only", self.reader_only
        for t, refs in self.only_for.items():
            yield f"lead_only_for.{t}", refs
        for x, refs in self.never_act.items():
            yield f"never_lead_act.{x}", refs
        for side, refs in self.purposes.items():
            yield f"purposes.{side}", refs
        for m in self.missing:
            yield f"not_in_card.{m.kind}.says", m.says
        if self.analogy is not None:
            yield "analogy.lead", self.analogy[1]
        for t, refs in self.analogy_topics.items():
            yield f"analogy.topics.{t.value}", refs
        for t, refs in self.plain.items():
            yield f"analogy.plain.{t.value}", refs
        for t, refs in self.one_line_lead.items():
            yield f"one_line_lead.{t.value}", refs
        for t, refs in self.one_line_compare.items():
            yield f"one_line_compare.lead.{t.value}", refs
        for t, refs in self.one_line_relation.items():
            yield f"one_line_compare.relation.{t.value}", refs
        for t, refs in self.picture_line.items():
            yield f"analogy.one_line.{t.value}", refs
        for i, line in enumerate(self.arc):
            yield f"overview_arc.lines[{i}].refs", line.refs
        for t, refs in self.pitch_lead.items():
            yield f"pitch.lead.{t.value}", refs
        for t, words in self.customer_words.items():
            yield f"customer_words.{t.value}.rests_on", words.rests_on
        for t, refs in self.pitch_line.items():
            yield f"pitch.one_line.{t.value}", refs
        for (act, a, item), refs in self.item_leads.items():
            yield f"item_leads.{act}.{a}.{item}", refs
        for t, (pros, cons) in self.pros_cons.items():
            yield f"pros_cons.{t}.pros", pros
            yield f"pros_cons.{t}.cons", cons

    def check(self) -> None:
        """Every referenced sentence must be on the loaded card (skipped when the card is absent:
        a corpus without 04-08 never reaches these leads)."""
        if not self.card.chunk("summary"):
            return
        wholes = [self.part_of["whole"], *self.part_of["parts"]] if self.part_of else []
        if self.ranking is not None:
            missing = [x for x in self.ranking[2] if x not in self.purposes]
            if missing:
                raise AnswerDataError(f"data/leads.json ranking_ask: sides without 'purposes': {missing}")
            wholes += list(self.ranking[2])
        wholes += [a for line in self.arc for a in line.names]
        for m in self.missing:
            if (gone := [a for a in m.parts if self.card.chunk(a) is None]):
                raise AnswerDataError(f"data/leads.json not_in_card.{m.kind}.parts: no card section {gone[0]!r}")
        if self.example_thin is not None and (gone := [a for a in self.example_thin.names if self.card.chunk(a) is None]):
            raise AnswerDataError(f"data/leads.json example_thin.parts: no card section {gone[0]!r}")
        for side in wholes + list(self.purposes) + list(self.compare_terms) + [a for c in self.conditions for a in c.fits + c.against]:
            if self.card.chunk(side) is None:
                raise AnswerDataError(f"data/leads.json purposes: no card section {side!r}")
        for pair in self.contrast:
            if any(self.card.chunk(side) is None for side in pair):
                raise AnswerDataError(f"data/leads.json compare_contrast: no card section among {sorted(pair)}")
        for zh, (anchor, en) in self._fillers.items():
            # each opens a sentence of its section, and the English opens that sentence's aligned English (where
            # the card has an English rendering: an edited card fails here, naming the clause)
            sents, chunk = self.card.sents(anchor), self.card.chunk(anchor)
            i = next((k for k, x in enumerate(sents) if x.startswith(zh) and len(x) > len(zh)), None)
            if chunk is None or i is None:
                raise AnswerDataError(f"data/leads.json filler_clauses: no sentence of {anchor!r} opens with {zh!r} "
                                      "(was the card edited?)")
            english = chunk.sentences_en[i] if chunk.sentences_en and i < len(chunk.sentences_en) else None
            if english is not None and (not english.startswith(en) or len(english) <= len(en)):
                raise AnswerDataError(f"data/leads.json filler_clauses: the English of {sents[i]!r} does not open "
                                      f"with {en!r}")
            self.fillers[zh] = en
        for o in self.reader_openers:
            if not any(s.startswith(o) for a in self.card.anchors for s in self.card.sents(a)):
                raise AnswerDataError(f"data/leads.json reader_openers: no card sentence opens with {o!r} (was the card edited?)")
        for act, a, item in self.item_leads:
            if not any(item in x for x in self.card.items(a)):
                raise AnswerDataError(f"data/leads.json item_leads.{act}: section {a!r} has no numbered item containing "
                                      f"{item!r} (was the card edited?)")
        for where, refs in self.all_refs():
            for anchor, phrase in refs:
                if not any(phrase in s for s in self.card.sents(anchor)):
                    raise AnswerDataError(f"data/leads.json {where}: no sentence of section {anchor!r} contains "
                                          f"{phrase!r} (was the card edited?)")

    def pitch(self, intent: Intent, question: str) -> tuple[Ref, ...]:
        """The topic's pitch lines (leads.json pitch) where the question asks for a pitch, or (); its one sentence
        where the pitch is asked in one sentence and the table names one."""
        if self.pitch_cue is None or intent not in self.pitch_lead or not self.pitch_cue.search(question):
            return ()
        one = self.pitch_one_line is not None and self.pitch_one_line.search(question)
        return self.pitch_line.get(intent, self.pitch_lead[intent]) if one else self.pitch_lead[intent]

    def item_lead(self, act: str, anchor: str, item: str) -> tuple[Ref, ...]:
        """What answers `act` of one numbered item (item_leads: its example, its reason), or ()."""
        return next((refs for (x, a, phrase), refs in self.item_leads.items()
                     if x == act and a == anchor and phrase in item), ())

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

    def wh_only(self, question: str) -> bool:
        """`question` (folded) asks for content ("还跟哪些硬件有关", "what should I watch for") and nothing in it
        asks a yes/no (wh_shape.unless, yes_no_shape)."""
        return (self.wh is not None and bool(self.wh.search(question)) and not self.yes_no_shaped(question)
                and not (self.wh_unless is not None and self.wh_unless.search(question)))

    def asks_why_first(self, question: str) -> bool:
        """`question` (folded) is one sentence that opens with why ("为什么…，不能直接部署吗"): a yes/no tail after it does
        not make it one. A yes/no asked as a sentence of its own ("为什么…？是不是随机得越猛越好") is still asked."""
        return self.why_led is not None and bool(self.why_led.search(question)) \
            and not re.search(r"[?？!！。]", question.strip().rstrip("?？!！。 "))

    def yes_no_shaped(self, question: str) -> bool:
        """`question` (folded) has the yes/no shape (yes_no_shape: "…吧", "…对不对", "is it …?")."""
        return self.yes_no is not None and bool(self.yes_no.search(question))

    def yes_no_sentence(self, question: str) -> str | None:
        """The sentence of a question of several that has the yes/no shape, when exactly one has it and it is
        not the last: "只要仿真做得够逼真就没gap了吧？大不了买个最贵的仿真软件" asks its yes/no first and adds an aside
        (blind 39 b39-020, read as the cost of simulation). None for a one-sentence question. `question` raw or
        folded: each sentence is folded for its shape, and comes back as given (the answerer embeds it)."""
        parts = [x.strip() for x in _SENTENCE.findall(question) if x.strip()]
        shaped = [x for x in parts if self.yes_no_shaped(fold(x))]
        return shaped[0] if len(parts) > 1 and len(shaped) == 1 and shaped[0] != parts[-1] else None

    def content_ask_first(self, question: str) -> str | None:
        """The first sentence of a question of several when it asks for content (what / why / how, wh_shape) and a
        later one asks the yes/no: "真机数据对sim2real有啥用？有了足够数据是不是就不用做安全验证了" (blind 49 b49-047),
        "为什么域随机化能帮助迁移？是不是随机得越猛越好" (b49-030). None otherwise. Comes back as given."""
        parts = [x.strip() for x in _SENTENCE.findall(question) if x.strip()]
        if len(parts) < 2 or not self.wh_only(fold(parts[0])):
            return None
        return parts[0] if any(self.yes_no_shaped(fold(x)) for x in parts[1:]) else None

    def names_by_cue(self, cid: str, question: str) -> bool:
        """Claim `cid`'s own cue words are in `question` (folded)."""
        c = self.claims.get(cid)
        return c is not None and c.cue is not None and bool(c.cue.search(question))

    def cued_claim(self, question: str) -> str | None:
        """The misconception a yes/no question states in so many words ("…就是走个流程吧", "…copying the
        model onto the robot, right?"): its claim, whatever the neighbours vote (blind 10 b10-061 read `how`
        and led with an RL sentence). None unless the question has the yes/no shape and one claim's cue or
        other_cue matches, or the words one claim matches hold every other claim's."""
        if not (self.yes_no_shaped(question) or self.yes_no_sentence(question)):
            return None
        # a claim about a subject the question never names is not its claim, cue or no cue: "合作方说他们仿真做得巨像
        # 所以压根不需要sim2real 靠谱吗" names no RL, and rl-alone's cue (a negation before Sim2Real) answered it
        # 「可以：强化学习和 Sim2Real 不是一回事」 (blind 30 b30-059, graded 0)
        # (a claim's other side in its own words too: "is there any value left in simulation" asks sim-useless the
        # other way round, "换到别的机型上可能就不行了，对吧" software-only)
        spans = {cid: m.span() for cid, c in self.claims.items()
                 for p in (c.cue, c.other_cue)
                 if p is not None and (m := p.search(question)) and (c.subject is None or c.subject.search(question))}
        if len(spans) > 1:
            # two claims' cues on one phrase: the one whose words hold the other's ("a perfect copy of reality" is
            # perfect-sim, not copy; blind 36 b36en-013) — otherwise none
            wide = [cid for cid, (a, b) in spans.items() if all(a <= x and y <= b for x, y in spans.values())]
            return wide[0] if len(wide) == 1 else None
        return next(iter(spans), None)

    def without_sim_faults(self, question: str) -> str:
        """`question` (folded) without what it says of the simulation itself ("仿真又不准"): no robot's symptom."""
        return self.sim_fault.sub("", question) if self.sim_fault is not None else question

    def stated_claim(self, question: str) -> str | None:
        """The misconception a customer's words state, asked or not ("客户说仿真又不准，搞仿真还有什么意义"): the one
        `over_story` claim whose own cue (not its other side) the question uses. A rhetorical question has no yes/no
        shape, so cued_claim never reads it."""
        hits = [cid for cid, c in self.claims.items()
                if c.by_cue and c.over_story and c.cue is not None and c.cue.search(question)
                and (c.subject is None or c.subject.search(question))]
        return hits[0] if len(hits) == 1 else None

    def condition(self, question: str, sides: list[str]) -> tuple["Condition", str, str | None] | None:
        """(condition, the side that fits it, the side it rules out or None) when a comparison of `sides`
        asks which one fits a condition the card ties to one of them ("没时间采数据的话哪个更合适": fine-tuning
        needs real data; "which one makes the simulator match the real robot": system identification)."""
        for c in self.conditions:
            if not c.cue.search(question):
                continue
            if all(x in c.fits for x in sides):
                continue  # both sides fit it ("no real data": domain randomization vs robust policy): no verdict
            fit = next((x for x in sides if x in c.fits), None)
            against = next((x for x in sides if x in c.against), None)
            if fit is None and against is not None and len(sides) == 2:
                fit = next(x for x in sides if x != against)
            against = against if against != fit else None
            if fit is not None and fit not in c.against and (against is not None or not c.against):
                return c, fit, against
        return None

    def condition_of(self, question: str, label: str | None = None) -> Condition | None:
        """The condition `question` (folded) states by a cue of its own, else the one its labelled neighbours
        read (`label`, acts.jsonl 'condition'): "客户想让仿真更贴近他们的机器人" wants the simulation to match the
        robot, so which method fits is the card's to say. A condition with an `opposite` is never taken from
        neighbours: "won't let us record anything" sits next to "shared a lot of recordings" (an embedding
        hardly sees the negation), so "no data" and "data at hand" are read by their cue words only."""
        cued = next((c for c in self.conditions if c.cue.search(question)), None)
        if cued is not None:
            return cued
        return next((c for c in self.conditions if c.id == label and c.opposite is None), None)

    def part_verdict(self, sides: list[str], lang: str) -> tuple[str, str] | None:
        """(the part's anchor, the relation's line with {part} unfilled) when `sides` are the whole and one of its parts."""
        if not self.part_of or len(sides) != 2 or self.part_of["whole"] not in sides:
            return None
        part = next((x for x in sides if x in self.part_of["parts"]), None)
        return None if part is None else (part, self.part_of["verdict"][lang])

    def unranked_verdict(self, question: str, lang: str) -> str | None:
        """The "the card does not rank them" line for a comparison that asks which side to pick."""
        if self.unranked is None or not self.unranked[0].search(question):
            return None
        return self.unranked[1][lang]

    def asks_same(self, question: str) -> bool:
        """`question` (folded) asks whether two sides are one thing ("是不是一回事", "the same thing?") or
        opposites ("aren't those opposite approaches?")."""
        return any(cue is not None and bool(cue[0].search(question)) for cue in (self.same, self.opposite))

    def contrast_line(self, sides: list[str], lang: str) -> str | None:
        """The line that says what sets the two compared sides apart (compare_contrast), or None."""
        c = self.contrast.get(frozenset(sides))
        return None if c is None else c[lang]

    def same_verdict(self, question: str, lang: str) -> str | None:
        """The "they are not the same thing" (or "not opposites") line for a comparison that asks it."""
        for cue in (self.opposite, self.same):
            if cue is not None and cue[0].search(question):
                return cue[1][lang]
        return None

    def overview_asked(self, question: str) -> bool:
        """`question` (folded) asks for the whole card's arc in so many words ("从头到尾捋一遍", "an overview")."""
        return self.arc_cue is not None and bool(self.arc_cue.search(question))

    def analogy_lead(self, question: str, intent: Intent | None = None) -> tuple[Ref, ...]:
        """The card's own figure of speech when `question` (folded) asks for an analogy: the topic's own picture
        (analogy.topics) when it has one, else the card's; () when no analogy is asked."""
        if self.analogy is None or not self.analogy[0].search(question):
            return ()
        return self.analogy_topics.get(intent, self.analogy[1])

    def picture(self, intent: Intent) -> tuple[Ref, ...]:
        """A topic's plain version (analogy.plain), else its own picture (analogy.topics), else ()."""
        return self.plain.get(intent) or self.analogy_topics.get(intent, ())

    def stated_side(self, claim: Claim, question: str) -> bool | None:
        """The side of `claim` the question states by the claim's own words: `holds` for its cue, the other
        side for its cue negated or for its `other_cue` (that one negated: `holds` again); None when neither
        names it."""
        if claim.holds is None:
            return None
        plain = self.negated[1].sub(" ", question) if self.negated is not None else question
        # (the question's own yes/no form out first: 是不是一回事 holds 不是一回事)
        if claim.other_cue is not None and claim.other_cue.search(plain):
            return claim.holds if self._negated(claim.other_cue, question) else not claim.holds
        if claim.cue is not None and claim.cue.search(question):
            return not claim.holds if self._negated(claim.cue, question) else claim.holds
        return None

    def subject_negated(self, claim: Claim, question: str) -> bool:
        """The question asks the claim's other side by a negation right before its subject ("不用强化学习也能做吗"
        of "sim2real is only for RL"); its cue words, when it has them, decide first (stated_side)."""
        if claim.subject is None or self.negated is None:
            return False
        # the negation right before the subject ("不用强化学习", "without RL"), not anywhere in its clause
        # ("不用仿真强化学习能训吗" negates the simulator), and not one a second negation turns back: "不用强化学习
        # 的话，就跟Sim2Real没关系了吧" states the claim (dev b19-027, b22-039)
        plain = self.negated[1].sub(" ", question)
        negations = list(self.negated[0].finditer(plain))
        # one character may sit between ("没用强化学习", "without RL"), or filler words ("without any RL", "完全不用
        # 任何强化学习"; blind 27 b27-053 lost its 「是的」 when only the filler was allowed)
        return len(negations) % 2 == 1 and any(claim.subject.match(plain, at) for m in negations
                                               for at in {m.end(), m.end() + 1, _FILLER.match(plain, m.end()).end()})

    def cue_negated(self, claim: Claim, question: str) -> bool:
        return claim.cue is not None and self._negated(claim.cue, question)

    def _negated(self, cue: re.Pattern[str], question: str) -> bool:
        """The question names the claim by its cue words with a negation before them in the same clause
        ("不只是给强化学习用", "isn't only for RL"), once its own yes/no form is taken out: its other side."""
        if self.negated is None:
            return False
        negator, asking, clause = self.negated
        plain = asking.sub(" ", question)
        for part in clause.split(plain):
            cues = [m.span() for m in cue.finditer(part)]
            # a negation before the cue turns it round; one inside the cue itself ("不用做真机" is the
            # direct-deploy cue) or after it ("纯算法问题、跟硬件没关系" states the claim, b8-085) does not
            if cues and any(n.start() < cues[0][0] for n in negator.finditer(part)):
                return True
        return False

    def ranking_sides(self, question: str, named: list[str], grouped: bool,
                      implied: bool = False) -> tuple[tuple[str, ...], str | None]:
        """(sides, verdict per language key) when `question` (folded) asks which of the ranked sides is best
        or to rank them: the sides it names in its order when two or more, else every side when it names
        them as a group or follows a turn about them (`implied`: "哪个最好？" after "缩小差距有哪几种方法")
        (`grouped`: the question's topic is theirs) — ((), None) when it asks no ranking."""
        if self.ranking is None:
            return (), None
        cue, group, sides, _ = self.ranking
        if not cue.search(question):
            return (), None
        mine = [x for x in named if x in sides]
        if len(mine) >= 2:
            return tuple(mine), "two" if len(mine) == 2 else "all"
        if grouped and (implied or group.search(question)):
            return sides, "all"
        return (), None

    def names_methods(self, question: str) -> bool:
        """`question` (folded) names the methods as a group ("哪种方法", "which approach"): ranking_ask's 'group'."""
        return self.ranking is not None and bool(self.ranking[1].search(question))

    def ranking_verdict(self, kind: str, lang: str) -> str | None:
        if kind == "all" and self.ranking is not None:
            return self.ranking[3][lang]
        return self.unranked[1][lang] if self.unranked is not None else None

    def upsides_downsides(self, intent: Intent, question: str) -> tuple[tuple[Ref, ...], tuple[Ref, ...]] | None:
        """(upside refs, downside refs) when `question` asks for pros and cons of a topic whose card states both."""
        if self.pros_cons_cue is None or not self.pros_cons_cue.search(question):
            return None
        return self.pros_cons.get(intent.value)

    def never_for(self, intent: Intent, act: str = "") -> tuple[Ref, ...]:
        """The sentences that never lead an answer on `intent` asking `act`: never_lead, what leads only another
        topic, and what never leads that act on that topic."""
        # (a sentence may lead two topics: listed under both)
        return self.never + self.never_act.get(f"{intent.value}:{act}", ()) + self.only_for_others(intent)

    def only_for_others(self, intent: Intent) -> tuple[Ref, ...]:
        """The sentences that lead only another topic than `intent` (lead_only_for)."""
        mine = set(self.only_for.get(intent.value, ()))
        return tuple(r for t, refs in self.only_for.items() if t != intent.value for r in refs if r not in mine)

    def table_leads(self, intent: Intent, act: str) -> bool:
        """The table's sentence leads (topic, act) whenever it names one (table_first_acts, or table_first for
        one topic), never the best-scoring sentence."""
        return act in self.table_first_acts or (intent.value, act) in self.table_first

    def names_subject(self, claim: str, text: str) -> bool:
        """Whether `text` (folded) names what `claim` is about (true for a claim with no 'subject')."""
        c = self.claims.get(claim)
        return c is None or c.subject is None or bool(c.subject.search(text))

    def missing_kind(self, question: str) -> Missing | None:
        q = question.lower()
        return next((m for m in self.missing if m.cue.search(q) and not (m.unless and m.unless.search(q))), None)

    def missing_all(self, question: str, first: Missing) -> Missing:
        """`first`, joined with every other kind the question asks for in its own words elsewhere in it: "做一轮真机微调
        大概要多久、要多少条真实数据" lacks a duration and a data amount, and the answer says so of both, with what the card
        says of each (blind 50 b50-012 named only the data). A kind only mentioned, asked by the same words as
        one already joined ("多少" inside "多少条真实数据"), or asked only as "a number" ("success rate? need a number
        for the deck": leads.json missing_generic) is not another ask."""
        q = question.lower()
        at = first.cue.search(q)
        spans, joined = [at.span() if at else (0, 0)], [first]  # one span per joined kind, so the sort keeps them all
        for m in self.missing:
            hit = m.asked.search(q) if m.asked is not None and not m.decline and m.kind != first.kind else None
            if hit is None or (m.unless and m.unless.search(q)) or any(m.names == j.names for j in joined) \
                    or any(hit.start() < end and start < hit.end() for start, end in spans) \
                    or (self.missing_generic is not None and self.missing_generic.fullmatch(hit.group(0))):
                continue
            joined.append(m)
            spans.append(hit.span())
        if len(joined) == 1:
            return first
        joined = [j for _, j in sorted(zip(spans, joined), key=lambda x: x[0])]  # in the question's order
        names = {lang: _ALSO_MISSING[lang].join(j.names[lang] for j in joined) for lang in first.names}
        return replace(first, names=names, says=tuple(dict.fromkeys(r for j in joined for r in j.says)))
