"""Round 43 (issue 14/17), built on blind set 41 as a dev set. "Give me one line" is one sentence: a reply asked
in one line keeps its lead alone ("给我一句能直接回他的话" got the walking scene and the four reasons), and a
comparison's two labelled sides stay together. A yes/no that says something may be "省掉了" is no customer story
(掉了 is a symptom word only where nothing is left out). The sources of the reality gap open with the gap, not the
methods' framing line. After a body change, "what do we redo?" names system identification and fine-tuning, and
says real validation stays. An example of Sim2Real is the walking scene and its six steps. "这几招" after one
method asks about all four. A story asked for is an example. Wordings of our own."""

from __future__ import annotations

import re

import pytest
from blind_support import copied

from s2r_tutor.models import Turn

ONE_LINE_REPLY = ["客户问为啥不直接拿真机训练，帮我回他一句", "a customer says RL and sim2real are the same thing - give me one line to set them straight"]
SKIP_VALIDATION = ["真机数据都拿来标定和微调过了，安全验证那步应该能省掉了吧"]
GAP_SOURCES = "仿真跟真机的差距通常出在哪几块？列一下"
BODY_CHANGED = [("换了机器人本体还能直接用原来的策略吗", "不一定。本体的重量、电机、减速器不同，策略可能无法直接迁移。",
                 "那我们要补做哪些事"),
                ("can a policy move to a different robot body unchanged?",
                 "Not necessarily: differences in weight, motors and gearing can keep it from transferring.",
                 "ok so what do we need to redo")]
WALK_EXAMPLE = "拿机器人学走路举个例子讲讲 sim2real"
ALL_METHODS = ("系统辨识是做什么的", "用真实机器人数据，让仿真参数尽量接近真实本体。", "那这几种方法总的来说是想达到什么")
STORY = "帮我编个现场出 reality gap 的小故事，给新同事培训用"
OURS = [*ONE_LINE_REPLY, *SKIP_VALIDATION, GAP_SOURCES, *[q for t in BODY_CHANGED for q in (t[0], t[2])], WALK_EXAMPLE,
        ALL_METHODS[0], ALL_METHODS[2], STORY]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


def _shown(answer: str) -> str:
    return re.sub(r"\s*\[\d+\]", "", answer)


@pytest.mark.parametrize("question", ONE_LINE_REPLY)
def test_a_reply_asked_in_one_line_is_one_sentence(tutor, question):
    a = tutor.ask(question)
    paras = a.answer.strip().split("\n\n")
    if len(paras) == 2:  # a bold verdict line may stand over it
        assert re.fullmatch(r"\*\*[^*]+\*\*", paras[0]), a.answer
    body = paras[-1]
    assert len(paras) <= 2 and "\n" not in body, a.answer  # no list, no further paragraph
    assert len(re.findall(r"[。！？]|\.(?=\s|$)", _shown(body))) <= 2, a.answer
    assert a.citations, a.answer


def test_one_line_keeps_both_sides_of_a_comparison(tutor):
    turns = [Turn(role="user", content="强化学习和sim2real分别关注什么"),
             Turn(role="assistant", content="强化学习关注如何学会更好的行为；Sim2Real 关注训练环境到真实环境的能力迁移。")]
    a = tutor.ask("压成一句话给我", turns)
    # the two sides, labelled: both, or it is half a comparison
    assert "**强化学习**" in a.answer and "**Sim2Real**" in a.answer, a.answer


@pytest.mark.parametrize("question", SKIP_VALIDATION)
def test_leaving_out_validation_is_a_yes_no_not_a_story(tutor, question):
    a = tutor.ask(question)
    assert a.intent != "scenario", a.answer
    assert a.answer.startswith("**不能省"), a.answer
    assert "仍然不可省略" in a.answer or "仍然不可避免" in a.answer, a.answer


def test_the_sources_of_the_gap_open_with_the_gap(tutor):
    a = tutor.ask(GAP_SOURCES)
    assert a.answer.startswith("仿真永远只是现实世界的近似"), a.answer
    assert "摩擦系数可能不准确" in a.answer


@pytest.mark.parametrize("first,said,question", BODY_CHANGED)
def test_what_to_redo_after_a_body_change(tutor, first, said, question):
    a = tutor.ask(question, [Turn(role="user", content=first), Turn(role="assistant", content=said)])
    assert a.act == "how", (a.act, a.answer)
    head = a.answer.split("\n\n")[0]
    assert ("系统辨识" in head and "真机微调" in head) or ("System Identification" in head and "Fine-tuning" in head), a.answer
    assert "真机验证仍然不可避免" in a.answer or "still unavoidable" in a.answer, a.answer


def test_an_example_of_sim2real_walks_through_the_steps(tutor):
    a = tutor.ask(WALK_EXAMPLE)
    assert a.act == "example", a.act
    assert a.answer.startswith("场景：如果让一台真实机器人从零开始学习走路"), a.answer
    assert "建立虚拟机器人本体 → 模拟地面、摩擦、重力等环境" in a.answer, a.answer
    assert "和你的问题最贴近的一节" not in a.answer, a.answer


def test_these_methods_after_one_asks_about_all_four(tutor):
    first, said, question = ALL_METHODS
    a = tutor.ask(question, [Turn(role="user", content=first), Turn(role="assistant", content=said)])
    lead = a.answer.split("\n\n")[0]
    assert "共同目标" in lead, a.answer
    assert "系统辨识" not in lead, a.answer


def test_a_story_asked_for_is_an_example(tutor):
    a = tutor.ask(STORY)
    assert a.act == "example", (a.act, a.answer)
    assert "实验室里走得很好" in a.answer, a.answer
