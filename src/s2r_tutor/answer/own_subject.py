"""The subject a short follow-up names of its own, when neither the cards nor the labelled in-scope
questions know it.

A turn refused on its own words is let in as a follow-up of the earlier topic when it asks a follow-up
act ("能再简单点吗？", "一句话概括一下", "举个例子"). That is right only while the turn names no other
subject: "简单说说量子计算" after an answer asks the same act of quantum computing, and was answered as a
simpler Sim2Real. Which words are "another subject" is not a list: the known words are the cards' own
(Chinese text and English rendering) and the words of every labelled in-scope question in
data/acts.jsonl, so a new card or a new labelled question widens them with no code change.

What counts, measured on every dev set's follow-ups (scripts/act_dev.py):
- a Chinese common noun or place name (jieba's part-of-speech tags n, ng, ns) that is not known. Names
  of people and organisations are left out: in a follow-up they are as often the audience ("给华为的人简单
  讲讲", "how would I say that to Bosch?") as the subject;
- an English word of five or more letters that is not known and no stop-word. There is no English
  tagger: over every act, any unknown word refused five real follow-ups of the dev sets ("...without it
  sounding like excuses" is a customer reply), and shorter ones are the words of the ask itself ("the
  gist?", "sum it up", "tldr"). A lower-case subject the examples happen to use, or one of four letters,
  is still let in.
Only the acts that explain a subject (answerer.SUBJECT_ACTS) are checked, and only for a turn that neither
points into the earlier list ("the third one") nor asks to go on: "那跟客户怎么说" names an audience, not
a subject.
"""

from __future__ import annotations

import re
from functools import cached_property

from ..retrieval.alignment import english_markdown
from .lexicon import fold

_ZH = re.compile(r"[\u4e00-\u9fff]{2,}")
_EN = re.compile(r"[a-z][a-z0-9]{2,}")
_EN_MIN = 5  # letters an unknown English word needs to be a subject
_COMMON_NOUN = frozenset({"n", "ng", "ns"})  # jieba tags; nr, nt, nz: people, organisations, other names


class OwnSubject:
    """`chunks`: the corpus; `examples`: the labelled questions (acts.Example); `segmenter`: the jieba
    Tokenizer retrieval uses (its user dictionary included)."""

    def __init__(self, chunks, examples, segmenter, en_stop: frozenset[str]):
        self._chunks = chunks
        self._examples = examples
        self._segmenter = segmenter
        self._en_stop = en_stop

    @cached_property
    def _known(self) -> frozenset[str]:
        # built on the first follow-up that needs it, not at load: one pass of jieba over the corpus
        parts = []
        for c in self._chunks:
            parts += [c.title, c.section, c.text, english_markdown(c) or ""]
        parts += [e.question for e in self._examples if e.act != "out_of_scope"]
        text = fold("\n".join(parts))
        return frozenset(self._segmenter.lcut_for_search(text)) | frozenset(_EN.findall(text))

    @cached_property
    def _tagger(self):
        import jieba.posseg

        return jieba.posseg.POSTokenizer(self._segmenter)

    def words(self, question: str) -> list[str]:
        """The Chinese common nouns and places, and the English words, of `question` that no card and no
        labelled in-scope question uses."""
        q, known = fold(question), self._known
        zh = [p.word for p in self._tagger.lcut(q) if p.flag in _COMMON_NOUN and _ZH.fullmatch(p.word) and p.word not in known]
        en = [w for w in _EN.findall(q) if len(w) >= _EN_MIN and w not in known and w not in self._en_stop]
        return list(dict.fromkeys(zh + en))
