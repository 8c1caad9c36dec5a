"""Grounded answers over the card: intents, templates, verified citations, refusal, optional LLM.

The public names below are re-exported lazily (as `s2r_tutor` itself does): importing one submodule,
e.g. `answer.intents` for the search prior, must not load the answerer, the templates and the LLM
client with httpx. Import a name and only its module is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

# name -> the submodule that defines it
_EXPORTS = {
    "Answerer": "answerer",
    "BACKENDS": "llm",
    "LLM": "llm",
    "get_llm": "llm",
    "REFUSAL": "refusal",
    "TRY_INSTEAD": "refusal",
    "render_text": "render",
}

__all__ = ["BACKENDS", "LLM", "REFUSAL", "TRY_INSTEAD", "Answerer", "get_llm", "render_text"]

if TYPE_CHECKING:
    from .answerer import Answerer
    from .llm import BACKENDS, LLM, get_llm
    from .refusal import REFUSAL, TRY_INSTEAD
    from .render import render_text


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
