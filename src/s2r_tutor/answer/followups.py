"""Multi-turn: resolve a follow-up ("那它和强化学习有什么区别？", "再具体说说第二种方法") against
the earlier turns, and find what part of an intent's material a question singles out (focus). The
cue words, focus terms and ordinals are data (`data/rules/followups.json`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ..models import Intent, Turn
from .compose import ASPECT_ANCHORS, METHOD_ANCHORS
from .focus import Focus
from ..errors import AnswerDataError
from . import ruledata as rd
from .lexicon import fold
from ..retrieval.glossary import everyday_terms

_FILE = "followups.json"
ORDINAL_LISTS: dict[Intent, list[str]] = {Intent.methods: METHOD_ANCHORS, Intent.why_simulation: ASPECT_ANCHORS}
ITEM_INTENTS = {Intent.why_hard}
ITEM_ANCHORS = {Intent.why_hard: "why-hard"}  # the section whose numbered items an ordinal points into


@dataclass(frozen=True)
class FollowupRules:
    cue: re.Pattern[str]            # words that lean on an earlier turn
    focus_terms: tuple[tuple[re.Pattern[str], str], ...]  # named parts of an intent's material
    ordinals: tuple[tuple[re.Pattern[str], int], ...]
    spans: tuple[tuple[re.Pattern[str], int], ...]  # "前两个" (2: the first two), "the last two" (-2)
    except_: re.Pattern[str]        # "besides X": the rest of the list, not X
    continuation: re.Pattern[str]   # "再具体说说", "go on": asks more of the earlier topic
    switch: re.Pattern[str]         # "btw", "顺便问下": the turn announces a subject of its own
    pair: re.Pattern[str]           # "它俩", "the two": the two things the earlier turn was about
    whole: re.Pattern[str]          # "这几招", "all four": the whole list, not the part the earlier turn was about
    # topics a turn after a customer story may name and still ask for words about that story ("without blaming
    # their hardware": how not to sound, not the robot-body topic)
    story_reply_topics: frozenset[Intent] = frozenset()


def parse_followups(data: dict) -> FollowupRules:
    src = rd.source(_FILE)
    terms = []
    for i, t in enumerate(data.get("focus_terms") or []):
        if not isinstance(t, dict) or not isinstance(t.get("anchor"), str):
            raise AnswerDataError(f"{src}: focus_terms[{i}]: needs 'anchor' and 'patterns'")
        terms.append((rd.compile_list(_FILE, f"focus_terms[{i}] ({t['anchor']})", t.get("patterns")), t["anchor"]))
    units = data.get("ordinal_units") or {}
    if not all(isinstance(units.get(k), str) for k in ("zh", "en")):
        raise AnswerDataError(f"{src}: ordinal_units: needs 'zh' and 'en' patterns")

    def numbered(key: str, valid, needs: str, en_unit: str) -> tuple[tuple[re.Pattern[str], int], ...]:
        """`key`'s entries ({n, zh, en}): each phrase with its unit after it, and its number `n`."""
        out = []
        for i, o in enumerate(data.get(key) or []):
            if not isinstance(o, dict) or not isinstance(o.get("n"), int) or not valid(o["n"]):
                raise AnswerDataError(f"{src}: {key}[{i}]: needs {needs}")
            alts = [z + units["zh"] for z in o.get("zh") or []] + [e + en_unit for e in o.get("en") or []] \
                + list(o.get("marks") or [])  # "#3", "point 3": the mark is the unit
            out.append((rd.compile_list(_FILE, f"{key}[{i}]", alts), o["n"]))
        return tuple(out)

    ords = numbered("ordinals", lambda n: n != 0, "a non-zero 'n'", units["en"])
    # (a span's English unit is optional: "and the last two?" names none, blind 45 b45en-027)
    spans = numbered("spans", lambda n: abs(n) >= 2, "an 'n' of at least 2 parts (negative: the last n)",
                     "(?:" + units["en"] + "s?)?\\b")
    return FollowupRules(rd.compile_list(_FILE, "followup_cue", data.get("followup_cue")), tuple(terms), ords, spans,
                         rd.compile_list(_FILE, "except", data.get("except")),
                         rd.compile_list(_FILE, "continuation", data.get("continuation")),
                         rd.compile_list(_FILE, "switch", data.get("switch")),
                         rd.compile_list(_FILE, "pair", data.get("pair")),
                         rd.compile_list(_FILE, "whole", data.get("whole")),
                         _intents(data.get("story_reply_topics") or [], f"{src}: story_reply_topics"))


def _intents(raw: object, where: str) -> frozenset[Intent]:
    known = {i.value for i in Intent}
    if not isinstance(raw, list) or any(x not in known for x in raw):
        raise AnswerDataError(f"{where}: expected a list of intents ({', '.join(sorted(known))})")
    return frozenset(Intent(x) for x in raw)


def leans_back(question: str) -> bool:
    """Words that point at an earlier turn ("that", "them", "这个", "那…"), whatever the question's length."""
    return bool(followup_rules().cue.search(fold(question)))


def continues(question: str) -> bool:
    """"再具体说说" / "go on": the turn asks for more of the earlier topic, whatever its own words."""
    return bool(followup_rules().continuation.search(fold(question)))


def switches(question: str) -> bool:
    """"btw, …" / "顺便问下…": the turn announces a new subject, whatever act it reads."""
    return bool(followup_rules().switch.search(fold(question)))


def names_pair(question: str) -> bool:
    """"它俩" / "the two": the question's sides are the two the earlier turn was about, not words of its own."""
    return bool(followup_rules().pair.search(fold(question)))


def names_whole(question: str) -> bool:
    """"这几招" / "all of these methods": the question is about the whole list the earlier part belongs to."""
    return bool(followup_rules().whole.search(fold(question)))


def excepts(question: str) -> bool:
    """"除了省钱…" / "besides cost…": the question sets a named part aside."""
    return bool(followup_rules().except_.search(fold(question)))


@lru_cache(maxsize=1)
def followup_rules() -> FollowupRules:
    return parse_followups(rd.load(_FILE))


def ordinal(question: str) -> int | None:
    q = fold(question)
    return next((n for pat, n in followup_rules().ordinals if pat.search(q)), None)


def spanned(question: str) -> int | None:
    """The parts a question takes from a list's end ("前两个": 2, "the last two": -2), or None."""
    q = fold(question)
    return next((k for pat, k in followup_rules().spans if pat.search(q)), None)


def focus_for(question: str, intent: Intent) -> Focus:
    """What `question` singles out; an ordinal picks from the intent's list (methods, aspects, items)."""
    r = followup_rules()
    q = fold(question)
    # a part named in everyday words ("真机训练贵在哪": 贵 -> 成本) is named as much as in the card's own
    anchors = _named(q) | _named(fold(" ".join(everyday_terms(question))))
    options = ORDINAL_LISTS.get(intent, [])
    excepted: set[str] = set()
    if r.except_.search(q) and anchors & set(options):
        excepted = anchors & set(options)
        anchors = set(options) - anchors
    n = ordinal(question)
    item = None
    span = spanned(question)
    if span is not None and options and len(options) > abs(span):
        # "后两个有啥差别" after the four methods: the last two of the list (blind 42 b42-022 compared RL with Sim2Real)
        anchors |= set(options[:span] if span > 0 else options[span:])
    elif n is not None and options:
        anchors.add(options[n - 1 if n > 0 else -1] if n <= len(options) else options[-1])
    elif n is not None and intent in ITEM_INTENTS:
        item = n if n > 0 else 5
    return Focus(anchors=anchors, item=item, question=question, order=mention_order(question, anchors),
                 excepted=excepted)


def _named(folded: str) -> set[str]:
    """The parts (focus_terms anchors) a folded text names."""
    return {anchor for pat, anchor in followup_rules().focus_terms if pat.search(folded)}


def list_shown(answer: str) -> Intent | None:
    """The topic whose list an answer shows, by the parts it names (two or more of the four methods): what an
    ordinal after it ("and the third one?") points into, whatever the question before it was read as."""
    said = _named(fold(answer))
    counts = {intent: len(said & set(parts)) for intent, parts in ORDINAL_LISTS.items()}
    best = max(counts, key=counts.__getitem__, default=None)
    return best if best is not None and counts[best] >= 2 else None


def rest_of_list(question: str, previous_answer: str, intent: Intent) -> Focus | None:
    """"另外两个呢" / "and the other two?" after an answer that named some parts of the intent's list (two of the
    four reasons for simulation): the parts it did not name. None when the question names a part of its own, has
    no exception cue, or the answer named none or all of them."""
    r = followup_rules()
    options = ORDINAL_LISTS.get(intent, [])
    if not options or not r.except_.search(fold(question)) or focus_for(question, intent).anchors:
        return None
    said = _named(fold(previous_answer)) & set(options)
    if not said or len(said) == len(options):
        return None
    rest = [a for a in options if a not in said]
    return Focus(anchors=set(rest), item=None, question=question, order=rest, excepted=said)


def mention_order(question: str, anchors: set[str]) -> list[str]:
    """`anchors` in the order `question` first names them ("system identification vs domain
    randomization": system identification first), so a comparison answers its sides in the order asked;
    an anchor named only by an ordinal or an exception goes last."""
    q = fold(question)
    first: dict[str, int] = {}
    for pat, anchor in followup_rules().focus_terms:
        if anchor in anchors:
            m = pat.search(q)
            if m is not None:
                first[anchor] = min(first.get(anchor, m.start()), m.start())
    return sorted(anchors, key=lambda a: (first.get(a, len(q) + 1), a))


@dataclass
class Context:
    """The earlier question a follow-up leans on (None for a fresh question)."""

    previous: str | None
    is_followup: bool
    before: list[Turn]  # the history that preceded `previous` (to resolve chains of follow-ups)


def context_for(question: str, history: list[Turn]) -> Context:
    idx = next((i for i in range(len(history) - 1, -1, -1)
                if history[i].role == "user" and history[i].content.strip()), None)
    q = fold(question)
    # a cue word in a short turn; a separate "asks for more" list (continuation) moved no dev set: pruned.
    # An ordinal points into the earlier answer whatever its words ("最后那条是啥意思" was declined: blind 37 b37-060)
    is_followup = idx is not None and (leans_back(question) or ordinal(question) is not None) and len(q) <= 40
    if not is_followup:
        return Context(None, False, [])
    return follow_up_of(history, idx)


def follow_up_of(history: list[Turn], idx: int) -> Context:
    """The turn read as a follow-up of the user turn `history[idx]`."""
    return Context(history[idx].content, True, history[:idx])


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def is_short(question: str, max_chars: int, max_words: int) -> bool:
    """Short enough to lean on the previous answer: Chinese counts characters, English counts words
    ("What should I check first?" is 26 characters, 5 words; "先查什么？" is 5 characters)."""
    q = question.strip()
    if _CJK.search(q):
        return len(q) <= max_chars
    return len(re.findall(r"[A-Za-z0-9']+", q)) <= max_words
