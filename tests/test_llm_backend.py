"""The optional LLM answerer against servers speaking /v1/chat/completions: a faithful one, one that
invents citations, one with malformed JSON, one that errors, one that hangs, and a port nobody
listens on. Every failure must give the template answer, quickly.

Replies are served through httpx.MockTransport (the real client, request and response handling,
no socket); the hanging server is a real loopback one, since the deadline is a property of the
network path, and so is the closed port."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import httpx
import pytest

from s2r_tutor.answer import Answerer, get_llm
from s2r_tutor.answer.llm import OpenAICompatLLM
from s2r_tutor.errors import LLMError
from s2r_tutor.settings import LLMSettings

SOURCE = re.compile(r"^\[(\d+)\] \((\S+) · [^\n]*\)\n(.*?)(?=\n\n\[\d+\] \(|\Z)", re.S | re.M)


def faithful_reply(system: str) -> str:
    """Quote the first sentence of the first two sources verbatim, as the prompt asks."""
    lines = ["Here is what the card says:"]
    for n, _, text in SOURCE.findall(system)[:2]:
        first = re.split(r"(?<=[。！？；])", text.strip().lstrip("-* ").split("\n")[0])[0]
        lines.append(f"- 「{first}」 [{n}]")
    return "\n".join(lines)


BEHAVIOURS = {
    "good": lambda system: (200, {"choices": [{"message": {"role": "assistant", "content": faithful_reply(system)}}]}),
    "invent": lambda system: (200, {"choices": [{"message": {"role": "assistant", "content":
                                   "- 「Sim2Real 由 NASA 于 1990 年发明」 [1]\n- 真机训练永远比仿真便宜 [9]"}}]}),
    "uncited": lambda system: (200, {"choices": [{"message": {"role": "assistant", "content":
                                    "Sim2Real is a fruit grown in the mountains."}}]}),
    "no_answer": lambda system: (200, {"choices": [{"message": {"role": "assistant", "content": "NO_ANSWER"}}]}),
    "error": lambda system: (500, {"error": {"message": "boom"}}),
}


class Handler(BaseHTTPRequestHandler):
    """The real loopback server: it reads the request and never answers in time."""

    def log_message(self, *args):  # keep test output clean
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        time.sleep(5)


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def answerer_for(tutor, base_url: str, timeout_s: float = 2.0, transport: httpx.BaseTransport | None = None) -> Answerer:
    llm = LLMSettings(base_url=base_url, model="fake-model", api_key="sk-test", timeout_s=timeout_s)
    settings = tutor.settings.model_copy(update={"llm": llm})
    client = OpenAICompatLLM(llm, transport=transport) if transport else None
    return Answerer(SimpleNamespace(settings=settings, retriever=tutor.retriever, chunks=tutor.chunks,
                                    embedder=tutor.embedder, index=tutor.index), llm=client)


def mocked(tutor, mode: str) -> tuple[Answerer, list[dict]]:
    """An answerer whose LLM replies as `mode` through httpx.MockTransport; and the requests it got."""
    seen: list[dict] = []

    def reply(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append({"path": request.url.path, "auth": request.headers.get("Authorization"), "body": body})
        if mode == "malformed":
            return httpx.Response(200, content=b'{"choices": [ this is not json')
        if mode == "huge":
            return httpx.Response(200, json={"choices": [{"message": {"content": "x" * 300_000}}]})
        status, doc = BEHAVIOURS[mode](body["messages"][0]["content"])
        return httpx.Response(status, content=json.dumps(doc, ensure_ascii=False).encode(),
                              headers={"Content-Type": "application/json"})

    return answerer_for(tutor, "http://llm.test/v1", transport=httpx.MockTransport(reply)), seen


def ask(answerer: Answerer, question: str):
    t0 = time.perf_counter()
    answer = answerer.answer(question, [])
    return answer, time.perf_counter() - t0


@pytest.mark.parametrize("question", ["什么是 Sim2Real？", "Why is Sim2Real hard?"])
def test_good_llm_answer_is_used_and_verified(tutor, question):
    answerer, seen = mocked(tutor, "good")
    answer, _ = ask(answerer, question)
    assert answer.backend == "llm:fake-model"
    assert answer.citations and all(c.quote in c.text for c in answer.citations)
    assert "「" in answer.answer and "[1]" in answer.answer
    req = seen[-1]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "fake-model"
    assert "[1] (04-08#" in req["body"]["messages"][0]["content"]  # numbered retrieved chunks
    assert req["body"]["messages"][1]["content"] == question


@pytest.mark.parametrize("mode", ["invent", "uncited", "no_answer", "malformed", "error", "huge"])
def test_bad_replies_fall_back_to_the_template(tutor, mode):
    template = tutor.ask("什么是 Sim2Real？")
    answer, _ = ask(mocked(tutor, mode)[0], "什么是 Sim2Real？")
    assert answer.backend == "template"
    assert answer.answer == template.answer
    assert "NASA" not in answer.answer


def test_hanging_server_times_out_to_the_template(tutor, server):
    answer, took = ask(answerer_for(tutor, server, timeout_s=0.5), "为什么 Sim2Real 很难？")
    assert answer.backend == "template" and answer.intent == "why_hard"
    assert took < 3.0


def test_connection_refused_falls_back(tutor):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens there
    answer, took = ask(answerer_for(tutor, f"http://127.0.0.1:{port}/v1"), "什么是 Sim2Real？")
    assert answer.backend == "template" and took < 3.0


def test_refusals_never_reach_the_llm(tutor):
    answerer, seen = mocked(tutor, "good")
    answer, _ = ask(answerer, "what is the capital of France")
    assert answer.refused and seen == []


def test_registry_raises_on_unknown_backend_and_is_off_by_default():
    assert get_llm(LLMSettings()) is None
    with pytest.raises(LLMError, match="openai"):
        get_llm(LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", backend="nope"))
