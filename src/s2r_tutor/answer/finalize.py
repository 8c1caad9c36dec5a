"""The last steps between composed Markdown and the reader: traditional -> simplified at the input,
and `final_render` at the output."""

from __future__ import annotations

import re
from functools import lru_cache

from ..models import Citation


@lru_cache(maxsize=1)
def _t2s():
    import opencc  # opencc-python-reimplemented: pure Python, loaded once on first use

    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional Chinese characters to simplified (請問系統辨識是什麼意思 -> 请问系统辨识是什么意思).
    Only the question is converted; the card is always quoted as it is."""
    return _t2s().convert(text) if re.search(r"[\u4e00-\u9fff]", text) else text


# `**结论：**但…`: CommonMark does not close bold when punctuation precedes `**` and a letter follows,
# so the punctuation moves outside the markers.
_BOLD_PUNCT = re.compile(r"(\*\*[^*\n]+?)([：:，,。；;！!？?、])\*\*(?=[^\s*])")


def final_render(markdown: str, citations: list[Citation], lang: str) -> str:
    """Where cited card sentences become the answer text shown to the reader: the single hook for
    rendering choices made after verification (an English rendering of cited sentences belongs here).
    Today: bold that closes after CJK punctuation is repaired; nothing else changes."""
    return _BOLD_PUNCT.sub(r"\1**\2", markdown)
