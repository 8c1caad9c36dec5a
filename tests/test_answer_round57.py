"""Round 57 (issue 14): fixes from what the readers of blind set 50 marked down, now a dev set. Two things the card
lacks asked at once are both named (b50-012); a customer who asks why on-site work is still needed gets words for
the customer that say what that work is for, not the card's customer quote (b50-007); words for a customer asked
in two sentences keep the words (b50en-019); "只记一句" asks for one line (b50-059); a new robot body that "直接跑不起来"
is a complaint, not the claim that nothing needs to change (b50-005); "the widest ranges" tests the claim that more
randomization is better (b50en-010). Wordings of our own."""

from __future__ import annotations

import pytest
from blind_support import copied

from s2r_tutor.answer.grounding import MARKER
from s2r_tutor.models import Turn

BOTH_MISSING = {"zh": "真机微调一般得搞几天？大概要采多少条真实数据？",
                "en": "how many days does real-world fine-tuning take, and how much real data does it need?"}
ON_SITE = {"zh": "客户问：“仿真里全都跑通了，怎么到现场还得调？” 这个怎么解释好",
           "en": "customer asked: 'the sim tests all passed, so why do you still need to tune on site?' how do I explain that?"}
ALGORITHM = "客户那边工程师老跟我吹他们的sim2real算法有多先进，我怎么把话题拉回来"
DEFINED = [Turn(role="user", content="sim2real 这个词具体是指什么呀"), Turn(role="assistant", content="先在仿真里学，再迁移到真机。")]
TWO_SENTENCES = {"zh": "给客户讲这个，两句话怎么说", "en": "how would I put that to a customer in 2 sentences?"}
ONE_LINE = "我只要一句，sim2real 最该记住的是什么"
NEW_BODY = "客户换了一台新本体，原来那套策略直接跑不起来，先查哪些"
HELP_ME = "客户问为啥不先拿真机练，帮我回一下"
WIDEST = "should domain randomization just go with the broadest possible ranges?"


def test_these_wordings_are_our_own():
    assert not copied({*BOTH_MISSING.values(), *ON_SITE.values(), ALGORITHM, DEFINED[0].content,
                       *TWO_SENTENCES.values(), ONE_LINE, NEW_BODY, WIDEST, HELP_ME})


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_two_things_the_card_lacks_are_both_named(tutor, lang):
    a = tutor.ask(BOTH_MISSING[lang])
    first = a.answer.split("\n\n")[0]
    assert a.act == "not_in_card" and not a.refused, (a.act, a.answer)
    if lang == "zh":
        assert "多长时间" in first and "多少真实数据" in first and "也没有给出" in first, first
    else:
        assert "how long" in first and "real data" in first and ", nor " in first, first
    # what the card says of the data (a small amount of it) is among the lines after
    assert any(c.chunk_id == "04-08#real-world-fine-tuning" for c in a.citations), a.answer


def test_one_thing_lacking_is_named_alone(tutor):
    a = tutor.ask("真机微调一般要多少条真实数据")
    first = a.answer.split("\n\n")[0]
    assert a.act == "not_in_card" and "也没有给出" not in first and "多少真实数据" in first, first


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_why_still_work_on_site_gets_words_naming_that_work(tutor, lang):
    a = tutor.ask(ON_SITE[lang])
    assert a.act == "customer_reply" and a.intent == "scenario", (a.act, a.intent, a.answer)
    # words for the customer (after the verdict on the customer's claim, when one is read), never the card's own
    # customer quote; they say what the on-site work is for, and every card sentence they restate is cited
    head = "**可以这样跟客户解释**：“" if lang == "zh" else "**You can explain it to the customer like this**: “"
    words = next((p for p in a.answer.split("\n\n")[:3] if p.startswith(head)), None)
    assert words is not None, a.answer
    assert all(w in words for w in (("校准", "真机微调", "验证") if lang == "zh" else ("calibrat", "fine-tun", "validat"))), words
    assert "客户：“" not in a.answer and "Customer: “" not in a.answer, a.answer
    cited = {c.chunk_id for c in a.citations}
    assert {"04-08#reality-gap", "04-08#solution-engineers", "04-08#related-robot-data", "04-08#why-hard"} <= cited, cited
    assert len(MARKER.sub("", a.answer)) <= 900, len(a.answer)


def test_a_customer_talking_up_an_algorithm_gets_no_on_site_words(tutor):
    a = tutor.ask(ALGORITHM)
    assert not a.refused and "校准参数" not in a.answer, a.answer


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_words_for_a_customer_in_two_sentences_keep_the_words(tutor, lang):
    a = tutor.ask(TWO_SENTENCES[lang], DEFINED)
    assert a.act == "customer_reply" and a.intent == "definition", (a.act, a.intent, a.answer)
    paras = a.answer.split("\n\n")
    assert paras[0].startswith("**可以这样跟客户解释**" if lang == "zh" else "**You can explain it to the customer like this**"), a.answer
    # then the card sentence the words rest on, one cited piece only
    assert len(paras) == 2 and paras[1].count("[") == 1 and a.citations[0].chunk_id == "04-08#summary", a.answer


def test_two_sentences_asked_before_any_verb_is_a_form(tutor):
    forms = tutor._get_answerer().forms
    assert forms.read("两句话帮我回一下客户").sentences == 2
    assert forms.read("这两句话是谁说的").sentences is None


def test_only_one_line_asked_is_one_line(tutor):
    a = tutor.ask(ONE_LINE)
    assert "\n" not in a.answer.strip() and len(a.citations) == 1, a.answer


def test_a_policy_that_will_not_run_on_a_new_body_is_a_complaint_not_a_claim(tutor):
    a = tutor.ask(NEW_BODY)
    assert a.act == "check_first", (a.act, a.answer)
    assert not a.answer.startswith("**不能默认不用动") and a.answer.startswith("**先查这里"), a.answer


def test_the_broadest_ranges_test_the_more_randomization_claim(tutor):
    a = tutor.ask(WIDEST)
    assert a.act == "verdict" and a.answer.startswith("**No"), a.answer
    assert a.citations[0].chunk_id == "04-08#related-domain-randomization", a.answer


def test_help_me_answer_him_asks_for_words(tutor):
    a = tutor.ask(HELP_ME)
    assert a.act == "customer_reply" and a.intent == "why_simulation", (a.act, a.intent, a.answer)


EXPLAIN = "how do I explain sim2real to a customer?"
ROBOT_KIND = {"zh": "sim2real只适用于四足机器人吗", "en": "Is sim2real only for legged robots?", "zh-arm": "机械臂也能用sim2real吗"}


def test_more_wordings_are_our_own():
    assert not copied({EXPLAIN, *ROBOT_KIND.values()})


def test_explaining_the_concept_to_a_customer_is_the_definition_not_a_site_story(tutor):
    """The customer words retrieve the card's section on when to think of Sim2Real with customers; its retrieval prior
    read a customer scenario over the definition the labelled neighbours read (Settings.answer.style_prior_anchors)."""
    a = tutor.ask(EXPLAIN)
    assert a.act == "customer_reply" and a.intent == "definition", (a.act, a.intent, a.answer)
    assert a.citations[0].chunk_id == "04-08#summary", a.answer


@pytest.mark.parametrize("lang", ["zh", "en", "zh-arm"])
def test_only_one_kind_of_robot_is_answered_by_what_the_card_covers(tutor, lang):
    """"Is sim2real only for legged robots?" got reinforcement learning ≠ Sim2Real (en) or 「算，和本体差异有关」 (zh):
    the card speaks of robots in general and names no kind (leads.json claims.robot-kind); "机械臂也能用sim2real吗" got
    「不是。」 over the RL table."""
    a = tutor.ask(ROBOT_KIND[lang])
    assert a.act == "verdict" and not a.refused, (a.act, a.answer)
    first = a.answer.split("\n\n")[0]
    assert ("没有把 Sim2Real 限定在某一类机器人上" in first) if lang != "en" else ("does not limit Sim2Real" in first), a.answer
    assert "≠" not in a.answer and a.citations[0].chunk_id == "04-08#summary", a.answer


STORY_TWO = "客户抱怨仿真里动作很准，到现场精度就差了，帮我回他两句"


def test_a_story_reply_asked_in_two_sentences_keeps_its_words(tutor):
    """The sentence cap took the label off a story's reply, and verification then dropped the reply as unframed: "帮我
    回两句" after a precision story was left with the card's customer quote alone (dev b44-028, once 两句 read as a form)."""
    assert not copied({STORY_TWO})
    a = tutor.ask(STORY_TWO)
    assert a.act == "customer_reply", (a.act, a.answer)
    assert a.answer.startswith("**可以这样跟客户解释**：“"), a.answer
    assert any(c.chunk_id == "04-08#scenario-precision" for c in a.citations), a.answer
