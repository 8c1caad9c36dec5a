"""Round 27 (issue 14/17, after blind set 25): "the gap is mainly friction, right?" names one source of the
reality gap as its main or only cause; the card lists several, so the answer opens "not just that one" and
gives the list (blind 25 b25-018 got the list with no verdict; "sim2real失败基本都是传感器的锅吧？" got the
sensor-swap walkthrough and 「是的」). The other side ("not only friction, right?") is answered yes.
Wordings of our own: none is in data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations

import pytest

from blind_support import copied

ONE_CAUSE = [("真机和仿真对不上，归根到底就是摩擦没建对吧", "**不只是这一项"),
             ("机器人到现场表现差，大部分都是地面的锅，对不对", "**不只是这一项"),
             ("so the sim-to-real gap is mostly down to friction, right?", "**Not just that one"),
             ("is motor latency the main reason robots fail after leaving the simulator?", "**Not just that one")]
NOT_ONLY = [("仿真现实的差距不光是摩擦吧？", "**是的"), ("the gap isn't just sensor noise, is it?", "**Yes")]
# one factor fixed is enough: still the one-fix claim, not this one
ONE_FIX = ("把地面摩擦标定好就够了吧", "**不够")
# a customer's story that names a factor as the main cause stays a story
STORY = "客户说他们仓库里机器人老摔，主要是地面太滑，是这样吗"


def test_these_wordings_are_our_own():
    assert not copied({*(q for q, _ in ONE_CAUSE), *(q for q, _ in NOT_ONLY), ONE_FIX[0], STORY})


@pytest.mark.parametrize("question,verdict", ONE_CAUSE + NOT_ONLY + [ONE_FIX])
def test_one_source_named_as_the_gaps_cause_is_not_the_whole_gap(tutor, question, verdict):
    a = tutor.ask(question)
    assert a.act == "verdict" and a.answer.startswith(verdict), (a.act, a.answer)
    # the card's list of sources supports it
    assert a.citations[0].chunk_id == "04-08#reality-gap", a.answer


def test_the_claim_reads_only_where_its_cue_is(tutor):
    """The cue names one source as the main one; "主要有哪些来源" (asking the list) is no claim."""
    from s2r_tutor.answer.lexicon import fold

    cue = tutor._get_answerer().leads.claims["one-cause"].cue
    assert cue.search(fold("差距主要是摩擦吧")) and cue.search(fold("it's basically all friction, isn't it?"))
    assert not cue.search(fold("差距主要有哪些来源")) and not cue.search(fold("can I just randomize friction?"))


def test_a_customer_story_naming_a_main_cause_stays_a_story(tutor):
    a = tutor.ask(STORY)
    assert a.intent == "scenario", (a.intent, a.answer)


# an earlier question no phrase rule reads, and the answer it got (the conversation's topic is what was said)
STUMBLES = [{"role": "user", "content": "how come our robot is steady in the simulator and then stumbles on a real floor?"},
            {"role": "assistant", "content": "A simulator only approximates reality: friction, motor delay and sensor noise "
                                             "all differ on the real robot. That difference is the reality gap."}]
TO_A_CLIENT = "how would I put that to a client who isn't technical?"
PRESALES = [{"role": "user", "content": "我们跑项目的一般啥时候该琢磨这个事"},
            {"role": "assistant", "content": "客户那边仿真效果和现场效果差得明显的时候，就该想到它。"}]
ASK_ALGO = "那见了客户要不要先问他们用的啥算法？"


def test_wordings_of_the_said_topic_are_our_own():
    assert not copied({STUMBLES[0]["content"], TO_A_CLIENT, PRESALES[0]["content"], ASK_ALGO})


@pytest.mark.parametrize("history,question,intent,first", [
    (STUMBLES, TO_A_CLIENT, "reality_gap", None),
    (PRESALES, ASK_ALGO, None, "04-08#solution-engineers")])
def test_a_follow_up_of_an_unruled_question_takes_the_topic_its_answer_was_about(tutor, history, question, intent, first):
    from s2r_tutor.answer.intents import rule_scores

    assert not rule_scores(history[0]["content"])  # no phrase rule names the earlier topic: the answer does
    a = tutor.ask(question, history=history)
    # an answer about when to think of Sim2Real makes no customer story of the follow-up (the card's answer to
    # "ask which algorithm?" is its own first line, not "是的，这属于 Reality Gap")
    assert a.intent == intent if intent else a.intent != "scenario", (a.intent, a.answer)
    assert first is None or a.citations[0].chunk_id == first, a.answer
    assert "Sim2Real (Simulation to Reality) can be understood as" not in a.answer, a.answer


# a customer who thinks moving a policy to another robot is a software install (nothing has failed yet)
INSTALL = [("客户打算把我们调好的步态策略刷到他们自研的机器人上，关节和电机都不一样，他们说不过是装个软件，靠谱吗", "**不能默认不用动"),
           ("the client plans to move our trained gait onto their own robot with other actuators and says it's "
            "a simple software update. does that hold up?", "**You cannot assume nothing needs to change")]


def test_wordings_of_the_install_stories_are_our_own():
    assert not copied({q for q, _ in INSTALL})


@pytest.mark.parametrize("question,verdict", INSTALL)
def test_a_port_called_a_software_install_is_answered_with_the_body_differences(tutor, question, verdict):
    a = tutor.ask(question)
    assert a.answer.startswith(verdict), a.answer
    # the card's sentence on the same algorithm on another body, not "not a problem of the algorithm"
    assert "04-08#physical-system" in [c.chunk_id for c in a.citations[:2]], a.answer


# examples of what customers say, after a turn on when to think of Sim2Real: the card's customer scenarios
CUSTOMER_WORDS = "客户嘴里会是什么说法？举几个听了就该警觉的例子"


def test_examples_of_customer_words_are_the_cards_customer_scenarios(tutor):
    assert not copied({CUSTOMER_WORDS})
    a = tutor.ask(CUSTOMER_WORDS, history=PRESALES)
    assert a.act == "example", (a.act, a.answer)
    assert [c.chunk_id for c in a.citations[:2]] == ["04-08#scenario-factory-floor", "04-08#scenario-payload"], a.answer


# why the loop has an on-site step, after a turn that gave the loop
LOOP_TURN = [{"role": "user", "content": "从仿真到上线一般分几步"},
             {"role": "assistant", "content": "构建仿真环境 → 大规模训练 → 仿真验证 → 迁移到真实机器人 → 现场适配 → 真实部署。"}]
WHY_ON_SITE = "仿真里都验证过了，干嘛还要去现场再适配一轮"


def test_why_the_loop_has_an_on_site_step_is_that_reality_cannot_be_fully_simulated(tutor):
    assert not copied({WHY_ON_SITE, LOOP_TURN[0]["content"]})
    a = tutor.ask(WHY_ON_SITE, history=LOOP_TURN)
    assert a.citations[0].chunk_id == "04-08#why-hard", a.answer
    assert not a.answer.startswith("客户："), a.answer


# the rest of a list asked with no topic word at all (round 26 needed one: "其余的好处呢")
COST_SAFETY = [{"role": "user", "content": "为啥大家都先在虚拟环境里练机器人"},
               {"role": "assistant", "content": "省钱，真机练坏了修起来贵；也更安全，虚拟的摔了不会伤到人。"}]


@pytest.mark.parametrize("question", ["剩下那两条是啥", "另外两个呢？"])
def test_the_rest_of_a_list_needs_no_topic_word(tutor, question):
    assert not copied({question, COST_SAFETY[0]["content"]})
    a = tutor.ask(question, history=COST_SAFETY)
    assert not a.refused and a.act == "overview", (a.act, a.answer)
    assert {c.chunk_id for c in a.citations} >= {"04-08#why-simulation-scale", "04-08#why-simulation-control"}, a.answer
    assert not any(x in a.answer for x in ("真实机器人训练成本高", "危险动作不能在真机上无限尝试")), a.answer


def test_when_to_bring_up_sim2real_is_the_engineers_own_criterion_not_a_customer_script(tutor):
    """Six labelled rows (act how, topic scenario): "when should I raise it with a customer" read the customer
    reply and gave a script to recite (blind 25 b25en-015)."""
    question = "at which moment in talks with a client is sim2real worth mentioning?"
    assert not copied({question})
    a = tutor.ask(question)
    assert a.citations[0].chunk_id == "04-08#solution-engineers", a.answer
    assert "explain it to the customer like this" not in a.answer, a.answer


# After blind set 26 (then dev): how to judge whether a customer's problem is Sim2Real's, typical customer
# complaints, a customer line after a world-model turn, "just collect data?" in a story, "opposite approaches?"
JUDGE = ["客户项目到底算不算sim2real的问题，我该怎么判断",
         "how do I tell if a prospect's issue is a sim2real one?"]
# round 27: the customer words outvoted the cue (the labelled customer replies were nearer than any criterion row)
JUDGE_MISSED = ["见客户的时候，我怎么判断他们的问题属不属于仿真到现实这一类",
                "what should make me suspect a customer's problem is really a sim-to-real one?"]
TYPICAL = "客户一般会怎么抱怨这种问题？举几个典型的"
WM_TURN = [{"role": "user", "content": "世界模型和仿真到真机是一码事吗"},
           {"role": "assistant", "content": "不是一码事：世界模型管预测动作的结果，Sim2Real 管仿真里学到的本事到现实里还灵不灵。"}]
WM_FOR_CUSTOMER = "跟客户用一句话怎么讲清它俩的不同"
# "对客户…说明白" is read by a phrase rule as a customer-story topic of its own, so the world model is not inherited
WM_FOR_CUSTOMER_MISSED = "那对客户该怎么一句话说明白两者差别"
JUST_DATA = [("仓库地面油滑，仿真里没有这种地面，机器人老打滑。是不是多采点现场数据就行了？", "**光靠采数据不够"),
             ("the site has gravel paths our sim never had and the robot trips a lot. so we just collect a ton of "
              "field data and that's enough, right?", "**Collecting data alone is not enough")]
OPPOSITE = [("域随机化和系统辨识是不是思路正好相反", "不是对立的"),
            ("are system identification and domain randomization basically opposite ideas?", "Not opposites")]


def test_wordings_after_blind_26_are_our_own():
    assert not copied({*JUDGE, *JUDGE_MISSED, TYPICAL, WM_TURN[0]["content"], WM_FOR_CUSTOMER, WM_FOR_CUSTOMER_MISSED, *(q for q, _ in JUST_DATA),
                       *(q for q, _ in OPPOSITE)})


# JUDGE_MISSED passes since round 28: a reply needs words for the customer (act_cues.json `needs`)
@pytest.mark.parametrize("question", JUDGE + JUDGE_MISSED)
def test_how_to_judge_a_customers_problem_is_the_engineers_criterion(tutor, question):
    a = tutor.ask(question)
    assert a.act == "check_first" and a.citations[0].chunk_id == "04-08#solution-engineers", (a.act, a.answer)
    assert "跟客户解释" not in a.answer and "explain it to the customer" not in a.answer, a.answer


def test_typical_customer_complaints_are_the_cards_customer_quotes(tutor):
    a = tutor.ask(TYPICAL)
    assert a.act == "example" and a.citations[0].chunk_id.startswith("04-08#scenario-"), (a.act, a.answer)


# (round 37: "对客户…说" is no longer read as the customer saying something, so the world model is inherited)
@pytest.mark.parametrize("question", [WM_FOR_CUSTOMER, WM_FOR_CUSTOMER_MISSED])
def test_a_customer_line_after_a_world_model_turn_is_the_world_models_own(tutor, question):
    a = tutor.ask(question, history=WM_TURN)
    assert "世界模型关注" in a.answer and "同一套算法" not in a.answer, a.answer


@pytest.mark.parametrize("question,verdict", JUST_DATA)
def test_just_collecting_site_data_is_not_the_whole_fix(tutor, question, verdict):
    a = tutor.ask(question)
    assert a.answer.startswith(verdict), a.answer
    assert a.citations[0].chunk_id == "04-08#related-robot-data", a.answer


@pytest.mark.parametrize("question,verdict", OPPOSITE)
def test_two_methods_asked_if_opposite_are_not(tutor, question, verdict):
    a = tutor.ask(question)
    assert a.act == "compare" and verdict in a.answer.split("\n")[0], (a.act, a.answer)
