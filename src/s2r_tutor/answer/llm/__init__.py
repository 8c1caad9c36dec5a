"""LLM backends: a registry dict; an unknown name raises, listing the choices."""

from __future__ import annotations

from typing import Callable

from ...errors import LLMError
from ...settings import LLMSettings
from .base import LLM
from .openai_compat import OpenAICompatLLM

BACKENDS: dict[str, Callable[[LLMSettings], LLM]] = {"openai": OpenAICompatLLM}


def get_llm(settings: LLMSettings) -> LLM | None:
    """The configured LLM, or None when none is configured (base_url or model unset)."""
    if not settings.enabled:
        return None
    try:
        factory = BACKENDS[settings.backend]
    except KeyError:
        raise LLMError(f"unknown LLM backend {settings.backend!r}; choices: {', '.join(sorted(BACKENDS))}") from None
    return factory(settings)


__all__ = ["BACKENDS", "LLM", "OpenAICompatLLM", "get_llm"]
