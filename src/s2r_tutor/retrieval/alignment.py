"""English renderings of cards: `<card>.en.md`, sentence-aligned to the Chinese card (docs/cards.md).

The rendering repeats the card's headings with the same `{#anchor}`s, and every English sentence
ends with `<!-- s:ANCHOR.N -->`, the id of the Chinese sentence it renders: the N-th of
`text.sentences()` over that section's body (comments removed). The alignment is checked when the
card is loaded, so a sentence that is missing, doubled or orphaned is a CorpusError naming
file:line, never an English sentence shown without the Chinese sentence it stands for.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from ..errors import CorpusError
from ..text import sentences, strip_anchor, strip_comments

if TYPE_CHECKING:
    from .corpus import Card
    from ..models import Chunk

RENDERING_SUFFIX = ".en.md"
_MARK = re.compile(r"<!--\s*s:([^\s>]+?)\.(\d+)\s*-->")
_TOKEN = re.compile(r"\x00(\d+)\x00")  # a marker while other comments are removed
_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+\.\s+|>\s*)?")


class Rendering(BaseModel):
    """A card's English rendering, checked against the card."""

    source: str = Field(description="corpus-relative path of the .en.md file")
    title: str
    headings: dict[str, str] = Field(description="anchor -> English heading")
    paths: dict[str, list[str]] = Field(description="anchor -> English headings from the top down")
    sentences: dict[str, list[str]] = Field(
        description="anchor -> the English of each Chinese sentence of the section, in order")


def is_rendering(path: Path) -> bool:
    return path.name.endswith(RENDERING_SUFFIX)


def rendering_path(card_path: Path) -> Path:
    """`04-08-sim2real.md` -> `04-08-sim2real.en.md`."""
    return card_path.with_name(card_path.stem + RENDERING_SUFFIX)


def card_path_of(rendering: Path) -> Path:
    return rendering.with_name(rendering.name[: -len(RENDERING_SUFFIX)] + ".md")


def chinese_sentences(section_body: str) -> list[str]:
    """The sentences an id counts: `text.sentences()` of the section body without comments."""
    return sentences(strip_comments(section_body))


def _blank_comments(text: str) -> str:
    """Other comments removed, line numbers kept (a multi-line comment leaves its newlines)."""
    return re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def parse_rendering(text: str, source: str, card: "Card") -> Rendering:
    from .corpus import _FENCE, _HEADING, _split_front_matter

    data, body_start = _split_front_matter(text, source)
    if str(data.get("language", "")).strip() != "en":
        raise CorpusError(f"{source}: an English rendering needs 'language: en' in its front matter")
    if str(data.get("id", "")).strip() != card.meta.id:
        raise CorpusError(f"{source}: front matter id {data.get('id')!r} is not its card's id {card.meta.id!r}")
    title = str(data.get("title") or "").strip()
    marks: list[tuple[str, int]] = []

    def keep(m: re.Match) -> str:
        marks.append((m.group(1), int(m.group(2))))
        return f"\x00{len(marks) - 1}\x00"

    lines = _blank_comments(_MARK.sub(keep, text)).split("\n")
    zh = {s.anchor: chinese_sentences(s.body) for s in card.sections}
    expected = [(s.anchor, s.level) for s in card.sections]
    headings: dict[str, str] = {}
    paths: dict[str, list[str]] = {}
    english: dict[str, list[str | None]] = {}
    stack: list[tuple[int, str]] = []
    current: str | None = None
    heading_line = 0
    in_fence = False

    def close(where: str) -> None:
        if current is None:
            return
        missing = [f"{current}.{i + 1}" for i, s in enumerate(english[current]) if s is None]
        if missing:
            raise CorpusError(f"{where}: no English for sentence(s) {', '.join(missing)} of section "
                              f"{current!r} (heading at line {heading_line})")

    for idx in range(body_start, len(lines)):
        lineno, line = idx + 1, lines[idx]
        where = f"{source}:{lineno}"
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if m:
            close(where)
            heading, anchor = strip_anchor(_TOKEN.sub("", m.group(2)))
            n = len(headings)
            if n >= len(expected):
                raise CorpusError(f"{where}: heading {heading!r} has no counterpart in {card.source}")
            want, level = expected[n]
            if anchor != want:
                raise CorpusError(f"{where}: expected the heading of section {want!r} "
                                  f"(written '{{#{want}}}'), found {'{#' + anchor + '}' if anchor else 'no anchor'}")
            if len(m.group(1)) != level:
                raise CorpusError(f"{where}: section {want!r} is a level-{level} heading in {card.source}")
            if not heading:
                raise CorpusError(f"{where}: section {want!r} has an empty English heading")
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading))
            current, heading_line = anchor, lineno
            headings[anchor], paths[anchor] = heading, [h for _, h in stack]
            english[anchor] = [None] * len(zh[anchor])
            continue
        body = _BULLET.sub("", line)
        if not body.strip():
            continue
        if current is None:
            raise CorpusError(f"{where}: text before the first heading")
        pieces = _TOKEN.split(body)  # text, id, text, id, ..., trailing text
        for k in range(1, len(pieces), 2):
            anchor, n = marks[int(pieces[k])]
            sent = pieces[k - 1].strip().strip("*").strip()
            sid = f"{anchor}.{n}"
            if not sent:
                raise CorpusError(f"{where}: the id {sid} follows no English sentence")
            if anchor != current:
                raise CorpusError(f"{where}: the id {sid} names another section; this is section {current!r}")
            if not 1 <= n <= len(zh[current]):
                raise CorpusError(f"{where}: section {current!r} has {len(zh[current])} Chinese sentence(s); "
                                  f"there is no {sid}")
            if english[current][n - 1] is not None:
                raise CorpusError(f"{where}: {sid} already has its English; each sentence is rendered once")
            english[current][n - 1] = sent
        tail = pieces[-1].strip().strip("*").strip()
        if tail:
            raise CorpusError(f"{where}: English text with no sentence id ({tail[:40]!r}); end every sentence "
                              f"with the id of its Chinese sentence, e.g. <!-- s:{current}.1 -->")
    close(f"{source}:{len(lines)}")
    if len(headings) < len(expected):
        raise CorpusError(f"{source}: section {expected[len(headings)][0]!r} of {card.source} has no heading here")
    return Rendering(source=source, title=title or card.meta.title, headings=headings, paths=paths,
                     sentences={a: [s or "" for s in v] for a, v in english.items()})


# -- lookups over chunks -----------------------------------------------------------------------

def sentence_offsets(text: str) -> list[tuple[int, int]]:
    """(start, end) in `text` of each `sentences(text)` item, in order."""
    out, pos = [], 0
    for s in sentences(text):
        start = text.find(s, pos)
        if start < 0:  # cannot happen: sentences are exact substrings in order
            start = text.find(s)
        out.append((start, start + len(s)))
        pos = start + len(s)
    return out


def has_english(chunk: "Chunk") -> bool:
    return bool(chunk.sentences_en) and len(chunk.sentences_en) == len(sentences(chunk.text))


def english_of(chunk: "Chunk", sentence: str) -> str | None:
    """The aligned English of one of the chunk's sentences; None when it has none."""
    if not has_english(chunk):
        return None
    for zh, en in zip(sentences(chunk.text), chunk.sentences_en):
        if zh == sentence:
            return en or None
    return None


def sentence_ids_of_span(chunk: "Chunk", start: int, end: int) -> list[int]:
    """0-based indices of the chunk's sentences that the span text[start:end] overlaps."""
    return [i for i, (a, b) in enumerate(sentence_offsets(chunk.text)) if a < end and start < b]


def english_of_span(chunk: "Chunk", start: int, end: int) -> str | None:
    """The English of every sentence the span overlaps, joined; None without a full alignment."""
    if not has_english(chunk):
        return None
    ids = sentence_ids_of_span(chunk, start, end)
    parts = [chunk.sentences_en[i] for i in ids]
    if not parts or not all(parts):
        return None
    out = parts[0]
    for part in parts[1:]:  # list items have no full stop: keep them apart on one line
        out += (" " if out.endswith((".", "?", "!", ";", ":", "”", "→")) else "; ") + part
    return out


def quote_english(chunk: "Chunk", quote: str) -> str | None:
    """`Citation.quote_en`: the aligned English of a quote (an exact span of the chunk)."""
    start = chunk.text.find(quote) if quote else -1
    return None if start < 0 else english_of_span(chunk, start, start + len(quote))


def english_markdown(chunk: "Chunk") -> str | None:
    """The chunk's Markdown with every sentence replaced by its aligned English, so lists, tables and
    bold labels keep their shape (the card page in English, #17). None without a full alignment."""
    if not has_english(chunk):
        return None
    text, out, pos = chunk.text, [], 0
    for (start, end), en in zip(sentence_offsets(text), chunk.sentences_en):
        gap = text[pos:start]
        if out and not gap:  # Chinese sentences run on with no space; English ones need one
            gap = " "
        out += [gap, en]
        pos = end
    out.append(text[pos:])
    return "".join(out)

