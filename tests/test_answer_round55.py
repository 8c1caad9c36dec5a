"""Round 55 (issue 14, 17): what readers of blind sets 43-49 marked down on drafts, replies and the methods overview.
The methods overview no longer opens with the card's "no complex formulas needed" (five sets called it filler) and
keeps its count; a draft on a customer's story cites the card scenario on its sources line, thanks the customer and
says the cause is read from their description; a customer who wrote on WeChat gets a message back, not an email;
an English reply to a blame keeps its words under the length cap (b38en-013); a line of two list terms is never
composed (it was no card span, and the check dropped it). Wordings of our own."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from blind_support import copied

from s2r_tutor.answer.card import CardView
from s2r_tutor.answer.generic import build_generic
from s2r_tutor.answer.grounding import Ledger, verify
from s2r_tutor.answer.leads import Leads
from s2r_tutor.errors import AnswerDataError
from s2r_tutor.models import Turn

METHODS = {"zh": "缩小仿真和真机的差距，一般有哪几种做法？", "en": "what are the usual ways to shrink the sim-to-real gap?"}
STORY_DRAFT = {"zh": "客户反馈：“加装了机械臂以后，机器人走路总是往一边偏” 帮我写封回复邮件",
               "en": "A customer emailed: 'since we bolted a gripper arm onto the robot it drifts to one side when walking'. "
                     "Please draft an email reply."}
CHAT_DRAFT = "客户钉钉上说：“新换的深度相机装上以后抓取老是偏” 帮我起草个回复"
BLAME = ("customer: 'every simulation check was green, yet on the line the placement is off by millimetres, so your "
         "algorithm is obviously broken'. how do I answer that without sounding defensive")
FORMS = json.loads(resources.files("s2r_tutor.data").joinpath("forms.json").read_text(encoding="utf-8"))


def test_these_wordings_are_our_own():
    assert not copied({*METHODS.values(), *STORY_DRAFT.values(), CHAT_DRAFT, BLAME})


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_methods_overview_leaves_the_card_s_filler_clause_out_and_keeps_its_count(tutor, lang):
    a = tutor.ask(METHODS[lang])
    assert a.intent == "methods" and not a.refused, (a.act, a.answer)
    assert "复杂公式" not in a.answer and "complex formulas" not in a.answer.lower(), a.answer
    count = {"zh": "可以把常见方法记成四种直观思路", "en": "the common methods can be remembered as four intuitive ideas"}[lang]
    assert a.answer.lower().startswith(count.lower()), a.answer
    names = {"zh": ["域随机化", "系统辨识", "真机微调", "鲁棒策略"],
             "en": ["Domain Randomization", "System Identification", "Real-world Fine-tuning", "Robust Policy"]}[lang]
    assert all(n in a.answer for n in names), a.answer  # the count still binds the whole list
    # the citation still quotes the card exactly (the clause after the filler is a span of it)
    first = a.citations[0]
    assert first.chunk_id == "04-08#methods" and first.quote.startswith("可以把常见方法") and first.quote in first.text


def test_a_filler_clause_the_card_no_longer_opens_with_fails_at_load(tutor):
    card = CardView(tutor.chunks)
    data = json.loads(resources.files("s2r_tutor").joinpath("data/leads.json").read_text("utf-8"))
    data["filler_clauses"] = [{"anchor": "methods", "zh": "不需要先背公式，", "en": "You need no formulas; "}]
    with pytest.raises(AnswerDataError, match="filler_clauses"):
        Leads(card, json.dumps(data, ensure_ascii=False))
    data["filler_clauses"] = [{"anchor": "methods", "zh": "不需要先理解复杂公式，", "en": "No formulas needed; "}]
    with pytest.raises(AnswerDataError, match="English"):
        Leads(card, json.dumps(data, ensure_ascii=False))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_draft_on_a_customer_story_cites_its_scenario_thanks_them_and_hedges_the_cause(tutor, lang):
    a = tutor.ask(STORY_DRAFT[lang])
    frame = FORMS["letter_frame"][lang]
    assert a.act == "customer_reply" and a.answer.startswith(frame["title"]), a.answer
    text, _, sources = a.answer.rpartition(frame["sources"])
    opener = {"zh": "感谢反馈。从您描述的情况看，", "en": "Thanks for letting us know. From what you describe, "}[lang]
    assert opener in text, a.answer
    # the card's payload scenario backs the draft: cited on the sources line, its customer quote not in the text
    scenario = [c.marker for c in a.citations if c.chunk_id == "04-08#scenario-payload"]
    assert scenario and f"[{scenario[0]}]" in sources, a.answer
    assert "→" not in text and not re.search(r"\[\d+\]", text), a.answer


def test_a_customer_who_wrote_on_a_chat_app_gets_a_message_back(tutor):
    a = tutor.ask(CHAT_DRAFT)
    assert a.answer.startswith(FORMS["message_frame"]["zh"]["title"]), a.answer
    assert "如有疑问" not in a.answer, a.answer  # no email closing
    assert any(c.chunk_id == "04-08#scenario-sensors" for c in a.citations), a.answer


def test_an_english_reply_to_a_blame_keeps_its_words_under_the_cap(tutor):
    a = tutor.ask(BLAME)
    assert a.act == "customer_reply", (a.act, a.answer)
    assert a.answer.startswith("**Not necessarily"), a.answer  # the verdict first
    assert "You can explain it to the customer like this" in a.answer, a.answer
    assert len(a.answer) <= 900


def test_the_generic_builder_never_quotes_list_terms_as_a_line(tutor):
    """"为啥仿真里走得好好的 真机一上就摔" scored two terms of the safety reason's list ("摔倒", "极限姿态") and joined
    them into one line, which is no span of the card: the check dropped it (dev b34-009)."""
    safety = next(c for c in tutor.chunks if c.chunk_id == "04-08#why-simulation-safety")
    ledger = Ledger()
    points = build_generic(ledger, [safety], "机器人摔倒和极限姿态为什么要先在仿真里试", "zh")["points"]
    assert points and verify(points, ledger.all(), ledger.framing).dropped == [], points
    assert not re.search(r"摔倒\s+极限姿态", points), points



WHY_AND_CLAIM = "为什么随机化训练条件能让策略更好地迁移？那随机范围是不是拉得越宽越好"
WHAT_AND_CLAIM = "客户现场回传的运行数据能拿来做什么？只要数据够多，真机安全验证是不是就可以不做了"


@pytest.mark.parametrize("question, answer", [(WHY_AND_CLAIM, "减少策略对单一仿真条件的依赖"),
                                              (WHAT_AND_CLAIM, "支持参数校准与真机微调")])
def test_a_content_question_asked_before_a_yes_no_on_a_claim_is_answered_too(tutor, question, answer):
    """The claim's verdict and sentences answer the yes/no; the question asked first in a sentence of its own (why it
    helps, what the data is for) gets its own card sentence after them (blind 49 b49-030, b49-047)."""
    assert not copied({question})
    a = tutor.ask(question)
    assert a.answer.startswith("**不"), a.answer  # the verdict still first
    assert answer in a.answer.split("\n\n")[0], a.answer


def test_the_yes_no_alone_is_still_answered_by_the_claim_alone(tutor):
    a = tutor.ask("随机范围是不是拉得越宽越好")
    assert a.answer.startswith("**不是越大越好。**") and "减少策略对单一仿真条件的依赖" not in a.answer, a.answer


def test_an_example_of_the_process_walks_the_walking_robot_s_six_steps(tutor):
    """An example of the training-to-deployment process is the card's walking robot and its six steps; the general
    loop's chain had kept its place and the steps went under an example's half budget (blind 49 b49-057)."""
    q = "把从仿真训练到上真机的整个过程，用机器人学走路的例子串一遍给我听"
    assert not copied({q})
    a = tutor.ask(q)
    assert a.act == "example" and a.intent == "loop", (a.act, a.intent, a.answer)
    steps = ["建立虚拟机器人本体", "模拟地面、摩擦、重力等环境", "把策略部署到真实机器人并验证"]
    assert all(s in a.answer for s in steps), a.answer
    assert a.answer.index("学习走路") < a.answer.index("建立虚拟机器人本体"), a.answer  # the scene, then its steps
    assert "构建仿真环境 → 大规模训练" not in a.answer, a.answer  # not the general loop they instantiate


HARDWARE = "客户的控制算法在别家平台上一直没事，换到我们的本体上就老摔，他们认定是我们硬件有问题，这个说法站得住吗"
NEW_MODEL = "客户升级成新型号的机器狗，个头大了一圈、电机也不一样了，旧策略一跑就摔，先查哪"


def test_a_customer_blaming_the_hardware_gets_the_verdict_on_it(tutor):
    """"硬件有问题" is the hardware blame too (scenarios.json verdicts.hardware; blind 49 b49-023 got no verdict)."""
    assert not copied({HARDWARE})
    a = tutor.ask(HARDWARE)
    assert a.answer.startswith("**不单纯是硬件问题"), a.answer


def test_a_new_robot_model_with_new_motors_is_checked_as_a_model_change_too(tutor):
    """A new model's motors are part of its new body: the model's check is given, not only the worn-motor check
    (blind 49 b49-059; 新型号 is the model's cue, beside 新款)."""
    assert not copied({NEW_MODEL})
    a = tutor.ask(NEW_MODEL)
    checks = [ln for ln in a.answer.splitlines() if ln.startswith("- 核对")]
    assert any("新机型" in ln for ln in checks), a.answer


def test_a_simpler_wording_asked_for_a_non_technical_customer_gets_words_to_say(tutor):
    """"能再简单点吗，我要跟不懂技术的客户讲" after the reality gap got a bare line that kept the term (blind 49
    b49-012): a simpler wording asked for a customer is the topic's customer words, with the card sentences they
    restate, and no line addressed to our own engineers."""
    history = [Turn(role="user", content="仿真和现实之间的差距具体指什么？"),
               Turn(role="assistant", content="仿真永远只是现实世界的近似，这种差异通常被称为 Reality Gap。")]
    q = "还能再说得通俗点不，我得讲给完全不懂技术的客户听"
    assert not copied({q, history[0].content})
    a = tutor.ask(q, history)
    assert a.act in ("simpler", "customer_reply") and not a.refused, (a.act, a.answer)
    assert a.answer.startswith("**可以这样跟客户解释**"), a.answer
    assert "解决方案人员要知道" not in a.answer and a.citations, a.answer


def test_a_plain_first_question_for_a_customer_still_gets_the_card_s_picture(tutor):
    """Asked on its own ("用大白话…给客户讲", no answer before it), the plain version is the card's walking-robot picture:
    the customer words would bring back the technical summary they rest on (dev b12-011 "别整术语")."""
    q = "说人话，sim2real到底是个啥，我要讲给不懂技术的客户"
    assert not copied({q})
    a = tutor.ask(q)
    assert "学习走路" in a.answer.split("\n\n")[0] and "可以这样跟客户解释" not in a.answer, a.answer
