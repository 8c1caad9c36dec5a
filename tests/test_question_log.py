"""The question log (every ask through Runtime, i.e. chat, widget and API) and `s2r-tutor insights`,
on SQLite and PostgreSQL, with the real tutor and the real embedder."""

from __future__ import annotations

import json
import time
from functools import partial

import anyio
import pytest

from s2r_tutor.cli import main
from s2r_tutor.errors import EvalCaseError
from s2r_tutor.evaluation.cases import parse_cases
from s2r_tutor.insights import build, parse_since
from s2r_tutor.store import open_store
from s2r_tutor.store import questions as ql
from s2r_tutor.web.feedback import Feedback, FeedbackLog
from s2r_tutor.web.runtime import Runtime

ASKS = [("什么是 Sim2Real？", "chat"), ("What is the reality gap?", "api"), ("今天天气怎么样？", "widget"),
        ("今天天气怎么样", "api"), ("明天天气如何？", "chat"), ("how to cook rice", "api"), ("什么是 Sim2Real", "api")]


@pytest.fixture(params=["sqlite", "postgresql"])
def logged(request, tmp_path, tutor):
    """Settings pointing at a fresh store, after the ASKS went through Runtime.ask."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    else:
        from pgserver import fresh_name

        url = request.getfixturevalue("postgres").create_database(fresh_name("qlog"))
    settings = tutor.settings.model_copy(update={"database_url": url})
    runtime = Runtime(settings, tutor)

    async def ask_all():
        for q, source in ASKS:
            await runtime.ask(q, source=source, reader="ann" if source == "chat" else None)
        await runtime.ask("warm", source="warmup")

    anyio.run(ask_all)
    return settings


def test_every_ask_is_logged_without_secrets(logged):
    rows = ql.rows(open_store(logged))
    assert [(r["question"], r["source"]) for r in rows] == ASKS  # the warm-up is not logged
    first = rows[0]
    assert first["language"] == "zh" and first["intent"] == "definition" and not first["refused"]
    assert first["top_score"] > 0 and first["sections"] and all("#" in s for s in first["sections"])
    assert first["latency_ms"] > 0 and first["backend"] == "template" and first["replica"]
    assert first["reader_hash"] and first["reader_hash"] != "ann" and rows[1]["reader_hash"] is None
    assert rows[2]["refused"] and rows[2]["sections"] == []
    assert "ann" not in json.dumps([r for r in rows], default=str)


def test_question_log_off_records_nothing(tmp_path, tutor):
    settings = tutor.settings.model_copy(update={"database_url": f"sqlite:///{tmp_path / 's.sqlite3'}",
                                                 "question_log": False})
    anyio.run(Runtime(settings, tutor).ask, "什么是 Sim2Real？")
    assert ql.rows(open_store(settings)) == []


def test_retention_purges_old_rows(logged):
    store = open_store(logged)
    row = {**ql.rows(store)[0]}
    row.pop("id")
    ql.add(store, {**row, "asked_at": time.time() - 100 * 86400, "question": "ancient"})
    assert ql.purge(store, 90) == 1
    assert "ancient" not in {r["question"] for r in ql.rows(store)}
    assert len(ql.rows(store)) == len(ASKS)


def test_insights_groups_refusals_and_counts_sections(logged):
    store = open_store(logged)
    FeedbackLog(store).append(Feedback(liked=False, question="什么是 Sim2Real？", answer="太笼统", intent="definition"))
    FeedbackLog(store).append(Feedback(liked=True, question="What is the reality gap?", answer="ok"))
    doc = build(store, logged)
    assert {"questions", "refused", "low_confidence", "disliked", "sections"} <= set(doc)
    assert doc["questions"][0] == {"question": "什么是 Sim2Real？", "count": 2, "language": "zh",
                                   "intent": "definition", "refused": False}
    weather = doc["refused"][0]
    assert weather["count"] == 3 and "天气" in weather["example"], doc["refused"]
    assert [g["count"] for g in doc["refused"]] == [3, 1]  # the cooking question is its own group
    assert doc["languages"] == {"zh": 5, "en": 2}
    assert [d["question"] for d in doc["disliked"]] == ["什么是 Sim2Real？"]
    assert doc["sections"] and sum(s["hits"] for s in doc["sections"]) >= 3
    assert all(sum(s["by_day"].values()) == s["hits"] for s in doc["sections"])
    assert sum(d["refused"] for d in doc["days"]) == 4
    assert build(store, logged, since_s=1e-9, now=time.time() + 10)["total"] == 0


def test_insights_cli_json_and_export_cases(logged, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("S2R_DATABASE_URL", logged.database_url)
    assert main(["insights", "--since", "7d", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["total"] == len(ASKS) and doc["refused"]
    assert main(["insights"]) == 0 and "Refused (grouped by similarity)" in capsys.readouterr().out
    assert main(["insights", "--since", "soon"]) == 1 and "--since" in capsys.readouterr().err

    assert main(["insights", "export-cases", "--refused"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3  # the two spellings of the weather question are one case
    cases = parse_cases(lines, "refused.jsonl")  # as exported: valid "keep refusing" cases
    assert all(c.out_of_scope and c.expected_sections == [] for c in cases)

    FeedbackLog(open_store(logged)).append(Feedback(liked=False, question="域随机化怎么调？", answer="x", intent="methods"))
    assert main(["insights", "export-cases", "--disliked"]) == 0
    line = capsys.readouterr().out.strip()
    with pytest.raises(EvalCaseError, match="expected section"):
        parse_cases([line], "disliked.jsonl")  # a template until a person labels it
    labelled = {**json.loads(line), "expected_sections": ["04-08#methods"]}
    assert parse_cases([json.dumps(labelled, ensure_ascii=False)], "new.jsonl")[0].question == "域随机化怎么调？"
    assert main(["insights", "export-cases"]) == 2


def test_parse_since():
    assert parse_since("7d") == 7 * 86400 and parse_since("30m") == 1800 and parse_since("2w") == 14 * 86400


def test_a_failing_question_log_never_fails_the_answer(tutor, caplog):
    """R155: the store is unreachable: the reader still gets the answer, and a warning is logged."""
    settings = tutor.settings.model_copy(update={"database_url": "postgresql+psycopg://x:pw@127.0.0.1:9/none"})
    with caplog.at_level("WARNING", logger="s2r_tutor.web"):
        answer = anyio.run(Runtime(settings, tutor).ask, "什么是 Sim2Real？")
    assert answer.citations and "question log" in caplog.text and ":pw@" not in caplog.text


def test_api_and_widget_asks_are_told_apart(tmp_path, tutor):
    """The widget (/embed) calls /api/ask too: its page, the referrer, marks its rows as 'widget'."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from s2r_tutor.web.api import install_api

    settings = tutor.settings.model_copy(update={"database_url": f"sqlite:///{tmp_path / 's.sqlite3'}"})
    app = FastAPI()
    install_api(app, settings)
    app.state.runtime = Runtime(settings, tutor)
    with TestClient(app) as client:
        assert client.post("/api/ask", json={"question": "什么是 Sim2Real？"}).status_code == 200
        assert client.post("/api/ask", json={"question": "What is Sim2Real?"},
                           headers={"Referer": "http://127.0.0.1:7860/embed?lang=en",
                                    "X-Forwarded-For": "10.1.2.3"}).status_code == 200
    rows = ql.rows(open_store(settings))
    assert [r["source"] for r in rows] == ["api", "widget"]
    assert "10.1.2.3" not in json.dumps(rows, default=str) and "testclient" not in json.dumps(rows, default=str)


@pytest.mark.reliability("R165")
def test_an_ask_flood_drops_rows_past_the_backlog_instead_of_pausing_the_log(tmp_path, tutor):
    """R165: 60 answers logged at once with a backlog of 8: the rows past it are dropped and counted,
    the rest are written, and the log is not paused (before: the waiting writes queued on SQLite's
    lock until one timed out, which paused the log for everyone for 30 s; a second burst lost 875
    of 2,778 rows)."""
    settings = tutor.settings.model_copy(update={"database_url": f"sqlite:///{tmp_path / 's.sqlite3'}",
                                                 "question_log_backlog": 8})
    runtime = Runtime(settings, tutor)
    answer = tutor.ask("什么是 Sim2Real？")

    async def burst():
        async with anyio.create_task_group() as tg:
            for _ in range(60):
                tg.start_soon(partial(runtime.log_question, answer, 0.01, source="api"))

    anyio.run(burst)
    written = len(ql.rows(open_store(settings)))
    assert runtime.log_dropped > 0 and written + runtime.log_dropped == 60 and written >= 8
    assert runtime._log_paused_until == 0.0  # nothing timed out
    anyio.run(partial(runtime.log_question, answer, 0.01, source="api"))  # and the next ask is logged
    assert len(ql.rows(open_store(settings))) == written + 1
