"""Round 22 (issue 14, after blind set 20): two misconceptions the card corrects in one word ("fine-tuning
needs a huge real dataset": the card says a small amount; "a robust policy copes with any environment": the
card says a certain degree) are answered with the verdict first, read from labelled questions (acts.jsonl
claims finetune-much, robust-anything); a question about one related concept is answered by that concept,
not by the list of all three and the card's roadmap; a lead sentence is not said again as an item of a
body line. Then: the labelled yes/no questions about RL carry the claim they test (only-for-RL, the same
thing, where RL trains); a follow-up that names its own topic does not take the earlier topic's claim; a
customer reply gets a verdict line only when a yes/no question is asked (or quoted); world models against
language models and a robot's battery life are out of scope. Wordings of our own: none is in
data/acts.jsonl or a docs/blind* set (checked below)."""

from __future__ import annotations


import pytest

from blind_support import copied

# (question, the verdict line it opens with, the card section that decides it)
MISCONCEPTIONS = [
    ("真机微调得收集成千上万条真实数据吧", "**不用大量", "real-world-fine-tuning"),
    ("real-world fine-tuning only works with a massive real dataset, right?", "**Not a large amount",
     "real-world-fine-tuning"),
    ("有了鲁棒策略，换到什么工况都没问题了吧", "**不是什么环境都能扛", "robust-policy"),
    ("a robust policy makes the robot immune to any change in conditions, right?", "**No, not every environment",
     "robust-policy"),
]
# one related concept asked about: its own lines, no list heading, no roadmap of other cards
ONE_CONCEPT = [("现场回传的运行数据能帮上什么忙", "related-robot-data"),
               ("what is robot operating data good for in sim2real?", "related-robot-data")]
ROADMAP = ("04-04", "什么是机器人本体", "What is a robot body")
EXAMPLE = "给我举个例子，说明强化学习和sim2real怎么配合"
# (question, the verdict line it opens with, or None: no verdict line)
RL_VERDICTS = [("Sim2Real 是不是非得配合强化学习才能用", "**不是。**"),
               ("if a team doesn't do reinforcement learning, is sim2real irrelevant to them?", "**No, not only for RL"),
               ("客户问“sim2real 说白了就是强化学习吧？”我该怎么回", "**不是一回事。**"),
               ("客户想知道 RL 和 Sim2Real 分别负责什么，我该怎么介绍", None)]
RL_TURN = [{"role": "user", "content": "强化学习跟 Sim2Real 有啥关系"},
           {"role": "assistant", "content": "强化学习常在仿真里训练，再通过 Sim2Real 部署到真机；两者解决不同的问题。"}]
WORLD_MODEL_AFTER_RL = "那世界模型跟它又是啥关系"
DEFINE = ["sim2real 这个概念到底指的是啥，跟我说说", "so what does sim2real actually refer to?"]
# after blind 21 (measured, then dev): a ranking asked of the methods the answer before listed, in a few words
METHODS_TURN = {"zh": [{"role": "user", "content": "缩小仿真和现实差距的方法有哪些"},
                       {"role": "assistant", "content": "卡片给了四种：域随机化、系统辨识、真机微调、鲁棒策略。"}],
                "en": [{"role": "user", "content": "what are the ways to close the sim-to-real gap"},
                       {"role": "assistant", "content": "Four: domain randomization, system identification, "
                                                        "real-world fine-tuning and robust policy."}]}
RANK_FOLLOWUPS = [("zh", "哪个效果最好？", "卡片没有给这几种方法排优劣"),
                  ("en", "which of them is best?", "The card does not rank these methods")]
HEADING_ASK = "「可控」這一條到底指啥？"
OUT_OF_SCOPE = ["大语言模型算不算世界模型", "冬天户外巡检机器人电量掉得飞快，怎么办",
                "how long does a humanoid's battery last on one charge?"]


def test_these_wordings_are_our_own():
    mine = {q for q, _, _ in MISCONCEPTIONS} | {q for q, _ in ONE_CONCEPT} | {EXAMPLE} | {q for q, _ in RL_VERDICTS} \
        | {WORLD_MODEL_AFTER_RL} | set(OUT_OF_SCOPE) | set(DEFINE) | {q for _, q, _ in RANK_FOLLOWUPS} | {HEADING_ASK}
    assert not copied(mine)


@pytest.mark.parametrize("question,verdict,section", MISCONCEPTIONS)
def test_a_misconception_gets_its_verdict_first_and_the_sentence_that_decides_it(tutor, question, verdict, section):
    a = tutor.ask(question)
    assert not a.refused and a.act == "verdict", a.answer
    assert a.answer.startswith(verdict), a.answer
    assert a.citations[0].chunk_id == f"04-08#{section}", [c.chunk_id for c in a.citations]


@pytest.mark.parametrize("question,section", ONE_CONCEPT)
def test_one_related_concept_is_answered_by_that_concept_alone(tutor, question, section):
    a = tutor.ask(question)
    assert not a.refused and a.citations[0].chunk_id == f"04-08#{section}", a.answer
    assert not any(x in a.answer for x in ROADMAP), a.answer
    assert "相关的概念" not in a.answer and "Concepts related" not in a.answer, a.answer


def test_asked_for_the_related_concepts_the_list_and_the_roadmap_stay(tutor):
    a = tutor.ask("和 Sim2Real 相关的概念都有哪些？")
    cited = {c.chunk_id for c in a.citations}
    assert {"04-08#related-simulation", "04-08#related-domain-randomization", "04-08#related-robot-data"} <= cited
    assert "04-04" in a.answer and "和 Sim2Real 相关的概念" in a.answer, a.answer


def test_a_lead_sentence_is_not_said_again_as_an_item_of_a_body_line(tutor):
    a = tutor.ask(EXAMPLE)
    assert a.answer.count("经常先在仿真中训练") == 1, a.answer
    assert "可以在仿真或真实环境中训练" in a.answer  # the row keeps its other items


@pytest.mark.parametrize("question,verdict", RL_VERDICTS)
def test_an_rl_claim_gets_its_own_verdict_and_a_reply_only_to_a_yes_no_question(tutor, question, verdict):
    a = tutor.ask(question)
    assert not a.refused and a.citations[0].chunk_id == "04-08#rl-vs-sim2real", a.answer
    if verdict is None:
        assert not a.answer.startswith("**"), a.answer  # no verdict line before the card's sentence
    else:
        assert a.answer.startswith(verdict), a.answer


def test_a_follow_up_naming_its_own_topic_does_not_take_the_earlier_topics_claim(tutor):
    a = tutor.ask(WORLD_MODEL_AFTER_RL, RL_TURN)
    assert a.citations[0].chunk_id == "04-08#physical-system", a.answer
    assert a.answer.startswith("世界模型"), a.answer


@pytest.mark.parametrize("question", OUT_OF_SCOPE)
def test_world_models_against_language_models_and_battery_life_are_out_of_scope(tutor, question):
    a = tutor.ask(question)
    assert a.refused, a.answer


@pytest.mark.parametrize("question", DEFINE)
def test_a_definition_does_not_restate_itself_with_the_cards_subtitle(tutor, question):
    a = tutor.ask(question)
    assert a.citations[0].chunk_id == "04-08#summary", a.answer
    assert "04-08#intro" not in {c.chunk_id for c in a.citations}, a.answer
    assert "卡片导语" not in a.answer and "The card's lead" not in a.answer, a.answer


@pytest.mark.parametrize("lang,question,opening", RANK_FOLLOWUPS)
def test_a_ranking_asked_of_the_methods_just_listed_is_answered_unranked(tutor, lang, question, opening):
    a = tutor.ask(question, METHODS_TURN[lang])
    assert not a.refused, a.answer
    assert a.answer.startswith(opening), a.answer
    cited = {c.chunk_id.removeprefix("04-08#").removeprefix("related-") for c in a.citations}
    assert {"domain-randomization", "system-identification", "real-world-fine-tuning", "robust-policy"} <= cited


def test_a_question_about_a_cards_own_heading_is_answered(tutor):
    a = tutor.ask(HEADING_ASK)  # traditional characters; 可控 is the card's heading D, not control theory
    assert not a.refused and a.citations[0].chunk_id == "04-08#why-simulation-control", a.answer
