"""Crafted Gradio queue events against the real app on a loopback server (R101): every event of the
chat and study tabs, each input in turn replaced by a value the page would never send. Gradio
rejects some itself (a radio value outside its choices); the rest reach our handlers, which must
answer, never raise. Case ids are catalogued in docs/reliability.md."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from reliability_support import CHOICE_TYPES
from reliability_support import gradio_event as completed

GARBAGE = [None, "x", 12345, {"k": "v"}]



def test_crafted_event_values_never_crash_our_handlers(base_url, capfd):
    """R101: a value of the wrong kind in any input of any event: the event completes (an answer
    or Gradio's own validation error), or its join is refused when it is a radio or dropdown value
    outside the choices (R194), and nothing prints a traceback: neither s2r_tutor's code nor, since
    R194, Gradio's refusal of a value."""
    config = httpx.get(base_url + "/config", timeout=30).json()
    components = {c["id"]: c for c in config["components"]}
    events = [d for d in config["dependencies"] if d.get("backend_fn")]
    assert {"respond", "next_question", "submit_answer"} <= {d.get("api_name") for d in events}
    crafted = []
    for dep in events:
        defaults = [components[i].get("props", {}).get("value") for i in dep["inputs"]]
        for pos, input_id in enumerate(dep["inputs"]):
            if components[input_id].get("type") == "state":
                continue  # Gradio reads a gr.State from the session, never from the event's data
            for value in GARBAGE:
                data = list(defaults)
                data[pos] = value
                crafted.append((dep, pos, value, data))
    assert len(crafted) >= 60

    def send(n: int) -> str | None:
        dep, _, _, data = crafted[n]
        return completed(base_url, {"data": data, "fn_index": dep["id"], "session_hash": f"crafted{n}",
                                    "event_data": None, "trigger_id": None})

    # A few events in flight at once (each in its own session), as several pages would send them:
    # the queue still runs `web_concurrency` at a time, but no event waits on another's round trips.
    with ThreadPoolExecutor(max_workers=4) as pool:
        messages = list(pool.map(send, range(len(crafted))))
    for (dep, pos, value, _), msg in zip(crafted, messages):
        refused = value is not None and components[dep["inputs"][pos]].get("type") in CHOICE_TYPES  # R194
        assert (msg is None) == refused, (dep.get("api_name"), pos, value)
    err = capfd.readouterr().err
    assert "Traceback (most recent call last)" not in err, err[-3000:]  # ours, or Gradio's (R194)
