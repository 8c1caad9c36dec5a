"""`Memo`: the real embedder, remembering what it has embedded (a helper, not a test module).

The session's `tutor` fixture (conftest.py) builds the card's index through one, so every later
rebuild over the same card text (a new card added beside it, a corrupt index rebuilt, ...) embeds
only the texts it has not seen: the vectors are still the model's own."""

from __future__ import annotations

import numpy as np

MAX_REMEMBERED = 20_000  # property tests send thousands of random queries; keep the memory bounded


class Memo:
    def __init__(self, inner):
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self._seen: dict[tuple[str, str], np.ndarray] = {}

    def __getattr__(self, name: str):  # anything beyond the protocol is the real embedder's
        return getattr(self.inner, name)

    def _embed(self, role: str, texts: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if (role, t) not in self._seen]
        fresh = dict(zip(todo, getattr(self.inner, role)(todo))) if todo else {}
        if len(self._seen) < MAX_REMEMBERED:
            self._seen.update(((role, t), v) for t, v in fresh.items())
        rows = [fresh[t] if t in fresh else self._seen[role, t] for t in texts]
        return np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed("embed_queries", texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed("embed_passages", texts)
