"""Round 18: R101's remainder closed (R194). A chat event whose radio or dropdown value is outside that
component's choices got a clean error from Gradio, and Gradio printed the error's traceback to stderr
(`traceback.print_exc` in `gradio/queueing.py`, outside `logging` and its limit), one per crafted event.
The join guard now refuses such a value before Gradio sees it, against the choices of that session's own
component (the quiz's options are the question on screen); a value whose choices change after the join is
still refused by Gradio, without the traceback. Against the real app on a loopback server in this process,
so `capfd` sees what Gradio prints."""

from __future__ import annotations

import json

import httpx
import pytest

from reliability_support import CHOICE_TYPES, gradio_event

TRACEBACK = "Traceback (most recent call last)"
# what a crafted client might send instead of a choice: a made-up value, a choice's label rather than its
# value (the language radio shows 中文 and sends zh), a number, the empty string
OUTSIDE = ["not-one-of-the-choices", "中文", 12345, ""]


@pytest.fixture(scope="module")
def served(settings, tutor, tmp_path_factory):
    """(base URL, the app's gr.Blocks): the whole web app on loopback, as `base_url` serves it."""
    from s2r_tutor.web.server import build_app, running

    var = tmp_path_factory.mktemp("var-sec18")
    app = build_app(settings.model_copy(update={"feedback_file": var / "feedback.jsonl",
                                                "study_db": var / "study.sqlite3"}), tutor)
    with running(app) as url:
        yield url, app.state.blocks


def _body(fn_index: int, data: list, session: str) -> dict:
    return {"data": data, "fn_index": fn_index, "session_hash": session, "event_data": None, "trigger_id": None}


def _join(base: str, fn_index: int, data: list, session: str) -> httpx.Response:
    return httpx.post(base + "/gradio_api/queue/join", json=_body(fn_index, data, session), timeout=30)


def _run(base: str, fn_index: int, data: list, session: str) -> dict:
    """The event's `process_completed` message (it must complete)."""
    line = gradio_event(base, _body(fn_index, data, session))
    assert line is not None, (fn_index, data)
    return json.loads(line.removeprefix("data:"))


def _events(base: str):
    """(components by id, events by api_name, [(event, position, component)] for every choice input)."""
    config = httpx.get(base + "/config", timeout=30).json()
    components = {c["id"]: c for c in config["components"]}
    events = {d["api_name"]: d for d in config["dependencies"] if d.get("backend_fn")}
    choice_inputs = [(dep, pos, components[i]) for dep in events.values() for pos, i in enumerate(dep["inputs"])
                     if components[i]["type"] in CHOICE_TYPES]
    return components, events, choice_inputs


def _defaults(components: dict, dep: dict) -> list:
    return [components[i].get("props", {}).get("value") for i in dep["inputs"]]


def _position(components: dict, dep: dict, elem_id: str) -> int:
    return next(pos for pos, i in enumerate(dep["inputs"]) if components[i].get("props", {}).get("elem_id") == elem_id)


def test_a_value_outside_the_choices_is_refused_and_prints_no_traceback(served, capfd):
    """R194: every radio and dropdown input of every event, in turn given each OUTSIDE value: a 422 with
    one line naming the input, before Gradio queues the event, and not one traceback on stderr. Before:
    the join was accepted, the event ended in Gradio's own error, and each printed ~1 kB of traceback.
    The same events with a value among the choices still run."""
    base_url, _ = served
    components, events, choice_inputs = _events(base_url)
    assert {c["props"]["elem_id"] for _, _, c in choice_inputs} == {
        "study-quiz-lang", "study-quiz-choices", "study-flashcards-lang", "study-notes-lang",
        "study-notes-section", "study-notes-starter"}  # every choice component the page has is tried
    for n, (dep, pos, _) in enumerate(choice_inputs):
        for value in OUTSIDE:
            data = _defaults(components, dep)
            data[pos] = value
            r = _join(base_url, dep["id"], data, f"r194out{n}")
            assert r.status_code == 422, (dep["api_name"], pos, value, r.status_code)
            assert r.json() == {"detail": f"input {pos} of event {dep['id']} is not one of its choices "
                                          "(reload the page)"}
    for n, dep in enumerate({dep["id"]: dep for dep, _, _ in choice_inputs}.values()):
        data = _defaults(components, dep)
        for pos, i in enumerate(dep["inputs"]):
            choices = components[i].get("props", {}).get("choices")
            if choices and components[i]["type"] in CHOICE_TYPES:
                data[pos] = choices[-1][1]  # a real choice, not the default
        assert _run(base_url, dep["id"], data, f"r194ok{n}")["success"] is True, dep["api_name"]
    err = capfd.readouterr().err
    assert TRACEBACK not in err, err[-3000:]


def _options(base: str, nxt: dict, data: list, session: str) -> list[str]:
    """The options of the first question with options that `next_question` puts on the session's screen."""
    for _ in range(30):  # open questions have none
        output = _run(base, nxt["id"], data, session)["output"]["data"]
        update = next(o for o in output if isinstance(o, dict) and "choices" in o)
        if update["choices"]:
            return [value for _label, value in update["choices"]]
    raise AssertionError("30 questions and none with options")


def test_choices_are_the_sessions_own(served, capfd):
    """R194: the quiz's options are set per session (`next_question`, the language switch), and Gradio
    checks a value against that session's copy of the radio; so does the guard. An option on one reader's
    screen is accepted in that session and refused in another (the app's own radio has no options), and
    after that reader switches to English, the Chinese option is refused there too."""
    base_url, _ = served
    components, events, _ = _events(base_url)
    nxt, submit, switch = events["next_question"], events["submit_answer"], events["switch_language"]
    options = _options(base_url, nxt, _defaults(components, nxt), "r194a")  # in Chinese
    answer = _defaults(components, submit)
    answer[_position(components, submit, "study-quiz-choices")] = options[0]
    graded = _run(base_url, submit["id"], answer, "r194a")
    assert graded["success"] is True and "Next question" not in json.dumps(graded["output"]["data"])
    assert _join(base_url, submit["id"], answer, "r194b").status_code == 422  # not on this reader's screen
    english = _defaults(components, switch)
    english[_position(components, switch, "study-quiz-lang")] = "en"
    english[_position(components, switch, "study-quiz-choices")] = options[0]
    assert _run(base_url, switch["id"], english, "r194a")["success"] is True
    assert _join(base_url, submit["id"], answer, "r194a").status_code == 422  # its options are English now
    err = capfd.readouterr().err
    assert TRACEBACK not in err, err[-3000:]


def test_choices_changed_after_the_join_are_refused_without_a_traceback(served, capfd):
    """R194, what the join guard cannot see: a session's answers join while its option is on screen and
    wait in the queue (here held there; a client gets the same by joining many at once: 16 answers
    and the switch joined together, twice, printed 5 tracebacks past the join check), then its switch to English runs and changes the options. Gradio refuses each
    waiting answer when it runs, with its own clear error, and now prints no traceback for it."""
    base_url, blocks = served
    components, events, _ = _events(base_url)
    nxt, submit, switch = events["next_question"], events["submit_answer"], events["switch_language"]
    options = _options(base_url, nxt, _defaults(components, nxt), "r194c")
    answer = _defaults(components, submit)
    answer[_position(components, submit, "study-quiz-choices")] = options[0]
    english = _defaults(components, switch)
    english[_position(components, switch, "study-quiz-lang")] = "en"
    waiting = blocks._queue.event_queue_per_concurrency_id[blocks.fns[submit["id"]].concurrency_id]
    busy = waiting.concurrency_limit
    waiting.current_concurrency += busy  # every slot taken, as by other readers' answers: these wait
    completed = []
    try:
        assert [_join(base_url, submit["id"], answer, "r194c").status_code for _ in range(3)] == [200] * 3
        assert _join(base_url, switch["id"], english, "r194c").status_code == 200
        with httpx.stream("GET", base_url + "/gradio_api/queue/data", params={"session_hash": "r194c"},
                          timeout=60) as stream:
            for line in stream.iter_lines():
                if '"process_completed"' in line:
                    completed.append(json.loads(line.removeprefix("data:")))
                    if busy:  # the switch ran: let the answers run
                        waiting.current_concurrency -= busy
                        busy = 0
                    if len(completed) == 4:
                        break
    finally:
        waiting.current_concurrency -= busy
    switched, *answers = completed
    assert switched["success"] is True and "en" in switched["output"]["data"]
    for refused in answers:
        assert refused["success"] is False and "not in the list of choices" in refused["output"]["error"], refused
    err = capfd.readouterr().err
    assert TRACEBACK not in err, err[-3000:]
