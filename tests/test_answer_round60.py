"""Round 60 (issue 14), on blind set 53 as a dev set: an example asked for a setting of the reader's own (a hospital
robot, a pick-and-place arm, a drone) says first that the card has no example for it, then gives the card's own,
cited; an example of the card's own things, a bare "举个例子", or an example for a slide gets no such line
(leads.json example_setting; a setting counts only when one of its words is not on the card). Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.answer.lexicon import fold
from s2r_tutor.models import Turn

SETTING = [("拿养殖场的巡检机器人举个例子讲讲域随机化", "卡片没有针对这个具体场景的例子"),
           ("give me an example of the reality gap for a window-cleaning robot", "The card has no example for that specific setting"),
           ("reality gap能不能举个例子，比如港口里跑的集卡", "卡片没有针对这个具体场景的例子")]
TUNING = [Turn(role="user", content="真机微调是干嘛的"),
          Turn(role="assistant", content="**03 · 真机微调 Real-world Fine-tuning**：示例：“先在仿真中学习，再用少量真实数据继续调整” [1]")]
AGAIN = "再举个例子吧，比如码头上跑的搬运车那种"
NOT_A_SETTING = ["比如摩擦和质量这种，域随机化能举个例子吗", "域随机化举个例子呗，比如具体都乱改些啥东西", "能举个具体点的例子吗，比如说传感器那块", "举个例子，比如哪些地方不一样",
                 "能举例说明下吗，比如机器人学走路那种",
                 "an example for the customer please", "need a concrete example of domain randomization for a slide"]


def test_these_wordings_are_our_own():
    assert not copied({q for q, _ in SETTING} | set(NOT_A_SETTING) | {TUNING[0].content, AGAIN})


@pytest.mark.parametrize("question,line", SETTING)
def test_an_example_for_a_setting_the_card_lacks_says_so_first(tutor, question, line):
    a = tutor.ask(question)
    assert a.act == "example" and not a.refused, (a.act, a.answer)
    first, _, rest = a.answer.partition("\n\n")
    assert first.startswith(line), a.answer
    assert a.citations and "[1]" in rest, a.answer  # then the card's own example, cited


@pytest.mark.parametrize("question", NOT_A_SETTING)
def test_the_card_s_own_things_or_a_slide_are_no_setting(tutor, question):
    answerer = tutor._get_answerer()
    assert not answerer.leads.example_setting.named(fold(question), answerer._setting_words), question


def test_an_example_asked_again_for_a_setting_says_once_that_the_card_has_no_other(tutor):
    """After the card's only example was given, the answer already says it has no other: the setting line would say it
    twice (dev b27-006)."""
    a = tutor.ask(AGAIN, TUNING)
    said = [x for x in ("卡片没有针对这个具体场景的例子", "卡片给的例子就是这一个") if x in a.answer]
    assert len(said) == 1, a.answer
