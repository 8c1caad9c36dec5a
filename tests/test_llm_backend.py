"""The optional LLM answerer against real loopback HTTP servers speaking /v1/chat/completions:
a faithful one, one that invents citations, one that hangs, one with malformed JSON, one that
errors, and a port nobody listens on. Every failure must give the template answer, quickly."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from s2r_tutor.answer import Answerer, get_llm
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
    mode = "good"
    seen: list[dict] = []

    def log_message(self, *args):  # keep test output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if self.mode == "hang":
            time.sleep(5)
            return
        if self.mode == "malformed":
            payload, status = b'{"choices": [ this is not json', 200
        elif self.mode == "huge":
            payload, status = json.dumps({"choices": [{"message": {"content": "x" * 300_000}}]}).encode(), 200
        else:
            status, doc = BEHAVIOURS[self.mode](body["messages"][0]["content"])
            payload = json.dumps(doc, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        try:
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def answerer_for(tutor, base_url: str, timeout_s: float = 2.0) -> Answerer:
    llm = LLMSettings(base_url=base_url, model="fake-model", api_key="sk-test", timeout_s=timeout_s)
    settings = tutor.settings.model_copy(update={"llm": llm})
    return Answerer(SimpleNamespace(settings=settings, retriever=tutor.retriever, chunks=tutor.chunks,
                                    embedder=tutor.embedder, index=tutor.index))


def ask(answerer: Answerer, question: str):
    t0 = time.perf_counter()
    answer = answerer.answer(question, [])
    return answer, time.perf_counter() - t0


@pytest.mark.parametrize("question", ["什么是 Sim2Real？", "Why is Sim2Real hard?"])
def test_good_llm_answer_is_used_and_verified(tutor, server, question):
    Handler.mode, Handler.seen = "good", []
    answer, _ = ask(answerer_for(tutor, server), question)
    assert answer.backend == "llm:fake-model"
    assert answer.citations and all(c.quote in c.text for c in answer.citations)
    assert "「" in answer.answer and "[1]" in answer.answer
    req = Handler.seen[-1]
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test"
    assert req["body"]["model"] == "fake-model"
    assert "[1] (04-08#" in req["body"]["messages"][0]["content"]  # numbered retrieved chunks
    assert req["body"]["messages"][1]["content"] == question


@pytest.mark.parametrize("mode", ["invent", "uncited", "no_answer", "malformed", "error", "huge"])
def test_bad_replies_fall_back_to_the_template(tutor, server, mode):
    Handler.mode = mode
    template = tutor.ask("什么是 Sim2Real？")
    answer, _ = ask(answerer_for(tutor, server), "什么是 Sim2Real？")
    assert answer.backend == "template"
    assert answer.answer == template.answer
    assert "NASA" not in answer.answer


def test_hanging_server_times_out_to_the_template(tutor, server):
    Handler.mode = "hang"
    answer, took = ask(answerer_for(tutor, server, timeout_s=0.5), "为什么 Sim2Real 很难？")
    assert answer.backend == "template" and answer.intent == "why_hard"
    assert took < 3.0


def test_connection_refused_falls_back(tutor):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens there
    answer, took = ask(answerer_for(tutor, f"http://127.0.0.1:{port}/v1"), "什么是 Sim2Real？")
    assert answer.backend == "template" and took < 3.0


def test_refusals_never_reach_the_llm(tutor, server):
    Handler.mode, Handler.seen = "good", []
    answer, _ = ask(answerer_for(tutor, server), "what is the capital of France")
    assert answer.refused and Handler.seen == []


def test_registry_raises_on_unknown_backend_and_is_off_by_default():
    assert get_llm(LLMSettings()) is None
    with pytest.raises(LLMError, match="openai"):
        get_llm(LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", backend="nope"))
