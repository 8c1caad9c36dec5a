"""The in-scope vocabulary, derived from the corpus itself when the answerer loads.

A question that names what the cards talk about is evidence of scope, whichever card it is: a new
card dropped into corpus/ brings its own words with no code change. Three kinds of evidence:

- a *phrase*: a run of >= 4 Chinese characters that occurs verbatim in a card (运行数据, 关节间隙,
  蜂巢充电), once function words and general robotics words (lexicon.WEAK_TERMS) are taken out
  of its count;
- a *term*: a core glossary concept the question names in English or Chinese whose Chinese name
  is in the corpus, a corpus jieba word that jieba's own idf table calls rare (idf >= TERM_MIN_IDF;
  机器人 and the like excluded), or a long English word of the corpus itself (charging, randomization);
- an *everyday word* (soft): the same, but common: a non-core glossary concept (motors -> 电机,
  client -> 客户), a corpus word of middling idf (算法, 噪声), a short English corpus word (fine, system);
- the card titles, headings and bold labels feed both (they are part of the text scanned).

refusal.decide_scope answers on a phrase, on two distinct terms, or on one term plus a second
signal (a complaint, a specific intent phrase). Numbers: docs/answering.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..retrieval import glossary
from . import ruledata as rd
from .lexicon import fold, family

PHRASE_MIN = 4  # Chinese characters a shared run needs, function words not counted
SOFT_MIN_IDF = 7.5  # jieba idf (median ~11.9; 数据 4.8, 机器人 8.5, 算法 8.7, 本体 9.0, 质心 10.2)
TERM_MIN_IDF = 9.5  # rarer corpus words are specific terms; 7.5..9.5 count as everyday words
EN_TERM_MIN_LEN = 8  # an English corpus word this long is specific (charging, randomization); shorter ones
                     # (fine, system, domain, policy, reality) are everyday words


@dataclass(frozen=True)
class _Words:
    generic: frozenset[str]      # words every robotics question shares: never a term on their own
    en_stop: frozenset[str]      # English words never counted
    function: re.Pattern[str]    # Chinese function words, left out of a shared phrase's length


@lru_cache(maxsize=1)
def _words() -> _Words:
    """`vocab` of data/rules/lexicon.json (docs/answering.md, "Rule data files")."""
    data = rd.load("lexicon.json").get("vocab")
    if not isinstance(data, dict):
        raise rd.AnswerDataError(f"{rd.source('lexicon.json')}: no entry 'vocab'")
    sets = {}
    for key in ("generic", "en_stop"):
        v = data.get(key)
        if not isinstance(v, list) or not all(isinstance(w, str) and w for w in v):
            raise rd.AnswerDataError(f"{rd.source('lexicon.json')}: vocab.{key}: must be a list of words")
        sets[key] = frozenset(v)
    return _Words(sets["generic"], sets["en_stop"], rd.compile_list("lexicon.json", "vocab.function", data.get("function")))


_ZH_RUN = re.compile(r"[\u4e00-\u9fff]+")
_EN_WORD = re.compile(r"[a-z][a-z0-9]{3,}")

@lru_cache(maxsize=1)
def _idf() -> dict[str, float]:
    import jieba.analyse  # the idf table ships with jieba; loaded once, lazily

    return jieba.analyse.default_tfidf.idf_freq


@dataclass
class Evidence:
    phrases: list[str] = field(default_factory=list)
    terms: set[str] = field(default_factory=set)
    soft: set[str] = field(default_factory=set)  # everyday glossary words (成本, 安全, 训练): count, never alone
    robot: bool = False  # the question is about a robot (机器人, quadruped, 机械臂 ...)

    @property
    def strength(self) -> int:
        """2: enough on its own (a shared phrase, a specific corpus term, three everyday glossary words,
        or two about a robot); 1: two everyday words, or one about a robot: needs a second signal (a
        complaint or a specific intent phrase); 0: not enough. ('训练要多少数据': 1, no intent phrase.)"""
        n_soft = len(self.soft)
        if self.phrases or self.terms or n_soft >= 3 or (n_soft >= 2 and self.robot):
            return 2
        return 1 if n_soft >= 2 or (n_soft and self.robot) else 0


class CorpusVocab:
    def __init__(self, chunks, tokenizer=None, term_min_idf: float = TERM_MIN_IDF, soft_min_idf: float = SOFT_MIN_IDF):
        """`term_min_idf` / `soft_min_idf`: Settings.answer.term_min_idf / soft_min_idf (defaults equal)."""
        parts = []
        for c in chunks:
            parts += [c.title, c.section, c.text]
        self.text = fold("\n".join(parts))
        self.en_words = {w for w in _EN_WORD.findall(self.text) if w not in _words().en_stop}
        self.concepts = [(t, [fold(t.zh), t.en.lower(), *t.aliases]) for t in glossary.GLOSSARY if fold(t.zh) in self.text]
        self.tokenizer = tokenizer
        self.zh_terms: set[str] = set()
        self.zh_soft: set[str] = set()
        if tokenizer is not None:
            idf = _idf()
            for tok in set(tokenizer(self.text)):
                if len(tok) >= 2 and _ZH_RUN.fullmatch(tok) and tok not in _words().generic and not family('WEAK_TERMS').fullmatch(tok):
                    w = idf.get(tok, 99.0)  # not in jieba's table: a domain word (user dictionary)
                    if w >= term_min_idf:
                        self.zh_terms.add(tok)
                    elif w >= soft_min_idf:
                        self.zh_soft.add(tok)

    def _phrases(self, q: str) -> list[str]:
        found: set[str] = set()
        for seg in _ZH_RUN.findall(q):
            i = 0
            while i + PHRASE_MIN <= len(seg):
                j = next((j for j in range(len(seg), i + PHRASE_MIN - 1, -1) if seg[i:j] in self.text), None)
                if j is None:
                    i += 1
                    continue
                run = seg[i:j]
                rest = family("WEAK_TERMS").sub("", _words().function.sub("", run))
                content = _words().function.sub("", run)
                if len(content) >= PHRASE_MIN and rest:
                    found.add(run)
                i = j
        return sorted(found)

    def evidence(self, question: str) -> Evidence:
        q = fold(question)
        ev = Evidence(phrases=self._phrases(q), robot=bool(family("ROBOT").search(q)))
        words = set(_EN_WORD.findall(q))
        for term, names in self.concepts:
            zh = fold(term.zh)
            if zh in _words().generic:
                continue
            if zh in q or any(re.search(r"(?<![a-z0-9])" + re.escape(n) + r"(?![a-z0-9])", q) for n in names[1:]):
                (ev.terms if term.core else ev.soft).add(zh)
        en = {w for w in words if w in self.en_words and w not in _words().generic}
        ev.terms |= {w for w in en if len(w) >= EN_TERM_MIN_LEN}
        ev.soft |= {w for w in en if len(w) < EN_TERM_MIN_LEN}
        if self.tokenizer is not None:
            toks = set(self.tokenizer(q))
            ev.terms |= toks & self.zh_terms
            ev.soft |= toks & self.zh_soft
        # one word, one term: search-mode fragments (传感 in 传感器) and a word named twice collapse
        every = ev.terms | ev.soft
        drop = {t for t in every if any(t != o and t in o for o in every)}
        ev.terms -= drop | ev.soft
        ev.soft -= drop
        return ev
