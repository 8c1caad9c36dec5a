"""Flashcards: the card's memory points (sections titled 快速记忆 / 要点 / memory / recap) and a
zh↔en glossary of its terms, each linked to the section that explains it, with a quote from it."""

from __future__ import annotations

import hashlib
import re
from typing import Literal

from pydantic import BaseModel, Field

from ..models import Chunk
from ..text import sentences
from . import structure as S
from .english import CardEnglish
from .terms import TermForms, form_in, glossary_terms

MEMORY_HEADING = re.compile(r"记忆|要点|速记|memory|recap|key points|takeaways", re.I)


class Flashcard(BaseModel):
    id: str
    kind: Literal["memory", "term"]
    front: str
    back: str
    chunk_id: str = Field(description="the section the card links to")
    section: str
    quote: str = Field(description="an exact span of that section's text")
    front_en: str = Field("", description="the front as an English reader sees it ('' = as `front`): the card's "
                          "aligned English; a term card shows the English name in front")
    back_en: str = Field("", description="the back for an English reader ('' = as `back`); a term card: the Chinese")
    section_en: str = Field("", description="the section's English heading path ('' without one)")
    quote_en: str = Field("", description="the quote's aligned English ('' without one)")

    def shown(self, field: Literal["front", "back", "section", "quote"], language: str = "zh") -> str:
        """A side (or the source) as shown in `language`: English where the card has it, else as stored."""
        zh = getattr(self, field)
        return (getattr(self, f"{field}_en") or zh) if language == "en" else zh


def _fid(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:12]


def memory_cards(chunks: list[Chunk]) -> list[Flashcard]:
    out = []
    for c in chunks:
        if not MEMORY_HEADING.search(S.heading(c)):
            continue
        st = S.parse(c.text)
        for lst in st.lists:
            labelled = S.labelled_items(lst.items)
            pairs = [(label, desc, item) for label, desc, item in labelled] or \
                    [(S.strip_enum(i), "", i) for i in lst.items]
            for front, back, item in pairs:
                out.append(Flashcard(id=_fid("memory", c.chunk_id, item), kind="memory", front=front,
                                     back=back or front, chunk_id=c.chunk_id, section=c.section, quote=item))
        for sent in st.sentences():  # the section's bottom line
            out.append(Flashcard(id=_fid("memory", c.chunk_id, sent), kind="memory", front=S.heading(c),
                                 back=sent, chunk_id=c.chunk_id, section=c.section, quote=sent))
    return out


def _card_terms(chunks: list[Chunk]) -> list[TermForms]:
    """Core glossary terms, then bilingual headings the glossary does not know yet."""
    terms = [t for t in glossary_terms() if t.core]
    known = {t.zh for t in terms} | {t.en for t in terms if t.en}
    for c in chunks:
        ht = S.heading_term(S.heading(c))
        if ht and ht[1] and ht[0] not in known and ht[1] not in known:
            terms.append(TermForms(ht[0], ht[1], (ht[0], ht[1])))
            known |= {ht[0], ht[1]}
    return terms


def _home(term: TermForms, chunks: list[Chunk]) -> tuple[Chunk, str] | None:
    """The section that explains a term, and a sentence of it that names the term.
    Preference: the glossary's anchor, a section whose heading names it, then first mention."""
    names = [f for f in (term.zh, term.en) if f]

    def quote_in(c: Chunk) -> str | None:
        """The fullest sentence of `c` that names the term (a bare label line only as a last resort)."""
        named = [s for s in sentences(c.text) if any(form_in(f, s) for f in term.forms)]
        named.sort(key=lambda s: len(s) <= max(map(len, names)) + 4)
        return named[0] if named else None

    by_anchor = [c for c in chunks if term.anchor and c.anchor == term.anchor]
    by_heading = [c for c in chunks if any(form_in(f, S.heading(c)) for f in names)]
    by_text = [c for c in chunks if any(form_in(f, c.text) for f in names)]
    for c in [*by_anchor, *by_heading]:  # the heading names the term: any first sentence explains it
        first = quote_in(c) or next(iter(sentences(c.text)), None)
        if first and (c in by_heading or quote_in(c)):
            return c, first
    for c in by_text:
        if q := quote_in(c):
            return c, q
    return None


def term_cards(chunks: list[Chunk]) -> list[Flashcard]:
    out = []
    for t in _card_terms(chunks):
        home = _home(t, chunks)
        if home is None:
            continue  # a glossary term this corpus never mentions gets no card
        c, quote = home
        out.append(Flashcard(id=_fid("term", t.zh, t.en or ""), kind="term", front=t.zh, back=t.en or t.zh,
                             chunk_id=c.chunk_id, section=c.section, quote=quote))
    return out


def build_flashcards(chunks: list[Chunk]) -> list[Flashcard]:
    english = CardEnglish(chunks)
    return [_with_english(f, english) for f in memory_cards(chunks) + term_cards(chunks)]


def _with_english(f: Flashcard, english: CardEnglish) -> Flashcard:
    """The card's own English for each side (study/english.py); a term card's sides swap, so the
    English reader is asked for the Chinese name (a zh ↔ en glossary both ways)."""
    if f.kind == "term":
        sides = {"front_en": f.back, "back_en": f.front}
    else:
        sides = {"front_en": english.of(f.front) or "", "back_en": english.of(f.back) or ""}
    return f.model_copy(update={**sides, "section_en": english.section(f.section) or "",
                                "quote_en": english.quote(f.chunk_id, f.quote) or ""})
