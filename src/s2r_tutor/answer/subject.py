"""Words readers use of this card: the card's own (both renderings), and those of the labelled in-scope
questions and customer stories. A question in scope by a card word ("factory floor", "deployment",
"fine-tuning", 世界模型) whose other content words are unknown to all of them ("noise cancelling
headphones", "k8s", "LoRA … VRAM") is about another subject; the labelled questions' out-of-scope vote
decides with them (Answerer._unknown_subject)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from .lexicon import fold

_EN = re.compile(r"[a-z][a-z0-9\-]{2,}")
_ZH = re.compile(r"[\u4e00-\u9fff]+")


def _stem(word: str) -> str:
    """A plural's singular ("customers", "policies"), so a word is not unknown for its number."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


class KnownWords:
    def __init__(self, texts: Iterable[str], tokenizer: Callable[[str], list[str]]):
        self.tokenizer = tokenizer
        self.known: set[str] = set()
        for text in texts:
            self.known |= self.words(text)

    def words(self, text: str) -> set[str]:
        """Content words: English words of three letters or more (singular), Chinese words of two characters
        or more (the retrieval tokenizer, with the card's user dictionary)."""
        folded = fold(text).lower()
        out = {_stem(w) for w in _EN.findall(folded)}
        for run in _ZH.findall(folded):
            out |= {w for w in self.tokenizer(run) if len(w) >= 2 and _ZH.fullmatch(w)}
        return out

    def unknown(self, question: str) -> list[str]:
        return sorted(self.words(question) - self.known)
