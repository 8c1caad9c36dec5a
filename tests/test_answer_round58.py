"""Round 58 (issue 14): fixes from what the readers of blind set 51 marked down, now a dev set. Moving a policy to a
modified robot is answered with how (system identification, fine-tuning, validation) and why (b51-060); preparing
for a change before it happens is a how, not a diagnosis of a failure nobody reported (b51-059); examples of customer
trouble are the card's four scenarios, each named with its diagnosis pointer (b50-013, b51en-029); a simpler wording
"for a non-technical buyer" is words for a customer (b51en-011). Wordings of our own."""

from __future__ import annotations

from blind_support import copied

from s2r_tutor.models import Turn

MODIFIED = "客户想把现有策略装到他们加了配重的改装机器人上，迁移要怎么做"
PREPARE = "下周机器人要换到有很多坡道的仓库，提前用sim2real的办法怎么准备"
EXAMPLES = "举几个客户现场sim2real出问题的例子"
GAP = [Turn(role="user", content="so what is this reality gap thing"),
       Turn(role="assistant", content="Simulation only approximates the real world; the difference is the Reality Gap.")]
BUYER = "say that more simply, it's for a non-technical client"


def test_these_wordings_are_our_own():
    assert not copied({MODIFIED, PREPARE, EXAMPLES, GAP[0].content, BUYER})


def test_moving_a_policy_to_a_modified_robot_is_answered_with_how(tutor):
    a = tutor.ask(MODIFIED)
    assert a.act == "how" and not a.refused, (a.act, a.answer)
    lead = a.answer.split("\n\n")[0]
    assert "系统辨识" in lead and "真机微调" in lead, a.answer
    cited = [c.chunk_id for c in a.citations]
    assert "04-08#physical-system" in cited and cited[0] != "04-08#related-domain-randomization", cited


def test_preparing_for_a_change_is_how_not_a_diagnosis(tutor):
    a = tutor.ask(PREPARE)
    assert a.act == "how", (a.act, a.answer)
    assert "这是仿真—现实差距" not in a.answer.split("\n\n")[0], a.answer
    assert a.citations[0].chunk_id in ("04-08#methods", "04-08#domain-randomization"), a.answer


def test_examples_of_customer_trouble_are_the_cards_scenarios_named(tutor):
    a = tutor.ask(EXAMPLES)
    assert a.act == "example" and "卡片没有专门讲这种情况" not in a.answer, a.answer
    lead = a.answer.split("\n\n")[0].splitlines()
    assert len(lead) == 4 and all(x.startswith("- **客户场景") and "→" in x for x in lead), a.answer


def test_simpler_for_a_non_technical_client_is_words_for_the_customer(tutor):
    a = tutor.ask(BUYER, GAP)
    assert a.act == "simpler" and a.intent == "reality_gap", (a.act, a.intent, a.answer)
    assert a.answer.startswith("**You can explain it to the customer like this**"), a.answer


PRICES = {"zh": "仿真软件一年的授权费大概多少", "en": "how much does an Isaac Sim license cost per year?"}
PROJECT = "做一次现场适配要花多少钱"


def test_a_product_price_or_licence_fee_is_declined(tutor):
    """A product's price or a licence fee is no question about the card, though 仿真 names a card topic: it was answered
    with "the card gives no figures" and the card's cost lines (blind 52 b52-048, b52en-024; dev b21-037)."""
    assert not copied({*PRICES.values(), PROJECT})
    for lang, q in PRICES.items():
        a = tutor.ask(q)
        assert a.refused and a.act == "not_in_card", (lang, a.act, a.answer)
        assert ("产品价格或软件授权费用" in a.answer) if lang == "zh" else ("licence fees" in a.answer), a.answer


def test_a_projects_cost_is_still_answered_around(tutor):
    a = tutor.ask(PROJECT)
    assert not a.refused and a.act == "not_in_card" and "卡片没有给出具体的成本或费用" in a.answer, a.answer
