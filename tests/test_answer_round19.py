"""Round 19 (issues 14 / 17): a story's follow-up keeps the story's own factors, and an ordinal in a
chat's first question ("第一步查什么") is no pointer into an earlier answer. Wordings of our own: none is
in data/acts.jsonl, the labelled stories or a docs/blind* set (checked below)."""

from __future__ import annotations


import pytest

from blind_support import copied

# (story, follow-up asking how to put it to the customer): the follow-up's own words are about tone, not
# about a factor, so the answer stays on the story's scenario (the factory floor, not a payload change)
STORY_FOLLOWUPS = [
    ("zh", "客户说机器人在我们实验室走得挺稳，到了他们车间老摔跤", "这个怎么跟客户讲才不像在找借口"),
    ("en", "the customer's robot keeps tumbling on their shop floor though it was steady in our lab",
     "how do I word that for the customer so it doesn't come across as an excuse"),
]
OPENING_ORDINALS = [
    "客户把机器人的脚垫从橡胶换成了尼龙，之后爬坡总是打滑，第一步查什么",
    "客户给机器人换了一套更硬的脚底垫，上斜坡老是溜，我第一步先看哪",
]


def test_these_wordings_are_our_own():
    mine = {q for _, a, b in STORY_FOLLOWUPS for q in (a, b)} | set(OPENING_ORDINALS)
    assert not copied(mine)


@pytest.mark.parametrize("lang,story,followup", STORY_FOLLOWUPS)
def test_a_story_followup_keeps_the_story_factors(tutor, lang, story, followup):
    first = tutor.ask(story)
    assert first.citations and any("scenario-factory-floor" in c.chunk_id for c in first.citations), first.answer
    a = tutor.ask(followup, history=[{"role": "user", "content": story}, {"role": "assistant", "content": first.answer}])
    assert not a.refused and a.act == "customer_reply", (a.act, a.answer)
    cited = [c.chunk_id for c in a.citations]
    assert any("scenario-factory-floor" in c for c in cited) and not any("scenario-payload" in c for c in cited), a.answer


@pytest.mark.parametrize("question", OPENING_ORDINALS)
def test_an_ordinal_in_a_first_question_is_no_pointer(tutor, question):
    a = tutor.ask(question)
    assert not a.refused and a.intent == "scenario", a.answer
    assert any(c.chunk_id.startswith(("04-08#scenario-factory-floor", "04-08#reality-gap")) for c in a.citations), a.answer
