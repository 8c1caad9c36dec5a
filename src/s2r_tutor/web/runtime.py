"""The one shared Tutor and the bounded worker pool every web call goes through.

Tutor calls are CPU-bound and synchronous. The HTTP routes and the chat handlers both await
`Runtime.call`, so at most `Settings.web_concurrency` of them run at once (in worker threads,
off the event loop) whatever mix of API and chat traffic arrives; the rest wait their turn.

An answer that asks the optional LLM is run in three steps: the CPU work before (retrieve, compose,
verify) and after (verify the reply) each take a CPU slot; the wait for the LLM in between does not.
It runs in threads of its own, at most `Settings.llm_concurrency` at once, so a slow or hanging LLM
never stalls search or template answers (issue 13, finding 7).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar

import anyio

from ..models import Answer, Hit, Turn
from ..settings import Settings
from ..tutor import Tutor

T = TypeVar("T")


class Runtime:
    def __init__(self, settings: Settings, tutor: Tutor):
        self.settings = settings
        self.tutor = tutor
        self._limiter: anyio.CapacityLimiter | None = None
        self._llm_limiter: anyio.CapacityLimiter | None = None

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        # Created on first use, inside the server's event loop.
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.settings.web_concurrency)
        return self._limiter

    @property
    def llm_limiter(self) -> anyio.CapacityLimiter:
        if self._llm_limiter is None:
            self._llm_limiter = anyio.CapacityLimiter(self.settings.llm_concurrency)
        return self._llm_limiter

    async def call(self, fn: Callable[..., T], *args, **kwargs) -> T:
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs), limiter=self.limiter)

    async def ask(self, question: str, history: list[Turn] | None = None) -> Answer:
        draft = await self.call(self.tutor.prepare_answer, question, history or [])
        if draft.request is None:
            return draft.answer
        reply = await anyio.to_thread.run_sync(self.tutor.llm_reply, draft, limiter=self.llm_limiter)
        return await self.call(self.tutor.finish_answer, draft, reply)

    async def search(self, query: str, k: int) -> list[Hit]:
        return await self.call(self.tutor.search, query, k)
