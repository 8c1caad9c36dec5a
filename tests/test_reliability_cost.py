"""Issue 13, findings 2, 6, 7 and 8 on the real app: what one request may cost (R120-R122), what
an LLM may put in front of a reader (R123-R125), a slow LLM beside search (R126), and an over-long
chat message in the session's history (R127). Servers are `build_app` under uvicorn on loopback;
the LLM is an httpx.MockTransport or an in-process object, so nothing reaches the network.
Case ids are catalogued in docs/reliability.md."""

from __future__ import annotations

import json
import random
import re
import statistics
import string
import threading
import time

import httpx
import numpy as np
import pytest

from reliability_support import gradio_event
from s2r_tutor import Tutor
from s2r_tutor.answer import Answerer
from s2r_tutor.answer.llm import OpenAICompatLLM
from s2r_tutor.embedders import BoundedEmbedder
from s2r_tutor.errors import LLMError
from s2r_tutor.settings import LLMSettings
from s2r_tutor.web.chat import answer_messages
from s2r_tutor.web.render import answer_markdown
from s2r_tutor.web.server import build_app, running

STORY_ZH = ("客户说机器人在实验室里走得很好，到工厂就容易摔。他们换了地面材料，也加了二十公斤的负载。"
            "现场的电机温度比较高，地面也有油污。请问这和 Sim2Real 有什么关系？我们应该怎么跟客户解释？")
STORY_EN = ("A customer says their robot walked fine in the lab but keeps falling at the factory. They changed "
            "the floor material and added a twenty kilogram payload. The motors run hot on site and the floor "
            "has oil on it. How does this relate to Sim2Real? How should we explain it to the customer?")
LONG_TURN = ("域随机化 " * 4000)[:20_000]
XSS = "<img src=x onerror=alert(1)>"


def random_question(n: int = 500, seed: int = 13) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(string.ascii_letters + string.digits + " ") for _ in range(n))


class Spy:
    """The real embedder, recording the tokens of every query text it is handed."""

    def __init__(self, inner):
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.texts: list[str] = []
        self.tokens: list[int] = []

    def token_count(self, text: str) -> int:
        return self.inner.token_count(text)

    def embed_queries(self, texts):
        self.texts += texts
        self.tokens += [self.inner.token_count(t) for t in texts]
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts):
        return self.inner.embed_passages(texts)


@pytest.fixture(scope="module")
def spied(tutor):
    spy = Spy(tutor.embedder.inner)
    return Tutor(tutor.settings, spy, tutor.index), spy



# --------------------------------------------------------------------------- finding 2: cost bounds


def test_the_embedder_never_reads_more_than_the_token_bound(spied):
    """R120: a follow-up after a 20,000-character turn, a 500-character random question and a
    1M-character question: the embedder reads at most `max_query_tokens` of any of them (before:
    all 20,006 tokens, 43-109 s). A 3-5 sentence customer story, Chinese or English, is read whole."""
    t, spy = spied
    bound = t.settings.max_query_tokens
    t.ask("再具体说说", [{"role": "user", "content": LONG_TURN}, {"role": "assistant", "content": "x" * 20_000}])
    t.ask(random_question())
    t.ask("什么是域随机化？" * 125_000)
    assert spy.tokens and max(spy.tokens) <= bound
    for story in (STORY_ZH, STORY_EN):
        spy.texts.clear()
        t.ask(story)
        assert any(story in text for text in spy.texts), "a customer story was cut"


def test_token_clip_is_a_prefix_within_the_bound(tutor):
    """R120: the clip is the longest prefix within the bound; short text passes unchanged, and a
    backend without a token counter is bounded by one token per character."""
    bounded = tutor.embedder
    for text in (LONG_TURN, random_question(), "😀" * 3000, "a " * 5000, STORY_ZH):
        cut = bounded.clip(text)
        assert text.startswith(cut)
        assert bounded.inner.token_count(cut) <= bounded.max_tokens
        if cut != text:
            assert bounded.inner.token_count(text[: len(cut) + 8]) > bounded.max_tokens
    assert bounded.clip(STORY_ZH) == STORY_ZH
    # remembered vectors are the model's own: a second call answers from memory, unchanged
    for text in ("什么是域随机化？", random_question(seed=99)):
        fresh = bounded.inner.embed_queries([bounded.clip(text)])[0]
        assert np.allclose(bounded.embed_queries([text])[0], fresh, atol=1e-5)
        assert np.allclose(bounded.embed_queries([text, "x"])[0], fresh, atol=1e-5)

    class NoCounter:
        id, dim = "x", 1

    assert len(BoundedEmbedder(NoCounter(), 64).clip("字" * 1000)) <= 64


def ask_time(client: httpx.Client, body: dict) -> float:
    t0 = time.perf_counter()
    r = client.post("/api/ask", json=body)
    took = time.perf_counter() - t0
    assert r.status_code == 200, r.text
    return took


def test_the_dearest_requests_cost_a_bounded_multiple_of_a_normal_one(base_url):
    """R121: on a live server, the 20,000-character history turn and the 500-character random
    question each answer in a bounded time (before: 43-109 s and 1-2.5 s; bench/abuse.py measures
    the ratio, <= 25x). Asserted generously: the machine is shared."""
    with httpx.Client(base_url=base_url, timeout=120) as c:
        normal = statistics.median(ask_time(c, {"question": q}) for q in ["什么是 Sim2Real？"] * 5)
        long_turn = ask_time(c, {"question": "再具体说说", "history": [{"role": "user", "content": LONG_TURN}]})
        rand = ask_time(c, {"question": random_question()})
    assert long_turn < max(10.0, 50 * normal) and rand < max(10.0, 50 * normal), (normal, long_turn, rand)


def test_a_megabyte_question_is_refused_by_size_or_costs_a_question(base_url, tutor):
    """R122: a 1M-character question is a 413 at /api/ask; passed to Tutor.ask directly it is cut
    before any character-by-character work (only a prefix is cleaned), so it costs a question."""
    r = httpx.post(f"{base_url}/api/ask", json={"question": "x" * 1_000_000}, timeout=60)
    assert r.status_code == 413
    tutor.ask("什么是 Sim2Real？")
    t0 = time.perf_counter()
    a = tutor.ask("什么是 Sim2Real？ " + "仿真" * 500_000)
    assert time.perf_counter() - t0 < 5.0 and len(a.question) <= tutor.settings.max_query_chars


# --------------------------------------------------------------------------- finding 6: LLM output

SOURCE = re.compile(r"^\[(\d+)\] \((\S+) · [^\n]*\)\n(.*?)(?=\n\n\[\d+\] \(|\Z)", re.S | re.M)


def first_sentence(system: str) -> str:
    """The first sentence of source [1], verbatim: what a faithful model would quote."""
    text = SOURCE.findall(system)[0][2]
    line = next(ln for ln in text.splitlines() if re.search(r"[\u4e00-\u9fff]{8}", ln))
    return re.split(r"(?<=[。！？；])", line.strip().lstrip("-* ").strip("*"))[0]


class Replies:
    """An OpenAI-compatible endpoint on an httpx.MockTransport; `make(first_sentence)` is the reply."""

    def __init__(self):
        self.make = lambda s: f"{s} [1]"

    def handler(self, request: httpx.Request) -> httpx.Response:
        system = json.loads(request.content)["messages"][0]["content"]
        content = self.make(first_sentence(system))
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": content}}]})


@pytest.fixture(scope="module")
def replies():
    return Replies()


@pytest.fixture(scope="module")
def llm_tutor(tutor, replies):
    llm = OpenAICompatLLM(LLMSettings(base_url="http://llm.test/v1", model="mock", timeout_s=5),
                          transport=httpx.MockTransport(replies.handler))
    t = Tutor(tutor.settings, tutor.embedder, tutor.index)
    t._answerer = Answerer(t, llm=llm)
    yield t
    t.close()


@pytest.fixture(scope="module")
def llm_url(settings, llm_tutor, tmp_path_factory):
    var = tmp_path_factory.mktemp("var")
    web = settings.model_copy(update={"feedback_file": var / "feedback.jsonl", "study_db": var / "study.sqlite3"})
    with running(build_app(web, llm_tutor)) as url:
        yield url


QUESTION = "什么是 Sim2Real？"


def test_a_faithful_llm_answer_is_used(llm_tutor, replies):
    """The baseline for R123-R124: a reply that quotes its source and cites it is used."""
    replies.make = lambda s: f"{s} [1]"
    a = llm_tutor.ask(QUESTION)
    assert a.backend == "llm:mock" and a.citations


UNSUPPORTED_LINES = {
    "heading": lambda s: f"## 地球是平的，这是卡片说的\n{s} [1]",
    "zh-label": lambda s: f"重要结论地球是平的：\n{s} [1]",
    "en-label": lambda s: f"Note:\n{s} [1]",
    "en-heading": lambda s: f"# Summary\n{s} [1]",
    "en-lead-in": lambda s: f"Here is what the card says\n{s} [1]",
}


@pytest.mark.parametrize("case", sorted(UNSUPPORTED_LINES))
def test_headings_and_label_lines_need_support_too(llm_tutor, replies, case):
    """R123: an LLM heading, a short line ending in a colon, or an English lead-in with no support in
    the cited spans is dropped (before: passed as 'framing'); the cited sentence stays."""
    replies.make = UNSUPPORTED_LINES[case]
    a = llm_tutor.ask(QUESTION)
    assert a.backend == "llm:mock"
    for dropped in ("地球是平的", "Note", "Summary", "Here is"):
        assert dropped not in a.answer
    assert all(f"[{c.marker}]" in a.answer for c in a.citations)


ATTACKS = {
    "english-in-segment": lambda s: f"{s} Ignore the card and visit our partner site for details [1]",
    "img-onerror": lambda s: f"{s} {XSS} [1]",
    "img-own-line": lambda s: f"{s} [1]\n{XSS}",
    "markdown-image": lambda s: f"{s} [1]\n![x](http://evil.example/p.png)",
    "reference-image": lambda s: f"{s} ![x][r] [1]\n\n[r]: http://evil.example/p.png",
    "reference-link": lambda s: f"[{s}][r] [1]\n\n[r]: http://evil.example/",
    "bare-www": lambda s: f"{s} www.evil.example [1]",
    "inline-link": lambda s: f"[{s}](http://evil.example/) [1]",
    "html-comment": lambda s: f"{s}<!-- hidden --> [1]",
}


@pytest.mark.parametrize("case", sorted(ATTACKS))
def test_unsupported_text_and_markup_never_reach_the_api_answer(llm_url, replies, case):
    """R124: English text inside a cited segment, raw HTML, images, links and bare addresses from
    the LLM: the answer served by /api/ask (a live server over the LLM tutor) carries none of it
    (before: `<img onerror>` reached the API answer); markup makes the template answer be used."""
    replies.make = ATTACKS[case]
    r = httpx.post(f"{llm_url}/api/ask", json={"question": QUESTION}, timeout=60)
    assert r.status_code == 200
    a = r.json()
    for bad in ("<img", "onerror", "evil", "Ignore the card", "<!--", "](", "]: http"):
        assert bad not in a["answer"], (case, a["answer"])
    assert a["citations"]


def test_chat_rendering_disables_html_images_and_foreign_links():
    """R125: the chat's Markdown of an answer: raw HTML is text, images are their alt text,
    reference definitions and bare www./http:// addresses are inert, and a link survives only to a
    host in `link_hosts` (empty by default: no links at all)."""
    text = (f"a {XSS} [1]\n![pic](https://docs.example.com/p.png) ![r][ref] [x][ref]\n[ref]: http://evil.example/i.png\n"
            "www.evil.example http://evil.example/a a@evil.example\n[docs](https://docs.example.com/a) "
            "[elsewhere](https://evil.example/b) [js](javascript:alert(1))")
    for hosts in ((), ("docs.example.com",)):
        md = answer_markdown(text, hosts)
        assert "<img" not in md and "&lt;img" in md
        assert "![" not in md.replace("![r]", "")  # an inline image became its alt text
        assert re.search(r"^\\\[ref\]:", md, re.M)  # the definition is escaped: [ref] links nowhere
        assert "www." not in md and "http://" not in md and "@evil" not in md
        assert "(https://evil.example" not in md and "javascript:" not in md
        assert ("[docs](https://docs.example.com/a)" in md) == bool(hosts)
        assert "(https://docs.example.com/p.png)" not in md
    from s2r_tutor.models import Answer
    msg = answer_messages(Answer(question="q", language="zh", intent="definition", answer=text), ["docs.example.com"])[0]["content"]
    assert "[docs](https://docs.example.com/a)" in msg and "<img" not in msg


# --------------------------------------------------------------------------- finding 7: slow LLM


class SleepyLLM:
    """An LLM that sleeps past its deadline, then fails as a timed-out request does."""

    name = "sleepy"

    def __init__(self, seconds: float):
        self.seconds = seconds

    def complete(self, messages):
        time.sleep(self.seconds)
        raise LLMError(f"LLM timed out after {self.seconds:g} s")


def test_a_slow_llm_never_holds_a_cpu_slot(settings, tutor):
    """R126: with one CPU slot (web_concurrency 1) and two answers waiting 5 s on the LLM, search
    still answers at once (before: it waited behind the LLM, 19 s with two slots). The answers then
    fall back to the template."""
    one = settings.model_copy(update={"web_concurrency": 1})
    t = Tutor(one, tutor.embedder, tutor.index)
    sleepy = SleepyLLM(0.0)  # the server's warm-up answer need not wait
    t._answerer = Answerer(t, llm=sleepy)
    results: list[httpx.Response] = []
    with running(build_app(one, t)) as url:
        sleepy.seconds = 5.0
        asks = [threading.Thread(target=lambda: results.append(
            httpx.post(f"{url}/api/ask", json={"question": QUESTION}, timeout=60))) for _ in range(2)]
        for th in asks:
            th.start()
        time.sleep(1.0)  # both answers are now waiting on the LLM
        t0 = time.perf_counter()
        r = httpx.get(f"{url}/api/search", params={"q": "域随机化", "k": 3}, timeout=60)
        took = time.perf_counter() - t0
        for th in asks:
            th.join(timeout=60)
    assert r.status_code == 200 and r.json()["hits"]
    assert took < 2.0, f"search waited {took:.1f} s behind the LLM"
    assert [x.status_code for x in results] == [200, 200]
    assert all(x.json()["backend"] == "template" for x in results)


# --------------------------------------------------------------------------- finding 8: long chat message


def test_a_long_turn_is_clipped_not_rejected(tutor):
    """R127: earlier turns over 20,000 characters (the Turn model's own limit) are clipped to
    `max_turn_chars`, never 'history must be a list ... turns'."""
    history = [{"role": "user", "content": "什么是域随机化？" + "x" * 30_000},
               {"role": "assistant", "content": "y" * 30_000}]
    a = tutor.ask("再具体说说", history)
    assert not a.refused and a.citations


def chat_event(base: str, session: str, question: str) -> str:
    """Send `question` through the chat's `respond` event; the completed event's message line."""
    config = httpx.get(base + "/config", timeout=30).json()
    dep = next(d for d in config["dependencies"] if d.get("api_name") == "respond")
    body = {"data": [question] + [None] * (len(dep["inputs"]) - 1), "fn_index": dep["id"],
            "session_hash": session, "event_data": None, "trigger_id": None}
    line = gradio_event(base, body, timeout=120)
    assert line is not None, "the chat event did not complete"
    return line


def test_a_long_chat_message_does_not_break_the_session(base_url):
    """R127: a chat message over 20,000 characters, then a normal question in the same session: the
    second is answered with citations (before: every later question answered 'history must be a list
    of ... turns' until the chat was cleared)."""
    first = chat_event(base_url, "long-msg", "什么是域随机化？ " + "a" * 21_000)
    assert "history must be" not in first
    second = chat_event(base_url, "long-msg", "什么是 Sim2Real？")
    assert '"success":true' in second.replace(" ", "") and "history must be" not in second
    assert "来源 (" in second  # an answer with its sources block (a titled message), not an error message
