"""The card's own English for study mode: what a quiz question, an option or a flashcard shows an
English reader, looked up in the card's aligned rendering (`<card>.en.md`, retrieval/alignment.py).

Nothing here translates: a Chinese text gets English only when it is a sentence, a list item, a
`Label：text` half or a heading of a card that has an English rendering (or a run of whole
sentences of one), and a term is named by the English the card or the glossary gives it. Anything
else has no English (None), and the caller keeps the Chinese.
"""

from __future__ import annotations

import re

from ..models import Chunk
from ..retrieval.alignment import has_english, quote_english, sentence_offsets
from ..text import sentences
from .terms import TermForms

_NUMBERED = re.compile(r"^\d+\s*[·.、]?\s*")
_LATIN_WORD = re.compile(r"[A-Za-z]")


class CardEnglish:
    """Chinese card text -> its aligned English, for the chunks of one corpus."""

    def __init__(self, chunks: list[Chunk]):
        self.chunks = [c for c in chunks if has_english(c)]
        self.map = self._build()

    def _build(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for c in self.chunks:
            for zh, en in zip(sentences(c.text), c.sentences_en):
                out.setdefault(zh, en)
                bare_zh, bare_en = _NUMBERED.sub("", zh), _NUMBERED.sub("", en)
                if bare_zh != zh and bare_en != en:
                    out.setdefault(bare_zh, bare_en)
                # 'Label：text' items are asked about by their text ('示例：“…”', '客户：“…”', '仿真环境：…')
                for z, e in ((zh, en), (bare_zh, bare_en)):
                    if z.count("：") == 1 and e.count(": ") == 1:
                        (lz, tz), (le, te) = z.split("："), e.split(": ")
                        out.setdefault(tz, te)
                        out.setdefault(lz, le)
                        mz, me = re.match(r"“(.+)”$", tz), re.match(r"“(.+)”$", te)
                        if mz and me:
                            out.setdefault(mz.group(1), me.group(1))
            for zh, en in zip(c.section.split(" > "), c.section_en.split(" > ")):  # headings name sections
                out.setdefault(zh.strip(), en.strip())
        return out

    def learn(self, zh: str, en: str) -> None:
        """Record the English of a part of a card sentence that a template found in both (the B of
        'X 不是 A，而是 B' and of 'X is not A, but B'); what the alignment gives is never replaced."""
        self.map.setdefault(zh, en)

    def __bool__(self) -> bool:
        return bool(self.map)

    def get(self, text: str, default: str | None = None) -> str | None:
        return self.of(text) or default

    def __contains__(self, text: str) -> bool:
        return self.of(text) is not None

    def of(self, text: str) -> str | None:
        """The English of `text`: a mapped sentence, item or heading, else (a list item that spans
        two sentences, '04-04 什么是机器人本体？已完成') the English of the whole sentences it covers
        exactly; None otherwise (never the English of a longer sentence a fragment sits in)."""
        text = (text or "").strip()
        if not text:
            return None
        if text in self.map:
            return self.map[text]
        for c in self.chunks:
            start = c.text.find(text)
            if start < 0:
                continue
            end = start + len(text)
            spans = sentence_offsets(c.text)
            starts = {a for a, _ in spans}
            ends = {b for _, b in spans}
            # the span must begin at a sentence and end at one (a trailing ' →' of a link item aside)
            tail = c.text[end:].split("\n", 1)[0].strip()
            if start in starts and (end in ends or (tail in ("→", "") and any(a < end <= b for a, b in spans))):
                english = quote_english(c, text)
                return english.rstrip(" →") if english and tail == "→" else english
        return None

    def part(self, text: str) -> str | None:
        """The English of a clause of a card sentence (a recall key point such as '传感器会有噪声'):
        the matching clause of the English sentence when both split into as many clauses at their
        commas and semicolons, else the whole English sentence it is a clause of; None for anything
        that is not a whole clause of a card sentence."""
        text = (text or "").strip()
        if not text:
            return None
        if whole := self.of(text):
            return whole
        for c in self.chunks:
            for zh, en in zip(sentences(c.text), c.sentences_en):
                if text not in zh:
                    continue
                zparts = [p.strip() for p in re.split(r"[，；。！？]", zh) if p.strip()]
                eparts = [p.strip() for p in re.split(r"[,;.!?](?=\s|$)", en) if p.strip()]
                if text not in zparts:  # a word inside a clause ('域随机化') is not a clause of it
                    continue
                return eparts[zparts.index(text)] if len(zparts) == len(eparts) else en
        return None

    def section(self, section: str) -> str | None:
        """The English heading path of a section ('' -> None)."""
        for c in self.chunks:
            if c.section == section and c.section_en:
                return c.section_en
        return None

    def quote(self, chunk_id: str, quote: str) -> str | None:
        """The English of a quote (an exact span of that chunk): the sentences it overlaps."""
        chunk = next((c for c in self.chunks if c.chunk_id == chunk_id), None)
        return quote_english(chunk, quote) if chunk is not None else None


def term_in_english(term: TermForms, english: str, extra: tuple[str, ...] = (), prefer: str = "") -> str | None:
    """The spelling of `term` that an English sentence uses ('deploy' for 部署 in '…then deploy the
    policy…'): `prefer` (the Chinese wording's answer, when Latin) if the sentence has it, else the
    longest of its Latin forms found as whole words; None when the sentence names none."""
    forms = [f for f in (term.en or "", *term.forms, *extra) if f and _LATIN_WORD.search(f)]
    for f in [prefer] * bool(prefer in forms) + sorted(set(forms), key=len, reverse=True):
        if m := _word(f).search(english):
            return m.group(0)
    return None


def blank_term(term: TermForms, english: str, blank: str, extra: tuple[str, ...] = ()) -> str:
    """`english` with every Latin spelling of the term replaced by `blank` (longest first, whole words)."""
    forms = [f for f in (term.en or "", *term.forms, *extra) if f and _LATIN_WORD.search(f)]
    for f in sorted(set(forms), key=len, reverse=True):
        english = _word(f).sub(blank, english)
    return english


def _word(form: str) -> re.Pattern:
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", re.I)
