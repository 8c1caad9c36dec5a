"""Grounded answers over the card: intents, templates, verified citations, refusal, optional LLM."""

from .answerer import Answerer
from .llm import BACKENDS, LLM, get_llm
from .refusal import REFUSAL, TRY_INSTEAD
from .render import render_text

__all__ = ["BACKENDS", "LLM", "REFUSAL", "TRY_INSTEAD", "Answerer", "get_llm", "render_text"]
