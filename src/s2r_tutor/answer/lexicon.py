"""Scope word lists the rule layers read (zh + en), from `data/rules/lexicon.json`.

All patterns are matched against `fold(text)`: NFKC-folded and lower-cased, spaces kept. The lists are
data (docs/answering.md, "Rule data files"): `CORE_TERMS`, `WEAK_TERMS`, ... are read on first use
(module `__getattr__`), compiled once, and a malformed entry is an AnswerDataError naming it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from . import ruledata as rd
from .ruledata import any_of  # noqa: F401  (re-exported: acts.py and others build patterns with it)

_FILE = "lexicon.json"
#: the scope families (refusal.decide_scope and vocab read them)
FAMILIES = ("CORE_TERMS", "WEAK_TERMS", "ROBOT", "DEICTIC", "META_TERMS", "FOREIGN_TOPICS", "SIM_TOOLS",
            "REAL_SIDE", "OFF_CARD", "INJECTION")


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


@lru_cache(maxsize=None)
def family(name: str) -> re.Pattern[str]:
    return rd.family(_FILE, name)


def __getattr__(name: str):
    if name in FAMILIES:
        return family(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Fuzzy:
    def __init__(self, data: dict):
        def words(key: str) -> tuple[str, ...]:
            v = data.get(key)
            if not isinstance(v, list) or not all(isinstance(w, str) and w for w in v):
                raise rd.AnswerDataError(f"{rd.source(_FILE)}: fuzzy.{key}: must be a list of words")
            return tuple(v)

        self.min_ratio = rd.number(_FILE, "fuzzy.min_ratio", data.get("min_ratio"))
        self.core_words, self.core_pairs, self.zh_core = words("core_words"), words("core_pairs"), words("zh_core")
        self.zh_fuzzy = re.compile("|".join(t[:i] + "." + t[i + 1:] for t in self.zh_core for i in range(len(t))))


@lru_cache(maxsize=1)
def _fuzzy() -> _Fuzzy:
    data = rd.load(_FILE).get("fuzzy")
    if not isinstance(data, dict):
        raise rd.AnswerDataError(f"{rd.source(_FILE)}: no entry 'fuzzy'")
    return _Fuzzy(data)


def canonical(text: str) -> str:
    """The text rules read: `fold(text)`. Spelling typos of the core words right (sim2reel, 域随机话)
    moved no dev set once the labelled neighbours read the question (ablation, docs/answering.md):
    pruned; scope still tolerates them (`fuzzy_core`)."""
    return fold(text)


def fuzzy_core(text: str) -> bool:
    from difflib import SequenceMatcher

    fz = _fuzzy()

    def close(a: str, b: str) -> bool:
        return abs(len(a) - len(b)) <= 2 and SequenceMatcher(None, a, b).ratio() >= fz.min_ratio

    q = fold(text)
    words = re.findall(r"[a-z0-9]+", q)
    if any(close(w, c) for w in words if len(w) >= 5 for c in fz.core_words):
        return True
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:])]
    if any(close(p, c) for p in pairs for c in fz.core_pairs):
        return True
    return bool(fz.zh_fuzzy.search(q))
