"""Cards -> chunks: one per section; long sections split at paragraph or bullet boundaries."""

from __future__ import annotations

import re

from .corpus import Card, Section
from .models import Chunk
from .text import strip_comments


def _blocks(body: str) -> list[str]:
    """Paragraphs and whole bullet lists: the units a split may never cut through."""
    blocks: list[str] = []
    for para in re.split(r"\n\s*\n", body):
        para = para.strip("\n")
        if para.strip():
            blocks.append(para)
    return blocks


def _pack(blocks: list[str], limit: int) -> list[str]:
    """Greedily group consecutive blocks up to `limit` characters; a single larger block stays whole,
    or, if it is a bullet list, is split between bullets."""
    parts: list[str] = []
    cur: list[str] = []
    size = 0
    for block in blocks:
        pieces = [block]
        if len(block) > limit and "\n" in block:
            pieces = block.split("\n")  # a long list: each bullet line is a unit
        for piece in pieces:
            if cur and size + len(piece) > limit:
                parts.append("\n\n".join(cur) if len(cur) > 1 else cur[0])
                cur, size = [], 0
            cur.append(piece)
            size += len(piece) + 2
    if cur:
        parts.append("\n\n".join(cur))
    return parts


def chunk_section(card: Card, section: Section, max_chars: int) -> list[Chunk]:
    body = strip_comments(section.body)
    body = re.sub(r"\n{3,}", "\n\n", body).strip()
    if not body:
        return []
    parts = _pack(_blocks(body), max_chars) if len(body) > max_chars else [body]
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
