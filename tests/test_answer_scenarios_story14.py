"""Story answers, round 14 (blind 12 as a dev set): a told story the act reader reads as a topic (one
unit of a batch falls more, joints worn after a year) is answered as a customer story, not with the
"software only?" verdict 不是; general questions labelled story_kind "question" keep a question that
merely uses a symptom word off the story path; short English factor cues are whole words ("icy" is not
in "policy"); a customer reply that tells no story, and a cause the card does not list, open with the
walkthrough's own block, never with a stray best-scoring sentence or a closest-section tail. Phrasings
are written for this file, not taken from any dev or blind set."""

from __future__ import annotations

import re

import pytest

from s2r_tutor.answer.lexicon import fold
from s2r_tutor.answer.scenario_table import table
from s2r_tutor.answer.story_match import load_stories
from s2r_tutor.errors import AnswerDataError

_MARK = re.compile(r"\s*\[\d+\]")


def _shown(a) -> str:
    return _MARK.sub("", a.answer).replace("**", "")


@pytest.mark.parametrize("q", [
    "我们给客户发了八台一样的机械臂，其中一台抓取总是偏几毫米，程序都是同一个，这属于sim2real吗",
    "Of the six identical quadrupeds we shipped, just one keeps stumbling; all run the same build. Is this a sim-to-real issue?",
])
def test_one_unit_of_a_batch_is_a_story_not_no(tutor, q):
    a = tutor.ask(q)
    assert a.intent == "scenario"
    assert not re.match(r"\**(不是|No\b)", a.answer)
    assert any("#reality-gap" in c.chunk_id for c in a.citations)


def test_worn_joints_are_a_story_citing_backlash(tutor):
    a = tutor.ask("机器狗用了一年多，腿上关节松了，步态没以前稳，跟仿真到现实有关系吗")
    assert a.intent == "scenario"
    assert "关节间隙" in _shown(a).split("\n\n")[0]


def test_a_general_question_with_a_symptom_word_stays_a_topic(tutor):
    a = tutor.ask("为什么仿真里训练的策略一到真机上就容易摔")
    assert a.intent != "scenario"


def test_story_share_separates_stories_from_general_questions(tutor):
    answerer = tutor._get_answerer()
    emb = tutor.embedder
    from s2r_tutor.retrieval.glossary import expand_query
    story, general = emb.embed_queries([expand_query("客户那批十台机器人里就一台老摔，软件一模一样"),
                                        expand_query("换一个型号的机器人，原来训练好的策略为什么就不能用了")])
    share = table().story_share
    assert answerer.stories.story_share(story) >= share > answerer.stories.story_share(general)


def test_general_question_rows_name_no_factor():
    bad = '{"story": "为什么仿真里好好的真机不行", "factors": ["ground"], "story_kind": "question"}\n'
    with pytest.raises(AnswerDataError, match="names no factor"):
        load_stories(bad)
    with pytest.raises(AnswerDataError, match="story_kind"):
        load_stories('{"story": "x", "factors": [], "story_kind": "maybe"}\n')
    assert load_stories('{"story": "为什么仿真里好好的真机不行", "factors": [], "story_kind": "question"}\n')[0].question


@pytest.mark.parametrize("text", ["the policy drifts", "a hostile crowd", "the strip of tape", "cheat sheet"])
def test_short_english_cues_are_whole_words(text):
    assert not [f.key for f in table().factors if f.key in ("ground", "environment") and f.cues.search(fold(text))]


def test_icy_floor_still_reads_as_ground():
    assert table().factor("ground").cues.search(fold("the loading dock gets icy in the morning"))


def test_storyless_customer_reply_opens_with_the_words_for_the_customer(tutor):
    text = _shown(tutor.ask("客户的技术总监问我们仿真里的测试结论在他们工厂还能不能作数，我该怎么回答"))
    assert text.startswith("可以这样跟客户解释")
    assert "最贴近的一节" not in text and "客户场景" not in text


def test_uncovered_cause_opens_with_its_note(tutor):
    text = _shown(tutor.ask("The customer keeps the robot running around the clock; after a few hours it gets jerky and after a cooldown it is fine again. Why?"))
    assert text.startswith("The card does not mention temperature")
    assert "Customer scenario" not in text.split("\n")[0]


def test_wear_story_answers_partly_then_backlash(tutor):
    # no symptom word of the intent list ("踉跄", "旷了" are the gait and wear words): still a story
    a = tutor.ask("巡检狗交付一年多了，最近偶尔踉跄，检修说膝盖那里有点旷了，这和仿真到现实的差距有关吗")
    assert a.intent == "scenario"
    first = _shown(a).split("\n", 1)[0]
    assert first.startswith("部分有关") and not first.startswith("不是")
    assert "关节间隙" in _shown(a)


@pytest.mark.parametrize("q,blame", [
    ("我们怀疑是编码器信号有延迟，这和仿真到现实的差距有关吗", False),
    ("客户怀疑是我们上周推的软件版本把步态搞坏了", True),
    ("客户一口咬定怀疑你们模型训得有问题", True),
])
def test_suspecting_is_blame_only_when_the_software_is_suspected(q, blame):
    assert (table().verdict(q).key == "blame") is blame
