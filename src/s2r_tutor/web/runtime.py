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

import logging
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import anyio

from ..models import Answer, Hit, Turn
from ..settings import Settings
from ..tutor import Tutor

T = TypeVar("T")
log = logging.getLogger("s2r_tutor.web")
LOG_PAUSE_S = 30


class Runtime:
    def __init__(self, settings: Settings, tutor: Tutor):
        self.settings = settings
        self.tutor = tutor
        self._limiter: anyio.CapacityLimiter | None = None
        self._llm_limiter: anyio.CapacityLimiter | None = None
        self._question_log = None
        self._log_paused_until = 0.0

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

    async def ask(self, question: str, history: list[Turn] | None = None, *, source: str = "api",
                  reader: str | None = None) -> Answer:
        started = time.perf_counter()
        draft = await self.call(self.tutor.prepare_answer, question, history or [])
        if draft.request is None:
            answer = draft.answer
        else:  # the LLM's network wait holds no CPU slot (issue 13, finding 7)
            reply = await anyio.to_thread.run_sync(self.tutor.llm_reply, draft, limiter=self.llm_limiter)
            answer = await self.call(self.tutor.finish_answer, draft, reply)
        await self.log_question(answer, time.perf_counter() - started, source=source, reader=reader)
        return answer

    async def log_question(self, answer: Answer, latency_s: float, *, source: str, reader: str | None = None) -> None:
        """Record one answered ask in the question log (`question_log`, on by default). A database
        problem is logged and never fails the answer. Runs off the event loop but outside the CPU
        pool: it waits on the database, not on a core. `source` "warmup" is the server's own."""
        if not self.settings.question_log or source == "warmup" or time.monotonic() < self._log_paused_until:
            return
        try:
            if self._question_log is None:
                from ..store import open_store
                from ..store.questions import QuestionLog

                store = await anyio.to_thread.run_sync(open_store, self.settings)
                self._question_log = QuestionLog(store, self.settings.question_log_days)
            await anyio.to_thread.run_sync(partial(self._question_log.record, answer, latency_s,
                                                   source=source, reader=reader))
        except Exception as exc:  # noqa: BLE001 - the reader still gets the answer
            # A store that is down would add its connect timeout to every answer: pause the log a while.
            self._log_paused_until = time.monotonic() + LOG_PAUSE_S
            log.warning("question log: could not record an ask (pausing the log for %d s): %s", LOG_PAUSE_S, exc)

    async def search(self, query: str, k: int) -> list[Hit]:
        return await self.call(self.tutor.search, query, k)
