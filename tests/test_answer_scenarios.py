"""Customer stories (issue 14): each act gets its own answer shape (data/rules/scenarios.json
"shapes"), the point first; the matcher's accuracy over the labelled stories is a threshold, not one
phrasing per test; English stories are answered in English."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import assert_table_rejects
from s2r_tutor.answer.focus import Focus
from s2r_tutor.answer.scenario_table import table
from s2r_tutor.answer.scenarios import story_shape
from s2r_tutor.answer.story_match import StoryMatcher, load_stories

ROOT = Path(__file__).resolve().parents[1]
_MARK = re.compile(r"\s*\[\d+\]")


def _shown(text: str) -> str:
    return _MARK.sub("", text)


def test_shapes_are_validated_at_load():
    assert_table_rejects(lambda d: d["shapes"].update(why=["cause", "weather"]),
                         r"scenarios\.json: shapes\.why: unknown block\(s\) \['weather'\]")
    assert_table_rejects(lambda d: d["shapes"].update(gossip=["cause"]), r"shapes: unknown act\(s\) \['gossip'\]")
    assert_table_rejects(lambda d: d["verdicts"][-1].update(cues=["是"]), r"only the last variant")


def test_the_shape_follows_what_the_story_asks():
    t = table()
    assert story_shape(Focus(question="地面很滑老摔，我到现场先查什么？", act="verdict"))[0] == "checks"
    assert story_shape(Focus(question="地面很滑老摔，给客户一个不太技术的解释", act="check_first"))[0] == "customer"
    assert story_shape(Focus(question="仓库灯光暗视觉老失败，有啥办法能缓解？", act="verdict"))[0] == "methods"
    assert story_shape(Focus(question="The robot slips on site. Give me one line for the customer.", act="customer_reply")) == ("one_line",)
    # a blame is answered first, whatever else is asked
    assert story_shape(Focus(question="现场老偏几毫米，客户问是不是我们算法不行，咋回", act="customer_reply"))[:2] == ("verdict", "customer")
    assert t.verdict("客户问是不是我们算法不行").key == "blame"
    assert t.verdict("这个跟sim2real有关系没").key == "gap"
    # a follow-up's act was read from its own words: the earlier story's cue words do not override it
    assert story_shape(Focus(question="为啥背上设备就晃 那先查啥", act="check_first", followup=True))[0] == "checks"


def test_stories_are_not_copied_from_any_dev_or_blind_set():
    asked = set()
    for f in [*ROOT.glob("tests/eval/*.jsonl"), *ROOT.glob("docs/blind*/holdout*.jsonl")]:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                asked.add(json.loads(line)["question"].strip())
    assert asked and not [s.text for s in load_stories() if s.text in asked]


def test_matcher_leave_one_out_over_the_labelled_stories(tutor):
    """Each labelled story matched by all the others (its own vector left out): measured 0.785 for the
    strongest factor and 0.854 for the card scenario when the table was tuned (scripts/story_matcher_eval.py)."""
    m = tutor._get_answerer().stories
    pats = {f.key: f.pattern for f in table().factors}

    def pattern(keys):  # the strongest factor's card scenario: the one an answer names (story10b)
        return pats.get(keys[0]) if keys else None

    first = scen = 0
    n = len(m.stories)
    for i, s in enumerate(m.stories):
        keep = [j for j in range(n) if j != i]
        got = StoryMatcher([m.stories[j] for j in keep], m.vectors[keep], m.t).match(m.vectors[i], s.text)
        first += (got[:1] == list(s.factors[:1])) if s.factors else not got
        scen += pattern(got) == pattern(list(s.factors))
    assert first / n >= 0.75 and scen / n >= 0.82, (first, scen, n)


STORY = "客户给巡检机器狗背了个二十斤的采样箱，空着跑没事，背上以后一走就晃。"


@pytest.mark.parametrize("ask, opens", [
    ("这跟 sim2real 有关系吗？", "**是的"),
    ("我到现场先查什么？", "**先查这里"),
    ("怎么跟客户解释比较好？", "**可以这样跟客户解释"),
    ("有啥办法能缓解？", "**卡片里对应的方法"),
    ("为啥会这样？", "**这是仿真—现实差距"),
])
def test_each_act_opens_with_its_point(tutor, ask, opens):
    a = tutor.ask(STORY + ask)
    assert a.intent == "scenario" and a.answer.startswith(opens), a.answer
    assert any(c.chunk_id.endswith("#scenario-payload") for c in a.citations) or opens.startswith("**可以")
    assert len(_shown(a.answer)) <= 450
    assert "数据是缩小差距的重要依据" not in a.answer  # the old closing line is gone


def test_one_line_for_the_customer_is_the_gap_and_the_story_factor(tutor):
    # one sentence naming the story's own factor (a one-liner that never names the factor is no reply:
    # blind 10; four sentences for "one line for my boss": blind 12 b12-015), then the one card sentence
    # it rests on, nothing else
    a = tutor.ask(STORY + "给我一句话跟客户说。")
    body = _shown(a.answer).strip()
    assert 1 <= len(a.citations) <= 2 and body.count("\n") <= 1 and re.search(r"重量|质心", body), a.answer
    assert body.lstrip("*").startswith("一句话") and "负载" in body.split("\n")[0], a.answer
    en = tutor.ask("The robot dog slips on the customer's waxed floor. Give me one line for the customer.")
    assert len(en.citations) <= 2 and en.answer.strip().count("\n") <= 1 and not re.search(r"[\u3400-\u9fff]", en.answer), en.answer
    assert "friction" in en.answer.lower(), en.answer


def test_english_payload_story_is_english_and_names_the_payload_scenario(tutor):
    a = tutor.ask("At the trade show our humanoid walked empty-handed. The client hung a 12 kg tool bag on it "
                  "and now its gait wobbles. How do I explain this to the client?")
    assert a.language == "en" and not re.search(r"[\u3400-\u9fff]", a.answer), a.answer
    assert any(c.chunk_id.endswith("#scenario-payload") for c in a.citations)
    assert a.answer.startswith("**You can explain it to the customer")
    assert len(_shown(a.answer)) <= 900


def test_a_story_the_card_has_no_scenario_for_says_so(tutor):
    a = tutor.ask("送餐机器人在公司测试间推门很顺，到了客户写字楼就常推不开消防门，是哪类差距？帮我捋一下")
    assert a.intent == "scenario"
    assert not any("#scenario-" in c.chunk_id for c in a.citations), a.answer
    assert "卡片没有专门讲这种情况" in a.answer


def test_words_for_the_customer_are_sayable_to_a_customer(tutor):
    """story10b: the definition, the factor's own card clause for this story, and the engineering-gap span
    without 解决方案人员要知道 (a line addressed to our own engineers), each cited."""
    a = tutor.ask("仓库地面刚做了环氧地坪，我们的巡检机器人在公司走得很稳，到那里就老打滑，怎么跟客户解释？")
    first = a.answer.split("\n\n")[0]
    assert first.startswith("**可以这样跟客户解释") and "解决方案人员要知道" not in a.answer, a.answer
    # story17: a factor story's words end on its factor; the engineering-process span was the padding blind 15's
    # graders named (it stays for a story with no factor of its own)
    # (round 19: the card sentences behind the words are a paragraph of their own, after the card's scenario)
    assert "摩擦系数可能不准确，地面也不一定平整。" in a.answer and "工程化落地过程" not in a.answer, a.answer
    en = tutor.ask("Our robot walked fine in the lab but slips on the customer's waxed floor. What do I tell the customer?")
    assert "Solution engineers need to know" not in en.answer and len(_shown(en.answer)) <= 900, en.answer


def test_a_blame_on_a_precision_story_cites_scenario_4_in_its_point(tutor):
    a = tutor.ask("机械臂压装轴承，仿真里每次都到位，现场总偏一点，客户说是我们算法不行，怎么回？")
    first = a.answer.split("\n\n")[0]
    assert first.startswith("**不一定是算法") and "不能只看算法效果" in first, a.answer


def test_a_story_naming_two_causes_gets_two_factors(tutor):
    a = tutor.ask("客户车间地上有积水，机器人身上还挂了十公斤的工具箱，走两步就打滑摔倒，我先查什么？")
    assert "现场地面的材质" in a.answer and "负载的重量" in a.answer, a.answer
