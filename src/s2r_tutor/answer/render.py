"""Plain-text rendering for people (the CLI's `ask` without --json): the Markdown answer, a numbered
source list, and suggested next questions."""

from __future__ import annotations

from ..i18n import ui
from ..models import Answer, Citation

_HEAD = {"zh": (ui("zh", "sources"), "接下来可以问"), "en": (ui("en", "sources"), "You could ask next")}


def _one_line(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _source_row(c: Citation, language: str) -> str:
    """One source: section and place, then the quote; for English, the aligned English first and the
    Chinese original under it (the quote is always the card's exact Chinese span)."""
    row = f"[{c.marker}] {c.section} ({c.chunk_id}, {c.source})"
    if language == "en" and c.quote_en:
        return f"{row}\n    “{_one_line(c.quote_en)}”\n    {ui('en', 'original')}“{_one_line(c.quote)}”"
    return f"{row}\n    “{_one_line(c.quote)}”"


def render_text(answer: Answer) -> str:
    sources, nexts = _HEAD[answer.language]
    parts = [answer.answer.strip()]
    if answer.citations:
        rows = [_source_row(c, answer.language) for c in answer.citations]
        parts.append(f"**{sources}**\n\n" + "\n".join(rows))
    if answer.followups:
        parts.append(f"**{nexts}**\n\n" + "\n".join(f"- {q}" for q in answer.followups))
    if answer.backend != "template":
        parts.append(f"_({answer.backend})_")
    return "\n\n".join(parts) + "\n"
