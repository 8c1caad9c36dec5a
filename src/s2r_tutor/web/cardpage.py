"""`/card/{card_id}`: the card as one read-only page, for the widget's "open in card" (#15).

    GET /card/04-08?section=reality-gap&quote=...&lang=en#s2r-hl

The chat opens its Card tab at a cited section with the quote highlighted; the widget has no card,
so its sources link here (new tab). The page is built on the server, no script at all:

- the card's Markdown goes through the chat's `answer_markdown` (raw HTML shown as text, links only
  as their labels, bare addresses inert), then markdown-it with HTML off (tables on);
- `quote` is never written into the page: it is only looked for, whitespace-insensitively, as an
  exact span of the section's rendered text (the target section's first, else any section's), and
  that card text is wrapped in `<mark>`. No match, or a quote over `MAX_QUOTE_CHARS`: no highlight;
- the first `<mark>` (or, without one, the target section) carries `id="s2r-hl"`, so the link's
  `#s2r-hl` fragment scrolls there with no script;
- `section` and `card_id` are looked up, never echoed; an unknown card is a 404 page.

The widget's strict CSP applies (no script at all is allowed here), and `frame-ancestors` as on
every page.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from markdown_it.token import Token

from ..models import Chunk
from ..retrieval.alignment import sentence_ids_of_span
from ..settings import Settings
from .render import section_markdown, section_title

MAX_QUOTE_CHARS = 1000  # a citation's quote is a sentence or two; anything longer is not one of ours
HIGHLIGHT_ID = "s2r-hl"

LABELS = {
    "zh": {"lang": "zh-CN", "title": "概念卡", "note": "只读原文。高亮处是回答引用的句子。",
           "missing": "没有这张概念卡。", "source": "来源文件", "original": "中文原文"},
    "en": {"lang": "en", "title": "Concept card", "note": "Read-only card text, in the card's English rendering; "
           "each section's Chinese original (what citations quote) is folded under it. The highlighted span is "
           "what the answer cited.", "missing": "There is no such card.", "source": "Source file",
           "original": "Chinese original"},
}

# Markdown characters that do not show in rendered text: a quote taken from the card's Markdown may carry them.
_MD_MARKS = re.compile(r"\*\*|__|`|^\s*(?:[-*+]|\d+[.)])\s+|^\s*#{1,6}\s+|^\s*>\s?", re.MULTILINE)


@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def _section_tokens(parts: list[Chunk]):
    md = _markdown()
    return md.parse(section_markdown(parts) or "—")


def _highlight(tokens, quote: str, scroll_target: bool = True) -> bool:
    """Wrap the card text matching `quote` (ignoring whitespace and Markdown marks) in <mark>, in
    place. Only `text` tokens are searched and split, so the marks nest inside the same elements
    as the text they wrap. The first mark is the #s2r-hl target when `scroll_target`. True when found."""
    needle = re.sub(r"\s+", "", _MD_MARKS.sub("", quote))
    if not needle:
        return False
    chars: list[tuple[object, int]] = []  # (text token, offset) per non-space character
    parent: dict[int, object] = {}  # id(text token) -> its inline token
    for tok in tokens:
        for child in (tok.children or []) if tok.type == "inline" else []:
            if child.type == "text":
                parent[id(child)] = tok
                chars += [(child, i) for i, c in enumerate(child.content) if not c.isspace()]
    hay = "".join(t.content[i] for t, i in chars)
    at = hay.find(needle)
    if at < 0:
        return False
    span = chars[at: at + len(needle)]
    cuts: dict[int, list] = {}  # id(token) -> [token, first, last]
    for tok, i in span:
        cut = cuts.setdefault(id(tok), [tok, i, i])
        cut[2] = i
    first = scroll_target
    for tok, start, end in cuts.values():
        # The text after the span stays a text token: a second quote (the next aligned sentence) may start there.
        text, inline = tok.content, parent[id(tok)]
        mark = Token("html_inline", "", 0, content=(
            (f'<mark class="s2r-hl" id="{HIGHLIGHT_ID}">' if first else '<mark class="s2r-hl">')
            + html.escape(text[start:end + 1], quote=False) + "</mark>"))
        pieces = [Token("text", "", 0, content=text[:start]), mark, Token("text", "", 0, content=text[end + 1:])]
        at_child = next(n for n, c in enumerate(inline.children) if c is tok)
        inline.children[at_child:at_child + 1] = [p for p in pieces if p.type != "text" or p.content]
        first = False
    return True


def _english_tokens(group: list[Chunk]):
    """The section in its aligned English (same lists and tables), or None when a part has none."""
    text = section_markdown(group, english=True)
    return None if text is None else _markdown().parse(text)


def _highlight_english(tokens, group: list[Chunk], quote: str) -> bool:
    """Mark the aligned English of every card sentence the (Chinese) quote spans."""
    for chunk in group:
        start = chunk.text.find(quote)
        if start < 0:
            continue
        ids = sentence_ids_of_span(chunk, start, start + len(quote))
        # one mark per sentence: a quote over two list items is two spans in the rendered English
        marked = [_highlight(tokens, chunk.sentences_en[i], scroll_target=n == 0) for n, i in enumerate(ids)]
        return any(marked)
    return False


def card_page(chunks: list[Chunk], card_id: str, section: str = "", quote: str = "", lang: str = "zh") -> str | None:
    """The page's HTML, or None for an unknown card. In English each section shows the card's aligned
    English rendering, with the Chinese original (the text citations quote) folded under it."""
    parts = [c for c in chunks if c.doc_id == card_id]
    if not parts:
        return None
    english = lang == "en"
    t = LABELS["en" if english else "zh"]
    sections: dict[str, list[Chunk]] = {}
    for chunk in parts:
        sections.setdefault(chunk.section, []).append(chunk)
    rendered = {name: _section_tokens(group) for name, group in sections.items()}
    rendered_en = {name: _english_tokens(group) for name, group in sections.items()} if english else {}
    # `section`: the section's anchor, or a chunk id's part after '#' (a split section's "-2" included)
    target = next((name for name, group in sections.items()
                   if section and any(section in (c.anchor, c.chunk_id.partition("#")[2]) for c in group)), None)
    found = found_en = False
    if quote and len(quote) <= MAX_QUOTE_CHARS:
        order = ([target] if target else []) + [n for n in sections if n != target]
        for name in order:
            en = rendered_en.get(name)
            found_en = en is not None and _highlight_english(en, sections[name], quote)
            if _highlight(rendered[name], quote, scroll_target=not found_en):
                found = True
                break
    md = _markdown()
    body = []
    for name, group in sections.items():
        anchor = group[0].anchor
        attrs = f' id="sec-{html.escape(anchor)}"'
        cls = ' class="s2r-card-target"' if name == target else ""
        jump = f'<span id="{HIGHLIGHT_ID}"></span>' if name == target and not found else ""
        chinese = md.renderer.render(rendered[name], md.options, {})
        en = rendered_en.get(name)
        if en is not None:
            heading = section_title(group[0].section_en) if group[0].section_en else section_title(name)
            # the Chinese original opens by itself when the cited span was only found there
            fold = " open" if found and not found_en and name == target else ""
            content = (f"{md.renderer.render(en, md.options, {})}"
                       f'<details class="s2r-card-zh"{fold} lang="zh-CN"><summary>{html.escape(t["original"])}'
                       f"</summary>{chinese}</details>")
        else:
            heading, content = section_title(name), chinese
        body.append(f"<section{attrs}{cls}>{jump}<h2>{html.escape(heading)}</h2>{content}"
                    f'<p class="s2r-card-id">{html.escape(group[0].source)} · {html.escape(group[0].chunk_id)}</p>'
                    "</section>")
    en_title = parts[0].section_en.split(" > ")[0].strip() if english and parts[0].section_en else ""
    title = html.escape(en_title or parts[0].title)
    return (f'<!doctype html><html lang="{t["lang"]}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="referrer" content="no-referrer"><title>{title} · {html.escape(t["title"])}</title>'
            '<link rel="stylesheet" href="../embed/static/card.css"></head><body><main class="s2r-card">'
            f'<header><h1>{title}</h1><p class="s2r-card-note">{html.escape(t["note"])}</p></header>'
            f'{"".join(body)}</main></body></html>')


class _Chunks(tuple):
    """The runtime's chunk list as a cache key: by identity (a reloaded index is a new list)."""

    def __hash__(self) -> int:  # type: ignore[override]
        return id(self[0]) if self else 0

    def __eq__(self, other) -> bool:  # type: ignore[override]
        return isinstance(other, _Chunks) and len(self) == len(other) and all(a is b for a, b in zip(self, other))


@lru_cache(maxsize=256)
def _page(chunks: _Chunks, card_id: str, section: str, quote: str, lang: str) -> str | None:
    return card_page(list(chunks), card_id, section, quote, lang)


def _cached_page(chunks: list[Chunk], card_id: str, section: str, quote: str, lang: str) -> str | None:
    return _page(_Chunks(chunks), card_id, section, quote, lang)


def missing_page(lang: str) -> str:
    t = LABELS["en" if lang == "en" else "zh"]
    return (f'<!doctype html><html lang="{t["lang"]}"><head><meta charset="utf-8"><title>404</title>'
            f'<link rel="stylesheet" href="../embed/static/card.css"></head>'
            f'<body><main class="s2r-card"><p>{html.escape(t["missing"])}</p></main></body></html>')


def install_card_page(app: FastAPI, settings: Settings, csp: str) -> None:
    """GET /card/{card_id}. Call before Gradio is mounted at '/'; reads the runtime's chunks per request."""
    headers = {"Content-Security-Policy": csp, "Cache-Control": "no-cache"}

    @app.get("/card/{card_id}", include_in_schema=False)
    async def card(request: Request, card_id: str, section: str = "", quote: str = "", lang: str = "zh") -> HTMLResponse:
        # Rendering the card takes milliseconds of CPU: never on the event loop (a flood of /card stalled
        # every route, /healthz 2 s), and through the same bounded slots as an ask; a page asked again
        # (the same source clicked by many readers) comes from a small cache.
        runtime = request.app.state.runtime
        page = await runtime.call(_cached_page, runtime.tutor.chunks, card_id, section[:200],
                                  quote if len(quote) <= MAX_QUOTE_CHARS else "", "en" if lang == "en" else "zh")
        if page is None:
            return HTMLResponse(missing_page(lang), status_code=404, headers=headers)
        return HTMLResponse(page, headers=headers)
