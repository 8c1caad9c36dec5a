"""Round 59 (issue 14): the act read by a regression over every labelled example beside the nearest neighbours
(tests/test_act_model.py measures it); what it moved. A follow-up that asks about "the two" after a turn on the world
model and Sim2Real compares that pair, as after a turn on RL and Sim2Real (leads.json pair_topics): read as a
comparison, it had been declined for naming no card term. Wordings of our own."""

from __future__ import annotations

from blind_support import copied

from s2r_tutor.models import Turn

WORLD = [Turn(role="user", content="世界模型和sim2real算不算一回事"),
         Turn(role="assistant", content="不算一回事：两者相关，但不是同一个概念。")]
PAIR = ["那这两者之间啥联系", "那它们俩关系大不大"]
WORLD_EN = [Turn(role="user", content="are world models basically the same as sim2real?"),
            Turn(role="assistant", content="Related, but not the same concept.")]
PAIR_EN = "so how do the two relate, then?"


def test_these_wordings_are_our_own():
    assert not copied({WORLD[0].content, *PAIR, WORLD_EN[0].content, PAIR_EN})


def test_the_pair_after_a_world_model_turn_is_compared_not_declined(tutor):
    for q, history in [(q, WORLD) for q in PAIR] + [(PAIR_EN, WORLD_EN)]:
        a = tutor.ask(q, history)
        assert not a.refused, (q, a.answer)
        assert a.citations and a.citations[0].chunk_id == "04-08#physical-system", (q, a.answer)
        assert "两者相关，但不是同一个概念" in a.citations[0].quote, (q, a.citations[0].quote)
