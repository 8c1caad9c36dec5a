"""Plain-text rendering for people (the CLI's `ask` without --json): the Markdown answer, a numbered
source list, and suggested next questions."""

from __future__ import annotations

from ..models import Answer

_HEAD = {"zh": ("来源", "接下来可以问"), "en": ("Sources", "You could ask next")}


def _one_line(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render_text(answer: Answer) -> str:
    sources, nexts = _HEAD[answer.language]
    parts = [answer.answer.strip()]
    if answer.citations:
        rows = [f"[{c.marker}] {c.section} ({c.chunk_id}, {c.source})\n    “{_one_line(c.quote)}”" for c in answer.citations]
        parts.append(f"**{sources}**\n\n" + "\n".join(rows))
    if answer.followups:
        parts.append(f"**{nexts}**\n\n" + "\n".join(f"- {q}" for q in answer.followups))
    if answer.backend != "template":
        parts.append(f"_({answer.backend})_")
    return "\n\n".join(parts) + "\n"
