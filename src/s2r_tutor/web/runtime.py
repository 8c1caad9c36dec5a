"""The one shared Tutor and the bounded worker pool every web call goes through.

Tutor calls are CPU-bound and synchronous. The HTTP routes and the chat handlers both await
`Runtime.call`, so at most `Settings.web_concurrency` of them run at once (in worker threads,
off the event loop) whatever mix of API and chat traffic arrives; the rest wait their turn.

An answer that asks the optional LLM is run in three steps: the CPU work before (retrieve, compose,
verify) and after (verify the reply) each take a CPU slot; the wait for the LLM in between does not.
It runs in threads of its own, at most `Settings.llm_concurrency` at once, so a slow or hanging LLM
never stalls search or template answers (issue 13, finding 7).

With `Settings.web_processes` N > 0 (`serve --processes N`), the CPU slots' asks and searches run in N
worker processes instead of this process's threads (#15): an answer is Python-bound, so threads of
one process share one core's worth of GIL (measured: 2 threads answer no faster than 1). Everything
else stays in this one process: HTTP, every guard and rate limit, Gradio's sessions and queue, the
study tabs. Each worker loads its own Tutor (memory and start-up × N+1) and keeps its own query-vector
memory; the store (question log, notes) is written by this process only.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import TypeVar

import anyio

from ..errors import WorkerError
from ..models import Answer, Hit, Turn
from ..settings import Settings
from ..tutor import Tutor

T = TypeVar("T")
log = logging.getLogger("s2r_tutor.web")
LOG_PAUSE_S = 30

# --------------------------------------------------------------------------- worker processes (#15)
_worker_tutor: Tutor | None = None


def _exit_with_parent(parent: int) -> None:
    """A worker outlives a server that was killed (SIGKILL, or a shutdown that timed out): its task
    pipe never closes, since a spawned worker holds both ends. Leave when the parent is gone."""
    import os

    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _worker_init(settings: Settings) -> None:
    import os
    import threading

    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="s2r-parent-watch", daemon=True).start()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    global _worker_tutor
    _worker_tutor = Tutor.load(settings, progress=False)
    _worker_tutor.prepare()


def _worker_prepare(question: str, history: list[Turn]):
    """A template answer (the Answer), or the whole draft when an LLM request must be awaited."""
    draft = _worker_tutor.prepare_answer(question, history)
    return draft.answer if draft.request is None else draft


def _worker_search(query: str, k: int) -> list[Hit]:
    return _worker_tutor.search(query, k)


class Runtime:
    def __init__(self, settings: Settings, tutor: Tutor):
        self.settings = settings
        self.tutor = tutor
        self._limiter: anyio.CapacityLimiter | None = None
        self._llm_limiter: anyio.CapacityLimiter | None = None
        self._question_log = None
        self._log_paused_until = 0.0
        self._log_waiting = 0
        self._log_limiter: anyio.CapacityLimiter | None = None
        self.log_dropped = 0  # rows not written because `question_log_backlog` were already waiting
        self._pool: ProcessPoolExecutor | None = None
        self.worker_failures = 0  # worker pools replaced (a worker stalled past worker_timeout_s, or died)
        self._failing = False  # the last worker call failed and none has succeeded since
        self._probing: asyncio.Lock | None = None

    def _processes(self) -> ProcessPoolExecutor | None:
        """The worker processes, started on first use (spawned: this process runs threads already)."""
        if self.settings.web_processes and self._pool is None:
            self._pool = ProcessPoolExecutor(self.settings.web_processes, multiprocessing.get_context("spawn"),
                                             initializer=_worker_init, initargs=(self.settings,))
            # A spawned pool starts a worker per submit while none is idle: one small job each starts
            # (and warms) them all now, beside the server's warm-up question, not on readers' first asks.
            for _ in range(self.settings.web_processes):
                self._pool.submit(_worker_search, "Sim2Real", 1)
        return self._pool

    async def _in_process(self, fn: Callable[..., T], *args, timeout_s: float | None = None,
                          slot_wait_s: float | None = None) -> T:
        """`fn(*args)` in a worker process, holding a CPU slot like `call`. A pool found broken when the
        job is handed over never ran it: the job goes to a fresh pool once. A worker that dies during
        the job, or takes longer than `worker_timeout_s` (stopped, swapping, stuck in C), fails this
        call with a `WorkerError` (a 503, a message in the chat) and the workers are replaced, so one
        stall cannot hold every later ask. `slot_wait_s`: how long to wait for a free slot (None: as
        long as it takes, like every ask); past it, a `WorkerError` without touching the workers."""
        timeout_s = timeout_s or self.settings.worker_timeout_s
        try:
            with anyio.fail_after(slot_wait_s):
                await self.limiter.acquire()
        except TimeoutError:
            raise WorkerError(f"no answer slot was free within {slot_wait_s:g} s") from None
        try:
            for attempt in (1, 2):
                pool = self._processes()
                try:
                    future = pool.submit(fn, *args)
                except BrokenProcessPool:
                    self._replace(pool, "an answer worker process had died")
                    if attempt == 2:
                        raise WorkerError("the answer workers could not be started") from None
                    continue
                try:
                    result = await asyncio.wait_for(asyncio.wrap_future(future), timeout_s)
                    self._failing = False
                    return result
                except BrokenProcessPool:
                    self._replace(pool, "an answer worker process died during a call")
                    raise WorkerError("an answer worker process died during the call") from None
                except asyncio.TimeoutError:
                    self._replace(pool, f"an answer worker took over {timeout_s:g} s", kill=True)
                    raise WorkerError(f"an answer worker took over {timeout_s:g} s") from None
        finally:
            self.limiter.release()
        raise AssertionError("unreachable")

    def _replace(self, pool: ProcessPoolExecutor, why: str, kill: bool = False) -> None:
        """Drop `pool`; the next call starts fresh workers. `kill`: its workers may still be running."""
        log.error("%s; starting new ones", why)
        self.worker_failures += 1
        self._failing = True
        if self._pool is pool:
            self._pool = None
        if kill:  # a stalled worker never reads its queue again: shutdown alone would leave it
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    async def workers_ok(self) -> bool:
        """Whether asks can be answered now, for /healthz. Threads: always. Worker processes: unless the
        last worker call failed and none has succeeded since; then one small probe job decides (one at a
        time, `health_probe_s` at most for a free slot and as much again for the answer), so a proxy
        takes a replica whose workers stall out of rotation and puts it back once fresh workers answer
        (before: /healthz said ok while every ask waited). The slot wait is bounded too: with every slot
        held by asks waiting on stalled workers, an unbounded probe hung the health check itself."""
        if not self.settings.web_processes or not self._failing:
            return True
        if self._probing is None:
            self._probing = asyncio.Lock()
        if self._probing.locked():  # a probe is under way: report what is known, do not queue behind it
            return False
        async with self._probing:
            try:
                await self._in_process(_worker_search, "Sim2Real", 1, timeout_s=self.settings.health_probe_s,
                                       slot_wait_s=self.settings.health_probe_s)
            except WorkerError:
                return False
        return True

    @property
    def busy(self) -> int:
        """CPU slots (`web_concurrency`) in use now."""
        return int(self.limiter.borrowed_tokens)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

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
                  reader: str | None = None, background=None) -> Answer:
        """The answer, logged in the question log. `background` (Starlette's BackgroundTasks of the
        request): the log row is written after the reply is sent, not before. A SQLite commit waits
        ~20 ms on this box's disk (1-2 ms of it CPU), which one API client paid on every ask (#15)."""
        started = time.perf_counter()
        if self.settings.web_processes:
            draft = await self._in_process(_worker_prepare, question, self.tutor.clean_history(history or []))
        else:
            draft = await self.call(self.tutor.prepare_answer, question, history or [])
        if isinstance(draft, Answer):  # from a worker process: the template answer itself
            answer = draft
        elif draft.request is None:
            answer = draft.answer
        else:  # the LLM's network wait holds no CPU slot (issue 13, finding 7)
            reply = await anyio.to_thread.run_sync(self.tutor.llm_reply, draft, limiter=self.llm_limiter)
            answer = await self.call(self.tutor.finish_answer, draft, reply)
        latency = time.perf_counter() - started
        if background is not None:
            background.add_task(self.log_question, answer, latency, source=source, reader=reader)
        else:
            await self.log_question(answer, latency, source=source, reader=reader)
        return answer

    async def log_question(self, answer: Answer, latency_s: float, *, source: str, reader: str | None = None) -> None:
        """Record one answered ask in the question log (`question_log`, on by default). A database
        problem is logged and never fails the answer. Runs off the event loop but outside the CPU
        pool: it waits on the database, not on a core. `source` "warmup" is the server's own."""
        if not self.settings.question_log or source == "warmup" or time.monotonic() < self._log_paused_until:
            return
        if self._log_waiting >= self.settings.question_log_backlog:
            # an ask flood: every waiting write holds a thread and the database lock grows a queue until a
            # write times out (5 s) and pauses the whole log for everyone; drop this one row instead
            self.log_dropped += 1
            if self.log_dropped in (1, 10, 100) or self.log_dropped % 1000 == 0:
                log.warning("question log: %d rows dropped so far (more than %d waiting to be written)",
                            self.log_dropped, self.settings.question_log_backlog)
            return
        self._log_waiting += 1
        try:
            if self._question_log is None:
                from ..store import open_store
                from ..store.questions import QuestionLog

                store = await anyio.to_thread.run_sync(open_store, self.settings)
                self._question_log = QuestionLog(store, self.settings.question_log_days)
            if self._log_limiter is None:  # created inside the server's event loop
                self._log_limiter = anyio.CapacityLimiter(2)
            # two writer threads at most: the rest wait here (no thread held), not on the database's lock,
            # and the default thread pool stays free for notes, progress and Gradio's handlers
            await anyio.to_thread.run_sync(partial(self._question_log.record, answer, latency_s,
                                                   source=source, reader=reader), limiter=self._log_limiter)
        except Exception as exc:  # noqa: BLE001 - the reader still gets the answer
            # A store that is down would add its connect timeout to every answer: pause the log a while.
            self._log_paused_until = time.monotonic() + LOG_PAUSE_S
            log.warning("question log: could not record an ask (pausing the log for %d s): %s", LOG_PAUSE_S, exc)
        finally:
            self._log_waiting -= 1

    async def search(self, query: str, k: int) -> list[Hit]:
        if self.settings.web_processes:
            return await self._in_process(_worker_search, query, k)
        return await self.call(self.tutor.search, query, k)
