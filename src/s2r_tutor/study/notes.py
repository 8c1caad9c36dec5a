"""Personal notes against sections: starters from the card's own 我的笔记 prompts, Markdown export,
and `notes_for_sections()` for the chat's card tab (notes shown beside their section)."""

from __future__ import annotations

import re
import time

from ..models import Chunk
from ..settings import Settings
from ..store import StoreError, open_store
from . import structure as S
from .progress import NoteError, NoteLimitError, StudyStorageError, StudyStore, clean_reader

__all__ = ["NoteError", "NoteLimitError", "export_markdown", "note_starters", "notes_by_section",
           "notes_for_sections", "resolve_section", "save_note", "section_name", "starters_in"]

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


def section_name(chunk: Chunk, language: str = "zh") -> str:
    """A section's heading path as a reader of `language` reads it (the card's English heading)."""
    return chunk.section_en if language == "en" and chunk.section_en else chunk.section


def starters_in(starters: list[str], chunks: list[Chunk], language: str = "zh") -> list[str]:
    """The card's note prompts in `language`: in English their aligned English where the card has it."""
    if language != "en":
        return list(starters)
    from .english import CardEnglish

    english = CardEnglish(chunks)
    return [english.of(s) or s for s in starters]


def resolve_section(section: str, chunks: list[Chunk]) -> Chunk:
    """The chunk a note is about: a chunk id ('04-08#reality-gap') or a section anchor ('reality-gap',
    the first part of that section). NoteError for anything the corpus does not have."""
    section = (section or "").strip()
    for c in chunks:
        if c.chunk_id == section:
            return c
    by_anchor = [c for c in chunks if c.anchor == section]
    if len({c.doc_id for c in by_anchor}) > 1:
        raise NoteError(f"section {section[:80]!r} is in more than one card; give its chunk id (card#anchor)")
    if by_anchor:
        return by_anchor[0]
    raise NoteError(f"unknown section {section[:80]!r}: give a chunk id such as "
                    f"{chunks[0].chunk_id if chunks else 'card#anchor'!r} or its anchor")


def save_note(store: StudyStore, reader: str, chunk_id: str, text: str, chunks: list[Chunk],
              settings: Settings | None = None) -> int:
    """Validate and store one note. With `settings`, its caps apply (`max_note_chars`,
    `max_notes_per_reader`): NoteError for a note too long, NoteLimitError for one note too many."""
    chunk = resolve_section(chunk_id, chunks)
    text = (text or "").strip()
    if not text:
        raise NoteError("the note is empty")
    if settings is not None and len(text) > settings.max_note_chars:
        raise NoteError(f"the note is {len(text)} characters long; the most allowed is {settings.max_note_chars}")
    return store.add_note(reader, chunk.chunk_id, text,
                          max_notes=settings.max_notes_per_reader if settings is not None else None,
                          max_anonymous=settings.anonymous_notes_max if settings is not None else None)


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
        raise StudyStorageError(str(exc)) from None
    return notes_by_section(StudyStore(store), reader)


# The export's own words per language; the reader's notes are theirs, never translated.
EXPORT_TEXT = {
    "zh": {"title": "# 我的笔记 · {who}", "stamp": "_导出于 {when}，共 {n} 条_", "none": "（还没有笔记）"},
    "en": {"title": "# My notes · {who}", "stamp": "_Exported {when}, {n} notes_", "none": "(no notes yet)"},
}


def export_markdown(store: StudyStore, reader: str, chunks: list[Chunk], title: str | None = None,
                    language: str = "zh") -> str:
    """All of a reader's notes as Markdown, grouped by section in card order, each section cited.
    `title` names the reader in the heading (default: the id; the web passes 'anonymous' rather
    than an anonymous reader's id, which works as a password). `language` 'en': English headings
    (a section by its English heading where the card has an English rendering)."""
    t = EXPORT_TEXT.get(language, EXPORT_TEXT["zh"])
    notes = store.notes(reader)
    order = {c.chunk_id: i for i, c in enumerate(chunks)}
    by_id = {c.chunk_id: c for c in chunks}
    lines = [t["title"].format(who=title or reader), "",
             t["stamp"].format(when=time.strftime('%Y-%m-%d %H:%M'), n=len(notes)), ""]
    groups: dict[str, list] = {}
    for n in notes:
        groups.setdefault(n.chunk_id, []).append(n)
    for cid in sorted(groups, key=lambda k: (order.get(k, len(order)), k)):
        c = by_id.get(cid)
        lines.append(f"## {section_name(c, language) if c else cid}")
        lines.append(f"<sub>[{cid}]" + (f" · {c.source}:{c.line_start}" if c else "") + "</sub>")
        lines.append("")
        for n in groups[cid]:
            stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(n.created_at))
            body = n.text.replace("\n", "\n  ")
            lines.append(f"- {body} _({stamp})_")
        lines.append("")
    if not notes:
        lines.append(t["none"])
    return "\n".join(lines).rstrip() + "\n"
