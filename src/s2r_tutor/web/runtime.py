"""The one shared Tutor and the bounded worker pool every web call goes through.

Tutor calls are CPU-bound and synchronous. The HTTP routes and the chat handlers both await
`Runtime.call`, so at most `Settings.web_concurrency` of them run at once (in worker threads,
off the event loop) whatever mix of API and chat traffic arrives; the rest wait their turn.
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

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        # Created on first use, inside the server's event loop.
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.settings.web_concurrency)
        return self._limiter

    async def call(self, fn: Callable[..., T], *args, **kwargs) -> T:
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs), limiter=self.limiter)

    async def ask(self, question: str, history: list[Turn] | None = None) -> Answer:
        return await self.call(self.tutor.ask, question, history or [])

    async def search(self, query: str, k: int) -> list[Hit]:
        return await self.call(self.tutor.search, query, k)
