"""Cards -> chunks: one per section; long sections split at paragraph or bullet boundaries."""

from __future__ import annotations

import re

from .corpus import Card, Section
from ..models import Chunk
from ..text import sentences, strip_comments


def _blocks(body: str) -> list[str]:
    """Paragraphs and whole bullet lists: the units a split may never cut through."""
    blocks: list[str] = []
    for para in re.split(r"\n\s*\n", body):
        para = para.strip("\n")
        if para.strip():
            blocks.append(para)
    return blocks


# A line that starts a list item ("- ", "* ", "1. "); other lines continue the item or paragraph above.
_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s")


def _units(block: str) -> list[str]:
    """The places a long block may be split: before each list item, which keeps its continuation
    lines. A paragraph is one unit even when wrapped over several lines (a wrap can fall mid-sentence)."""
    units: list[str] = []
    for line in block.split("\n"):
        if units and not _ITEM.match(line):
            units[-1] += "\n" + line
        else:
            units.append(line)
    return units


def _pack(blocks: list[str], limit: int) -> list[str]:
    """Greedily group consecutive blocks up to `limit` characters; a single larger block stays whole,
    or, if it is a list, is split between items. Text is rejoined with the separators it had."""
    parts: list[str] = []
    cur = ""
    for block in blocks:
        units = _units(block) if len(block) > limit else [block]
        for j, unit in enumerate(units):
            sep = "\n" if j else "\n\n"
            if cur and len(cur) + len(sep) + len(unit) > limit:
                parts.append(cur)
                cur = ""
            cur = cur + sep + unit if cur else unit
    if cur:
        parts.append(cur)
    return parts


def section_body(section: Section) -> str:
    """The text a section contributes to its chunk: comments removed, blank runs collapsed."""
    return re.sub(r"\n{3,}", "\n\n", strip_comments(section.body)).strip()


def container_sections(card: Card) -> dict[str, list[str]]:
    """{anchor: descendant anchors that have chunks} for headings with no text of their own
    ("## 为什么需要仿真" over A-D). Such a heading has no chunk; its subsections answer for it."""
    out: dict[str, list[str]] = {}
    for i, sec in enumerate(card.sections):
        if section_body(sec):
            continue
        below = []
        for sub in card.sections[i + 1:]:
            if sub.level <= sec.level:
                break
            if section_body(sub):
                below.append(sub.anchor)
        if below:
            out[sec.anchor] = below
    return out


def _english(card: Card, section: Section, parts: list[str]) -> tuple[str, list[list[str]]]:
    """(English heading path, each part's aligned English sentences) from the card's rendering.
    Parts cut the body between lines, so their sentences run on from one part to the next."""
    en = card.english
    if en is None or section.anchor not in en.sentences:
        return "", [[] for _ in parts]
    pool, out, pos = en.sentences[section.anchor], [], 0
    whole = sentences(section_body(section))
    for part in parts:
        mine = sentences(part)
        ok = mine == whole[pos: pos + len(mine)] and len(pool) == len(whole)
        out.append(pool[pos: pos + len(mine)] if ok else [])
        pos += len(mine)
    return " > ".join(en.paths[section.anchor]), out


def chunk_section(card: Card, section: Section, max_chars: int) -> list[Chunk]:
    body = section_body(section)
    if not body:
        return []
    parts = _pack(_blocks(body), max_chars) if len(body) > max_chars else [body]
    section_en, english = _english(card, section, parts)
    chunks = []
    for i, part in enumerate(parts):
        suffix = "" if i == 0 else f"-{i + 1}"
        chunks.append(
            Chunk(
                chunk_id=f"{card.meta.id}#{section.anchor}{suffix}",
                doc_id=card.meta.id,
                title=card.meta.title,
                section=" > ".join(section.path),
                anchor=section.anchor,
                text=part,
                source=card.source,
                line_start=section.line_start,
                line_end=section.line_end,
                questions=card.questions.get(section.anchor, []),
                section_en=section_en,
                sentences_en=english[i],
            )
        )
    return chunks


def _unique_ids(chunks: list[Chunk]) -> list[Chunk]:
    """A split part's '-2' suffix can equal a real anchor ('foo' split, then a section 'foo-2', or two
    headings with the same text): later duplicates get a further suffix so every chunk id is unique."""
    used: set[str] = set()
    out = []
    for c in chunks:
        cid, n = c.chunk_id, 2
        while cid in used:
            cid, n = f"{c.chunk_id}-{n}", n + 1
        used.add(cid)
        out.append(c if cid == c.chunk_id else c.model_copy(update={"chunk_id": cid}))
    return out


def chunk_card(card: Card, max_chars: int = 600) -> list[Chunk]:
    """Sections with no body of their own (a parent heading with only subsections) yield no chunk."""
    return _unique_ids([c for s in card.sections for c in chunk_section(card, s, max_chars)])


def chunk_corpus(cards: list[Card], max_chars: int = 600) -> list[Chunk]:
    return _unique_ids([c for card in cards for c in chunk_card(card, max_chars)])


def chunk_views(chunk: Chunk) -> list[str]:
    """The texts embedded for one chunk: the whole section, its heading alone, and each sentence under
    its heading, then the reader questions the card's questions file attaches to the section. Dense
    search scores a chunk by its best view (max-sim): a short paraphrased question often matches one
    sentence, the heading or a question like it far better than the averaged whole section.

    The questions come last: `build_index` embeds them in the query role, like the questions they
    must meet (e5's query-query similarity: blind holdout3 hit@1 0.85 -> 0.88 over the passage role),
    and the card's own text in the passage role."""
    return [v for v, _ in view_kinds(chunk)]


def view_kinds(chunk: Chunk) -> list[tuple[str, str]]:
    """(view, kind) for each of `chunk_views`: kind 'zh' (the card's text), 'en' (its English
    rendering, searched only by English questions, so Chinese search is exactly as before) or 'q'
    (a reader question)."""
    heading = chunk.heading
    views = [chunk.embed_text(), heading]
    views += [f"{heading}：{s}" for s in sentences(chunk.text)]
    views = list(dict.fromkeys(views))  # a one-sentence section would repeat itself
    english = [v for v in dict.fromkeys(english_views(chunk)) if v not in views]
    return [(v, "zh") for v in views] + [(v, "en") for v in english] + [(q, "q") for q in chunk.questions]


def english_text(chunk: Chunk) -> str:
    """The chunk's aligned English rendering as searchable text ('' without one)."""
    if not chunk.sentences_en:
        return ""
    return "\n".join([chunk.heading_en, *chunk.sentences_en])


def english_views(chunk: Chunk) -> list[str]:
    """Extra dense views from the card's English rendering: the whole English section, its heading
    and each sentence under it. An English question then meets English text directly instead of
    relying on the multilingual model to cross languages (docs/retrieval.md)."""
    if not chunk.sentences_en:
        return []
    head = chunk.heading_en
    return [english_text(chunk), head, *(f"{head}: {s}" for s in chunk.sentences_en)]


def sparse_text(chunk: Chunk) -> str:
    """What BM25 indexes: heading, text and the reader questions (their everyday words are what
    colloquial questions share with a section). Not the English rendering: its words would shift
    every Chinese question's BM25 statistics (measured: holdout zh hit@1 0.893 -> 0.857)."""
    return "\n".join([chunk.embed_text(), *chunk.questions])
