"""`web_processes` (`serve --processes N`, #15): asks and searches answered in worker processes give
the same answers as the server's own threads, and a bad question fails the same way."""

from __future__ import annotations

import anyio
import pytest

from s2r_tutor.errors import QueryError
from s2r_tutor.models import Answer
from s2r_tutor.web.runtime import Runtime


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
