"""Answer -> the chat's message text. Every piece of user or corpus text is escaped here.

The chat renders Markdown (so the answer's lists and bold survive) with Gradio's HTML sanitiser
on; on top of that we escape what we insert ourselves, so a question such as
`<img src=x onerror=alert(1)>` or a stray tag in a card shows as text, never as markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from ..i18n import ui
from ..models import Chunk, Citation
from ..retrieval.alignment import english_markdown

_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")

LABELS = {lang: {"sources": ui(lang, "sources")} for lang in ("zh", "en")}  # the one table: s2r_tutor/i18n.py


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


# An inline link or image: [label](destination "title"). Labels with brackets inside are left to the
# `](` breaking below, which disarms them too.
_INLINE_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\(\s*([^()\s]*)(?:\s+\"[^\"\n]*\")?\s*\)")
# Only plain web addresses with a host name may be linked; anything else is shown as its label.
_SAFE_URL = re.compile(r"https?://([A-Za-z0-9.-]+)(?::\d{1,5})?(?:[/?#][A-Za-z0-9\-._~%/?#=&+:@!$,;*']*)?")
# A reference definition ([x]: http://...) turns every [x] in the text into a link or an image.
_REF_DEFINITION = re.compile(r"^(\s{0,3})\[(?=[^\]\n]*\]:)", re.M)
# What a GFM renderer turns into a link on its own: bare addresses, www. names, e-mail addresses.
_BARE_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://|(?:mailto|xmpp|javascript|vbscript|data):|www\.)[^\s<>]*|"
                           r"[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+", re.I)


def _inert(text: str) -> str:
    """`.`, `:`, `/` and `@` as numeric references: no renderer sees an address in it any more."""
    return re.sub(r"[.:/@]", lambda m: f"&#{ord(m.group())};", text)


def answer_markdown(text: str, link_hosts: Iterable[str] = ()) -> str:
    """The answerer's (or an LLM's) Markdown made safe to render: raw HTML shown as text (`<` and
    `&` escaped), images shown as their alt text, links kept only to `link_hosts` (exact host names;
    none by default) and otherwise shown as their label, reference definitions disarmed, and bare
    `www.`/`http://`/e-mail addresses not linkified. Lists, bold and `[n]` markers stay."""
    hosts = {h.lower().rstrip(".") for h in link_hosts}
    text = text.replace("\0", "")
    kept: list[str] = []

    def link(m: re.Match) -> str:
        image, label, url = m.group(1), m.group(2), m.group(3)
        safe = _SAFE_URL.fullmatch(url)
        if image or not safe or safe.group(1).lower().rstrip(".") not in hosts:
            return label  # images never render; a link elsewhere is its label
        kept.append(f"[{_escape_md_html(label)}]({url})")
        return f"\0{len(kept) - 1}\0"

    text = _INLINE_LINK.sub(link, text)
    text = _escape_md_html(text)
    text = _REF_DEFINITION.sub(lambda m: m.group(1) + "\\[", text)
    text = _BARE_ADDRESS.sub(lambda m: _inert(m.group()), text)
    text = text.replace("](", "]\\(")
    return re.sub(r"\0(\d+)\0", lambda m: kept[int(m.group(1))], text)


def _escape_md_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


def section_markdown(parts: list[Chunk], english: bool = False) -> str | None:
    """One card section (its chunks, in order) as safe Markdown for the Card tab and the card page; with
    `english`, its aligned English rendering, or None when a part has none."""
    texts = [english_markdown(p) if english else p.text for p in parts]
    if english and not all(texts):
        return None
    return "\n\n".join(answer_markdown(t) for t in texts if t)


def section_title(section: str) -> str:
    """'什么是 Sim2Real？ > 为什么需要仿真 > A · 成本' -> '为什么需要仿真 > A · 成本' (card title dropped)."""
    parts = [p.strip() for p in section.split(">")]
    return " > ".join(parts[1:]) if len(parts) > 1 else section


# --------------------------------------------------------------------------- ui (#15): copyable sources
# The chat's copy button and each message's accessibility label take the message's raw content, so
# the sources travel as plain Markdown (a numbered list, no HTML), in a second message that Gradio
# shows as a collapsed block in the answer's bubble.

_MD_INLINE = re.compile(r"(\*\*|__|`)")
_MD_LINE_START = re.compile(r"^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)", re.M)
_MD_SPECIAL = re.compile(r"([\\<>\[\]*_`|~&])")


def plain_text(text: str) -> str:
    """Card Markdown as one line of readable text for a list item: emphasis, code ticks and line
    prefixes dropped, whitespace collapsed, and the few characters Markdown or HTML would act on
    backslash-escaped (so it renders literally and copies with no entities)."""
    text = _MD_INLINE.sub("", _MD_LINE_START.sub("", text))
    return _MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def sources_title(citations: list[Citation], language: str) -> str:
    return f'{LABELS.get(language, LABELS["zh"])["sources"]} ({len(citations)})'


def sources_markdown(citations: list[Citation], language: str) -> str:
    """One numbered item per citation: section in bold, the quoted span, the chunk id as code.
    An English answer shows the English rendering of the quote where the citation carries one."""
    lines = []
    for c in citations:
        english = getattr(c, "quote_en", None) if language == "en" else None
        if english:  # the aligned English, then the card's own Chinese span it stands for (issue 17)
            quote = f"{plain_text(english)} ({ui('en', 'original')}{plain_text(c.quote)})"
        else:
            quote = plain_text(c.quote)
        lines.append(f"{c.marker}. **{plain_text(section_title(c.section))}**：{quote} `{c.chunk_id}`")
    return "\n".join(lines)
