"""Round 20 (issue 14): in a comparison an exception cue ("one vs the other", "和其他方法比") names a side;
it does not turn the named sides away as "besides X" does. A story whose cause the card does not list (a
network dropout, rain) is answered with what the card does not cover first. Wordings of our own: none is in
data/acts.jsonl, the labelled stories or a docs/blind* set (checked below)."""

from __future__ import annotations


import pytest

from blind_support import copied

# (question, the method sections it compares): both named sides, never the two it did not name
ONE_VS_THE_OTHER = [
    ("domain randomization or system identification: in which situation does one beat the other?",
     {"domain-randomization", "system-identification"}),
    ("robust policy vs real-world fine-tuning, when is one better than the other",
     {"robust-policy", "real-world-fine-tuning"}),
]
# "besides X": X is set aside, the answer is the others
BESIDES = [("除了域随机化，还有哪些办法能缩小差距", "domain-randomization")]


def test_these_wordings_are_our_own():
    mine = {q for q, _ in ONE_VS_THE_OTHER} | {q for q, _ in BESIDES} | {q for _, q, _ in UNCOVERED} | {OFF_CARD_IN_A_STORY, *OFF_CARD_ASKED} \
        | set(SIMPLER_WHY_SIM)
    assert not copied(mine)


METHODS = {"domain-randomization", "system-identification", "real-world-fine-tuning", "robust-policy"}


def method_sections(answer) -> set[str]:
    """The methods an answer cites: a method's own section ("04-08#robust-policy") or its related-concept
    note ("04-08#related-domain-randomization")."""
    return {c.chunk_id.split("#", 1)[-1].split(":")[0].removeprefix("related-") for c in answer.citations} & METHODS


@pytest.mark.parametrize("question,sides", ONE_VS_THE_OTHER)
def test_one_vs_the_other_compares_the_two_named(tutor, question, sides):
    a = tutor.ask(question)
    assert a.act == "compare", a.act
    assert method_sections(a) == sides, (a.answer, [c.chunk_id for c in a.citations])


@pytest.mark.parametrize("question,aside", BESIDES)
def test_besides_still_sets_the_named_method_aside(tutor, question, aside):
    a = tutor.ask(question)
    found = method_sections(a)
    assert found and aside not in found, (a.answer, [c.chunk_id for c in a.citations])


# A story whose cause the card does not list (a dropped link, rain): the answer says so first and never
# calls it the reality gap; "freezes" of a robot that hangs is no temperature
UNCOVERED = [
    ("zh", "仓库最里面那排货架信号一差，机器人就原地不动了，客户说是 sim2real 没做好，是吗", "网络 / 通信中断不在"),
    ("en", "the robot's LTE connection cuts out in the loading bay and it stops moving. customer blames sim2real, fair?",
     "network or communication dropouts are not"),
    ("en", "whenever the robot loses its connection on the far side of the site it just freezes, is that a reality gap?",
     "network or communication dropouts are not"),
    ("zh", "客户的巡逻机器人一到雨天就容易出状况，他问是不是仿真没考虑下雨，我该怎么答复", "没有讲下雨"),
]


@pytest.mark.parametrize("lang,question,said", UNCOVERED)
def test_a_cause_the_card_does_not_list_is_said_first(tutor, lang, question, said):
    a = tutor.ask(question)
    first = a.answer.split("\n", 1)[0]
    assert said in first, a.answer
    assert "temperature" not in a.answer and "温度" not in a.answer, a.answer
    assert not first.startswith(("**是的", "**Yes")), a.answer
    if "怎么答复" in question:  # a reply asked for keeps the words for the customer
        assert "跟客户" in a.answer and "“" in a.answer, a.answer


# An off-card word told in passing in a story (售后: the after-sales team that swapped a part) is not its
# subject; asked as the subject, it is still declined
OFF_CARD_IN_A_STORY = "售后上门把机器人的关节电机换成了另一个牌子，现在转身明显迟钝，客户问是不是得重新训练"
OFF_CARD_ASKED = ["售后电话是多少", "机器人换了电机之后还在保修期内吗"]


def test_an_off_card_word_in_a_story_is_not_its_subject(tutor):
    a = tutor.ask(OFF_CARD_IN_A_STORY)
    assert not a.refused and a.intent == "scenario", a.answer
    assert any("physical-system" in c.chunk_id or "reality-gap" in c.chunk_id or "fine-tuning" in c.chunk_id
               for c in a.citations), a.answer


@pytest.mark.parametrize("question", OFF_CARD_ASKED)
def test_an_off_card_subject_is_still_declined(tutor, question):
    a = tutor.ask(question)
    assert a.refused and not a.citations, a.answer


# "simpler" after why-simulation: the card's one-sentence gist of why (many, fast, cheap trials), not the
# sim-practises / reality-checks line, which is about the loop
SIMPLER_WHY_SIM = ("机器人为什么都要先放到仿真里去训练", "能不能一句话说完")


def test_simpler_after_why_simulation_is_its_gist(tutor):
    first, followup = SIMPLER_WHY_SIM
    prev = tutor.ask(first)
    a = tutor.ask(followup, history=[{"role": "user", "content": first}, {"role": "assistant", "content": prev.answer}])
    assert a.act == "simpler" and a.answer.startswith("仿真最大的价值"), a.answer
