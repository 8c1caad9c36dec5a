"""Answer -> the chat's message text. Every piece of user or corpus text is escaped here.

The chat renders Markdown (so the answer's lists and bold survive) with Gradio's HTML sanitiser
on; on top of that we escape what we insert ourselves, so a question such as
`<img src=x onerror=alert(1)>` or a stray tag in a card shows as text, never as markup.
"""

from __future__ import annotations

import html
import re

from ..models import Answer, Citation

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")

LABELS = {
    "zh": {"sources": "来源", "no_sources": "（未引用卡片内容）"},
    "en": {"sources": "Sources", "no_sources": "(no card sections cited)"},
}


def escape_html(text: str) -> str:
    return html.escape(text, quote=True)


def user_text(text: str) -> str:
    """A user's message shown literally: no Markdown, no HTML."""
    return escape_html(_MD_PUNCT.sub(r"\\\1", text))


_ASCII_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")


def literal_text(text: str) -> str:
    """Text shown exactly as typed inside Markdown, line breaks kept: every ASCII punctuation mark
    becomes a numeric character reference, so nothing in it is Markdown, HTML or an autolink
    (backslash escapes are not enough: `http://a.b` is linked, escapes and all)."""
    return _ASCII_PUNCT.sub(lambda m: f"&#{ord(m.group())};", text).replace("\n", "<br>")


def answer_markdown(text: str) -> str:
    """The answerer's Markdown with HTML, inline links and images disabled (`<` and `&` escaped,
    `](` broken): lists, bold and `[n]` markers stay; nothing can point the page at another host."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("](", "]\\(")


def section_title(section: str) -> str:
    """'什么是 Sim2Real？ > 为什么需要仿真 > A · 成本' -> '为什么需要仿真 > A · 成本' (card title dropped)."""
    parts = [p.strip() for p in section.split(">")]
    return " > ".join(parts[1:]) if len(parts) > 1 else section


def _quote_html(c: Citation, language: str) -> str:
    """The quoted span; for an English reader, the aligned English first and the Chinese original
    it renders under it (issue 17: the quote itself is always the card's exact Chinese span)."""
    english = getattr(c, "quote_en", None) if language == "en" else None
    if not english:
        return f'<blockquote class="s2r-quote">{escape_html(c.quote)}</blockquote>'
    return (f'<blockquote class="s2r-quote" lang="en">{escape_html(english)}</blockquote>'
            f'<blockquote class="s2r-quote s2r-original" lang="zh">Chinese original: {escape_html(c.quote)}</blockquote>')


def sources_block(citations: list[Citation], language: str) -> str:
    """A collapsed <details> block: one entry per citation, its section and the quoted span."""
    labels = LABELS.get(language, LABELS["zh"])
    items = "".join(
        '<li class="s2r-source">'
        f'<span class="s2r-marker">[{c.marker}]</span> '
        f'<span class="s2r-section">{escape_html(section_title(c.section))}</span>'
        f'{_quote_html(c, language)}'
        f'<span class="s2r-origin">{escape_html(c.source)} · {escape_html(c.chunk_id)}</span>'
        "</li>"
        for c in citations
    )
    summary = f'{labels["sources"]} ({len(citations)})'
    # One HTML block with no blank line inside, so the Markdown renderer leaves it whole.
    return f'<details class="s2r-sources"><summary>{summary}</summary><ol class="s2r-source-list">{items}</ol></details>'


def answer_message(answer: Answer) -> str:
    """The assistant message: the answer, then (when it cites anything) the sources block."""
    body = answer_markdown(answer.answer)
    if answer.citations:
        body += "\n\n" + sources_block(answer.citations, answer.language)
    return body
