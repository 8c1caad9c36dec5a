"""`web_processes` (`serve --processes N`, #15): asks and searches answered in worker processes give
the same answers as the server's own threads, and a bad question fails the same way."""

from __future__ import annotations

import anyio
import pytest

from s2r_tutor.errors import QueryError
from s2r_tutor.models import Answer
from s2r_tutor.web.runtime import Runtime


@pytest.mark.reliability("R161")
def test_worker_processes_answer_like_the_server_threads(settings, tutor):
    threads = Runtime(settings, tutor)
    procs = Runtime(settings.model_copy(update={"web_processes": 1, "question_log": False}), tutor)

    async def both():
        here = await threads.ask("什么是 Sim2Real？", source="warmup")
        there = await procs.ask("什么是 Sim2Real？", source="warmup")
        hits = await procs.search("域随机化", 3)
        with pytest.raises(QueryError):
            await procs.search("   ", 3)
        return here, there, hits

    try:
        here, there, hits = anyio.run(both)
    finally:
        procs.close()
    assert isinstance(there, Answer)
    assert there.answer == here.answer and [c.chunk_id for c in there.citations] == [c.chunk_id for c in here.citations]
    assert hits and hits[0].chunk_id == tutor.search("域随机化", 3)[0].chunk_id


def test_serve_refuses_a_process_count_out_of_range(cli):
    code, _, err = cli("serve", "--processes", "99")
    assert code == 2 and "--processes must be between 0 and 32" in err and "Traceback" not in err


@pytest.mark.reliability("R161")
def test_worker_processes_leave_with_a_killed_server(settings, tmp_path):
    """A server killed outright (SIGKILL: no atexit, no pool shutdown) leaves no worker behind."""
    import os
    import signal
    import subprocess
    import sys
    import time

    psutil = pytest.importorskip("psutil")
    code = ("import anyio; from s2r_tutor.settings import Settings; from s2r_tutor.tutor import Tutor; "
            "from s2r_tutor.web.runtime import Runtime; import time, sys; "
            f"s = Settings(corpus_dir={str(settings.corpus_dir)!r}, index_dir={str(settings.index_dir)!r}, "
            f"study_db={str(tmp_path / 's.sqlite3')!r}, web_processes=1, question_log=False); "
            "r = Runtime(s, Tutor.load(s, progress=False)); anyio.run(r.search, 'Sim2Real', 1); "
            "print('ready', flush=True); time.sleep(600)")
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "OMP_NUM_THREADS": "1"})
    try:
        assert server.stdout.readline().strip() == "ready"
        workers = psutil.Process(server.pid).children(recursive=True)
        assert workers
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
        server.stdout.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers):
        time.sleep(0.5)
    alive = [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    for pid in alive:  # never leave one behind, even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"worker processes outlived their server: {alive}"


@pytest.mark.reliability("R163")
def test_a_stalled_or_killed_worker_is_replaced(settings, tutor):
    """A worker stopped mid-life (SIGSTOP: swapping, stuck in C) fails its call with a WorkerError
    after `worker_timeout_s` and is replaced, so the next ask is answered (before: every ask waited
    for ever while /healthz said ok). A worker killed while idle costs no reader an error: the job
    goes to a fresh pool (before: a 500 with a BrokenProcessPool traceback)."""
    import os
    import signal
    import time

    from s2r_tutor.errors import WorkerError

    psutil = pytest.importorskip("psutil")
    # A worker's start-up (its Tutor load) counts against the limit too, and on a busy 2-core box it can
    # take longer than a short limit: start and restart under a generous one, stall under a short one.
    slow = settings.model_copy(update={"web_processes": 1, "question_log": False, "worker_timeout_s": 120.0})
    rt = Runtime(slow, tutor)

    def workers() -> list[int]:
        return [p.pid for p in psutil.Process().children() if "spawn_main" in " ".join(p.cmdline())]

    try:
        anyio.run(rt.search, "Sim2Real", 1)
        (stalled,) = workers()
        rt.settings = slow.model_copy(update={"worker_timeout_s": 3.0})
        os.kill(stalled, signal.SIGSTOP)
        t0 = time.monotonic()
        with pytest.raises(WorkerError):
            anyio.run(rt.search, "域随机化", 1)
        assert time.monotonic() - t0 < 10
        rt.settings = slow
        assert anyio.run(rt.search, "域随机化", 1)  # a fresh worker answers
        assert not psutil.pid_exists(stalled) or psutil.Process(stalled).status() == psutil.STATUS_ZOMBIE
        (idle,) = workers()
        os.kill(idle, signal.SIGKILL)
        time.sleep(1.0)
        assert anyio.run(rt.search, "系统辨识", 1)  # handed to a fresh pool, no error
    finally:
        rt.close()


@pytest.mark.reliability("R167")
def test_health_reports_failing_workers_until_fresh_ones_answer(settings, tutor):
    """R167: /healthz's answer (`Runtime.workers_ok`) after a worker stall: not ok while the fresh workers
    cannot answer either (a proxy takes the replica out), ok again once a probe job is answered; the
    failure is counted. Before, /healthz said ok while every ask waited on a stopped worker."""
    import os
    import signal

    from s2r_tutor.errors import WorkerError
    from s2r_tutor.web.runtime import _worker_search

    psutil = pytest.importorskip("psutil")
    slow = settings.model_copy(update={"web_processes": 1, "question_log": False, "worker_timeout_s": 120.0,
                                       "health_probe_s": 60.0})
    fast = slow.model_copy(update={"worker_timeout_s": 2.0, "health_probe_s": 2.0})
    rt = Runtime(slow, tutor)

    def ready_worker() -> int:
        """The pool's worker once it has loaded its Tutor (a job sent around `_in_process`, so it proves nothing)."""
        rt._processes().submit(_worker_search, "Sim2Real", 1).result(timeout=120)
        (pid,) = [p.pid for p in psutil.Process().children() if "spawn_main" in " ".join(p.cmdline())]
        return pid

    async def scenario() -> tuple[bool, bool, bool, int]:
        healthy = await rt.workers_ok()
        rt.settings = fast  # start-up on this busy box can take longer than the short limits; a stall cannot
        os.kill(ready_worker(), signal.SIGSTOP)
        with pytest.raises(WorkerError):
            await rt.search("域随机化", 1)
        os.kill(ready_worker(), signal.SIGSTOP)  # the fresh pool stalls too
        failing = await rt.workers_ok()
        rt.settings = slow
        recovered = await rt.workers_ok()  # the probe meets a third, healthy pool
        return healthy, failing, recovered, rt.worker_failures

    try:
        anyio.run(rt.search, "Sim2Real", 1)
        healthy, failing, recovered, failures = anyio.run(scenario)
    finally:
        rt.close()
    assert healthy and failing is False and recovered is True and failures == 2


@pytest.mark.reliability("R169")
def test_health_probe_does_not_wait_for_a_slot_held_by_stalled_asks(settings, tutor):
    """R169: after a worker failure, every CPU slot held (asks waiting on stalled workers): the health
    probe gives up on a slot after `health_probe_s` and reports degraded. Before, it queued for a slot
    with no bound, so /healthz itself hung and a proxy's check timed out instead of reading a 503."""
    import time

    from s2r_tutor.web.runtime import _worker_search

    rt = Runtime(settings.model_copy(update={"web_processes": 1, "web_concurrency": 1, "question_log": False,
                                             "health_probe_s": 0.5}), tutor)

    async def scenario() -> tuple[bool | None, float, bool]:
        assert await rt.workers_ok()  # nothing has failed: no probe at all
        rt._failing = True  # as after a stalled worker was replaced
        taken, done = anyio.Event(), anyio.Event()

        async def stalled_ask() -> None:  # holds the one slot, as an ask waiting on a stalled worker does
            async with rt.limiter:
                taken.set()
                await done.wait()

        async with anyio.create_task_group() as tg:
            tg.start_soon(stalled_ask)
            await taken.wait()
            started = time.perf_counter()
            held = None  # stays None if the probe still waits at 10 s (the slot is freed only after it)
            with anyio.move_on_after(10):
                held = await rt.workers_ok()
            waited = time.perf_counter() - started
            done.set()
        freed = await rt.workers_ok()  # a slot is free now: the probe job runs and is answered
        return held, waited, freed

    try:
        rt._processes().submit(_worker_search, "Sim2Real", 1).result(timeout=120)  # workers loaded first
        held, waited, freed = anyio.run(scenario)
    finally:
        rt.close()
    assert held is False and waited < 5 and freed is True
    assert rt.worker_failures == 0  # a busy replica is not a broken one: no workers were replaced
