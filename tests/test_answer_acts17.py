"""Round 17 (issue 14, items 1 and 4): an ask that shares a word with the card but is about another subject
is declined; an ask for something the card never gives (papers, a success rate) says so first. Wordings of
our own: none is in data/acts.jsonl or a docs/blind* set (checked below), so they test the neighbours and
the not-in-card table, not memory."""

from __future__ import annotations

import functools

import pytest

from blind_support import copied
from s2r_tutor.answer.refusal import REFUSAL

# Not yet: the labelled out-of-scope neighbours of these are too few, so the card's own fine-tuning / RL /
# physics-engine questions outvote them (strict: a fix that declines them must drop the mark)
OTHER_SUBJECT = [
    "给大模型做领域微调，一般要准备多少条语料",       # fine-tuning, of a language model
    "How should I fine-tune a language model on our product manuals?",  # round 18: LLM tuning neighbours
    "大模型微调的学习率一般取多少",  # a number asked of another subject: no "the card does not give" (round 18)
    "用强化学习训练一个下围棋的 AI 思路是怎样的",  # RL, of a board game (round 20: board- and video-game RL neighbours)
    "赛车游戏的物理引擎参数怎么调才更像真车",  # simulation, of a game (round 21: words no reader of the card uses)
]
ON_THE_CARD = [  # the same words, of this card's subject
    "真机微调到底在调什么？",
    "What does real-world fine-tuning add after training in simulation?",
    "强化学习和 Sim2Real 是一回事吗",
]
MISSING = [  # (question, the card does not give ..., refused: declined outright)
    ("有没有讲 Sim2Real 的經典論文可以推薦？", "卡片没有给出论文或文献推荐", True),
    # names a card topic (the reality gap): said, then what the card says of it (answerer.draft's decline rule)
    ("Which papers should I read first on closing the reality gap?", "The card does not give papers or reading lists", False),
    ("What's the usual success rate for getting a sim-trained policy onto a real robot?",
     "The card does not give success rates", False),
    ("把仿真里练好的策略搬上真机，成功率一般有多高？", "卡片没有给出成功率数据", False),
]


@pytest.fixture(scope="module")
def ask(tutor):
    return functools.lru_cache(maxsize=None)(lambda q: tutor.ask(q))


def test_these_wordings_are_our_own():
    mine = [*(q if isinstance(q, str) else q.values[0] for q in OTHER_SUBJECT), *ON_THE_CARD, *(q for q, _, _ in MISSING)]
    assert not copied(mine)


@pytest.mark.parametrize("question", OTHER_SUBJECT)
def test_a_card_word_used_of_another_subject_is_declined(ask, question):
    a = ask(question)
    assert a.refused and not a.citations
    assert a.answer.startswith((REFUSAL[a.language][:12], "卡片没有给出", "The card does not give")), a.answer


@pytest.mark.parametrize("question", ON_THE_CARD)
def test_the_same_words_about_the_card_are_answered(ask, question):
    a = ask(question)
    assert not a.refused and a.citations


@pytest.mark.parametrize("question,said,refused", MISSING)
def test_what_the_card_lacks_is_said_first(ask, question, said, refused):
    a = ask(question)
    assert a.act == "not_in_card" and a.answer.startswith(said), a.answer
    assert a.refused is refused and bool(a.citations) is not refused


def test_the_core_term_veto_is_a_setting(tutor):
    """Settings.answer.core_oos_veto above 1 lets every core-term question in, as before round 17."""
    from s2r_tutor.answer.acts import Reading

    ans = tutor._get_answerer()
    oos = Reading("out_of_scope", {}, votes={"out_of_scope": 0.95}, best_cosine=0.95)
    assert ans._neighbours_out_of_scope(oos, "core", spared=False)
    assert not ans._neighbours_out_of_scope(oos, "core", spared=True)  # a customer's story the labelled stories tell is never vetoed
    settings = ans.settings.answer.model_copy(update={"core_oos_veto": 1.01})
    old, ans.settings = ans.settings, ans.settings.model_copy(update={"answer": settings})
    try:
        assert not ans._neighbours_out_of_scope(oos, "core", spared=False)
    finally:
        ans.settings = old
