"""Personal notes against sections: starters from the card's own 我的笔记 prompts, Markdown export,
and `notes_for_sections()` for the chat's card tab (notes shown beside their section)."""

from __future__ import annotations

import re
import time

from ..models import Chunk
from ..settings import Settings
from ..store import StoreError, open_store
from . import structure as S
from .progress import StudyStore, StudyStoreError, clean_reader

NOTES_HEADING = re.compile(r"笔记|notes?\b|reflection|思考", re.I)


def note_starters(chunks: list[Chunk]) -> list[str]:
    """The prompts a card offers for notes: question-shaped bullets under a 我的笔记 / Notes heading."""
    out: list[str] = []
    for c in chunks:
        if not NOTES_HEADING.search(S.heading(c)):
            continue
        for lst in S.parse(c.text).lists:
            out += [i.strip() for i in lst.items if i.rstrip().endswith(("？", "?"))]
    return list(dict.fromkeys(out))


def save_note(store: StudyStore, reader: str, chunk_id: str, text: str, chunks: list[Chunk]) -> int:
    if chunk_id not in {c.chunk_id for c in chunks}:
        raise StudyStoreError(f"unknown section {chunk_id!r}")
    return store.add_note(reader, chunk_id, text)


def notes_by_section(store: StudyStore, reader: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for n in store.notes(reader):
        out.setdefault(n.chunk_id, []).append(n.text)
    return out


def notes_for_sections(settings: Settings, reader: str) -> dict[str, list[str]]:
    """{chunk_id: [note text, oldest first]} for one reader: for showing notes beside sections.
    Raises StudyStoreError (a TutorError) on a corrupt or locked database or a bad reader id.
    Reading never creates the database: no file yet means no notes."""
    if not settings.database_url and not settings.study_db.exists():
        clean_reader(reader)
        return {}
    try:
        store = open_store(settings)
    except StoreError as exc:
        raise StudyStoreError(str(exc)) from None
    return notes_by_section(StudyStore(store), reader)


def export_markdown(store: StudyStore, reader: str, chunks: list[Chunk]) -> str:
    """All of a reader's notes as Markdown, grouped by section in card order, each section cited."""
    notes = store.notes(reader)
    order = {c.chunk_id: i for i, c in enumerate(chunks)}
    by_id = {c.chunk_id: c for c in chunks}
    lines = [f"# 我的笔记 · {reader}", "", f"_导出于 {time.strftime('%Y-%m-%d %H:%M')}，共 {len(notes)} 条_", ""]
    groups: dict[str, list] = {}
    for n in notes:
        groups.setdefault(n.chunk_id, []).append(n)
    for cid in sorted(groups, key=lambda k: (order.get(k, len(order)), k)):
        c = by_id.get(cid)
        lines.append(f"## {c.section if c else cid}")
        lines.append(f"<sub>[{cid}]" + (f" · {c.source}:{c.line_start}" if c else "") + "</sub>")
        lines.append("")
        for n in groups[cid]:
            stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(n.created_at))
            body = n.text.replace("\n", "\n  ")
            lines.append(f"- {body} _({stamp})_")
        lines.append("")
    if not notes:
        lines.append("（还没有笔记）")
    return "\n".join(lines).rstrip() + "\n"
