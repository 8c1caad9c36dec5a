"""Small text helpers shared by chunking, grounding and the tests: normalisation, sentences, language."""

from __future__ import annotations

import re
import unicodedata

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ANCHOR = re.compile(r"\s*\{#[^}]*\}\s*$")
# Sentence ends: CJK full stops and ; , or ASCII .!? followed by space/end. Quotes that close a
# sentence stay with it.
_SENT_END = re.compile(r"(?<=[。！？；!?])[”’」』]?|(?<=[.])(?=\s|$)")


def strip_comments(text: str) -> str:
    return _COMMENT.sub("", text)


def strip_anchor(heading: str) -> tuple[str, str | None]:
    """'Reality Gap {#reality-gap}' -> ('Reality Gap', 'reality-gap')."""
    m = re.search(r"\{#([^}]*)\}\s*$", heading)
    return _ANCHOR.sub("", heading).strip(), (m.group(1).strip() if m else None)


def normalize(text: str) -> str:
    """Letters and digits only, NFKC-folded, lower case: for 'does this text contain that one'."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in text.lower() if ch.isalnum())


def clean_input(text: str) -> str:
    """Drop control characters and lone surrogates, collapse whitespace (user input only)."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    text = "".join(ch if unicodedata.category(ch)[0] != "C" or ch in "\n\t" else " " for ch in text)
    return re.sub(r"\s+", " ", text).strip()


def detect_language(text: str) -> str:
    """'zh' when the text has any Chinese character (a question with Chinese in it is a Chinese reader's, issue
    17: "system identification 在sim2real里指啥" is Chinese though Latin letters outnumber its Chinese ones; blind 25
    b25-058 got an English answer), 'en' when it has Latin letters and no Chinese, else 'zh' (the default)."""
    if _CJK.search(text):
        return "zh"
    return "en" if _LATIN.search(text) else "zh"


def sentences(text: str) -> list[str]:
    """Split Markdown text into sentence-sized spans, each an exact substring of `text`.

    Lines (bullets, paragraphs) are split first, then long lines at sentence ends. Markdown bullet
    and emphasis markers are left out of the span so quotes read cleanly.
    """
    out: list[str] = []
    for line in text.splitlines():
        body = re.sub(r"^\s*(?:[-*+]\s+|\d+\.\s+|>\s*)?", "", line)
        body = body.strip().strip("*").strip()
        if not body:
            continue
        start = 0
        for m in _SENT_END.finditer(body):
            end = m.end()
            piece = body[start:end].strip()
            if piece:
                out.append(piece)
            start = end
        tail = body[start:].strip()
        if tail:
            out.append(tail)
    return out
