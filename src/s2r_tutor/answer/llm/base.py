"""The LLM plug-in contract: one method, `complete(messages) -> str`; raise LLMError on any failure."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class LLM(Protocol):
    name: str  # shown in Answer.backend as 'llm:<name>'

    def complete(self, messages: list[dict[str, str]]) -> str:
        """Chat messages ({'role', 'content'}) in, the assistant's text out. Raises LLMError."""
        ...
