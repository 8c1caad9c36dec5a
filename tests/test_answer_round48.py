"""Round 48 (issue 14/17): dev fixes after blind set 46 was measured. "不同" before a noun ("换了个不同型号的激光雷达")
is an adjective, no comparison asked; a one-line follow-up after RL vs Sim2Real ("用一句话说，我要发群里") is the card's
one-liner, 强化学习 ≠ Sim2Real, not the two sides' plain lines (a first question asking the difference in one line
keeps them); "what does this card cover" in Chinese is the card's overview, not the related-knowledge list.
Wordings of our own."""

from __future__ import annotations

from blind_support import copied

from s2r_tutor.models import Turn

DIFFERENT_MODEL = "客户把相机换成了不同品牌的，抓取开始偏，我第一步核对啥"
RELATION = "强化学习跟sim2real是什么关系"
RELATION_SAID = "强化学习靠行动和奖励学策略；Sim2Real 管的是把能力迁移到真实环境。两者常一起用，但不是一回事。"
ONE_LINE_AFTER = "一句话版本？"
DIFFERENCE_ONE_LINE = "一句话讲讲强化学习和sim2real差在哪"
CARD_OVERVIEW = "这张卡都讲了啥，帮我梳理下"
OURS = [DIFFERENT_MODEL, RELATION, RELATION_SAID, ONE_LINE_AFTER, DIFFERENCE_ONE_LINE, CARD_OVERVIEW]


def test_these_wordings_are_our_own():
    assert not copied(set(OURS))


def test_a_different_model_is_no_comparison(tutor):
    a = tutor.ask(DIFFERENT_MODEL)
    assert a.act == "check_first", (a.act, a.answer)


def test_a_one_line_follow_up_on_rl_is_the_cards_one_liner(tutor):
    a = tutor.ask(ONE_LINE_AFTER, [Turn(role="user", content=RELATION), Turn(role="assistant", content=RELATION_SAID)])
    assert "≠" in a.answer and "\n" not in a.answer.strip(), a.answer


def test_a_first_one_line_difference_keeps_both_sides(tutor):
    a = tutor.ask(DIFFERENCE_ONE_LINE)
    assert "关注如何逐渐学会" in a.answer and "关注训练环境到真实环境" in a.answer, a.answer


def test_what_the_card_covers_is_its_overview(tutor):
    a = tutor.ask(CARD_OVERVIEW)
    assert a.intent == "definition", (a.intent, a.answer)
    assert "已完成" not in a.answer, a.answer  # not the related cards' status list
