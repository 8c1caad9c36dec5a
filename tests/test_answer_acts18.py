"""Round 18 (issue 14, acts): preparing a talk or a deck about Sim2Real is an overview ask, even when it is
for a customer ("…for a customer deck" read as customer_reply and got a reply to a customer's question);
the overview walks the card's arc. Wordings of our own: none is in data/acts.jsonl or a docs/blind* set."""

from __future__ import annotations


import pytest

from blind_support import copied

DECK = ["周五要给客户做个 sim2real 分享，帮我列个提纲",
        "need slides on sim2real for a client workshop, what goes on each one?",
        "sim2real 给客户讲的话整体脉络怎么安排"]


def test_these_wordings_are_our_own():
    assert not copied(DECK)


@pytest.mark.parametrize("question", DECK)
def test_a_deck_ask_is_an_overview_of_the_arc(tutor, question):
    a = tutor.ask(question)
    assert a.act == "overview" and not a.refused, (a.act, a.answer)
    sections = [c.chunk_id.split("#")[1] for c in a.citations]
    assert sections[0] == "summary" and "methods" in sections, sections  # what it is first, the methods in the arc
