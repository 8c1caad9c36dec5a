"""What the answers say: key card phrases per intent in zh and en, the RL table, scenario
walkthroughs, language, rendering, and template validation."""

from __future__ import annotations

import time
from pathlib import Path

import re

import pytest

from s2r_tutor.answer import render_text
from s2r_tutor.answer.templates import Templates
from s2r_tutor.errors import TemplateError
from s2r_tutor.evaluation.metrics import chinese_share
from s2r_tutor.settings import PROJECT_ROOT

# (question, intent, phrases that must appear in the answer)
PER_INTENT = [
    ("什么是Sim2Real", "definition", ["Simulation to Reality", "迁移到真实机器人"]),
    ("What is Sim2Real?", "definition", ["Simulation to Reality", "迁移到真实机器人"]),
    ("为什么要先在仿真里训练？", "why_simulation", ["设备磨损", "人员安全", "并行训练", "噪声"]),
    ("Why train in simulation instead of on the real robot?", "why_simulation", ["A · Cost", "设备会磨损", "并行运行"]),
    ("从仿真训练到真实部署的流程", "loop", ["构建仿真环境", "现场适配", "真实部署"]),
    ("What are the steps from simulation to deployment?", "loop", ["大规模训练", "真实部署"]),
    ("为什么仿真里会走，真实机器人却可能不会？", "reality_gap", ["摩擦系数", "响应延迟", "Reality Gap"]),
    ("What causes the reality gap?", "reality_gap", ["摩擦系数", "传感器会有噪声", "近似"]),
    ("Sim2Real 怎么缩小差距？", "methods", ["域随机化", "系统辨识", "真机微调", "鲁棒策略"]),
    ("How do you close the sim-to-real gap?", "methods", ["Domain Randomization", "System Identification",
                                                          "Real-world Fine-tuning", "Robust Policy"]),
    ("Sim2Real 只是一个软件问题吗？", "physical_system", ["不是", "减速器", "越不准确"]),
    ("Is sim2real just a software problem?", "physical_system", ["不是", "电机性能"]),
    ("为什么 Sim2Real 很难？", "why_hard", ["真实世界无法被完全模拟", "真机验证仍然不可避免"]),
    ("Why is Sim2Real hard?", "why_hard", ["本体参数存在误差", "完美复制品"]),
    ("帮我快速记忆 Sim2Real", "quick_memory", ["Simulation", "Reality Gap", "Adaptation", "Deployment"]),
    ("sim2real key takeaways", "quick_memory", ["Deployment", "经得住真实世界验证"]),
    ("Sim2Real 有哪些相关概念？", "related", ["04-04", "04-07", "单一仿真条件"]),
    ("What concepts are related to Sim2Real?", "related", ["04-06", "Robot data"]),
    ("强化学习和 Sim2Real 有什么区别？", "rl_vs_sim2real", ["强化学习 ≠ Sim2Real"]),
    ("How is RL different from Sim2Real?", "rl_vs_sim2real", ["强化学习 ≠ Sim2Real", "服务的不只限于强化学习"]),
]


@pytest.mark.parametrize("question,intent,phrases", PER_INTENT, ids=[q for q, _, _ in PER_INTENT])
def test_intent_answers_in_both_languages(tutor, question, intent, phrases):
    answer = tutor.ask(question)
    assert answer.intent == intent and not answer.refused
    assert answer.language == ("en" if question.isascii() else "zh")
    # An English answer shows the aligned English (issue 17); the card's Chinese it renders is in
    # the citations' quotes, so the key phrases are looked for there.
    shown = answer.answer + " " + " ".join(c.quote for c in answer.citations if answer.language == "en")
    if answer.language == "zh":
        for p in phrases:
            assert p in shown, p
    else:  # the aligned English runs ~2.8x the Chinese: the 900-character cap leaves some lines to the sources
        assert sum(p in shown for p in phrases) * 2 >= len(phrases), phrases
    assert len(re.sub(r"\s*\[\d+\]", "", answer.answer)) <= 900
    if answer.language == "en":
        assert chinese_share(answer.answer) <= 0.25
    assert answer.followups and all(f != question for f in answer.followups)
    assert answer.backend == "template"


@pytest.mark.parametrize("question", ["强化学习和 Sim2Real 有什么区别？", "What's the difference between RL and sim2real?"])
def test_rl_table_every_cell_cited_and_bottom_line(tutor, question):
    answer = tutor.ask(question)
    rows = [ln for ln in answer.answer.splitlines() if ln.startswith("|")]
    if answer.language == "en" and not rows:
        # the table's aligned English runs past the 900-character cap: the difference leads, the table
        # stays in the sources
        assert "≠" in answer.answer.split("\n\n")[0] and len(re.sub(r"\s*\[\d+\]", "", answer.answer)) <= 900
        return
    assert len(rows) == 5  # header, separator, the card's three bullets a side (round 39)
    for row in rows[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 3 and all("[" in c for c in cells[1:]), row
    lead = answer.answer.split(rows[0])[0]
    assert "≠" in lead  # the difference leads, before the table ("强化学习 ≠ Sim2Real", in either language)
    shown = answer.answer if answer.language == "zh" else " ".join(c.quote for c in answer.citations)
    assert "可以在仿真或真实环境中训练" in shown


# The per-phrase scenario list was replaced in issue 14 by threshold tests over the eval sets
# (tests/test_rules_data.py): story -> gap factors is read from labelled stories, not cue lists.


@pytest.mark.parametrize("question,history", [
    ("除了省钱，还有别的好处吗", [{"role": "user", "content": "为什么要先在仿真里训练？"}]),
    ("Besides cost, what other benefits does simulation have?", []),
])
def test_besides_one_aspect_gives_the_others(tutor, question, history):
    """"Besides X" asks for the rest of the list: X neither leads nor is cited (the lead is chosen by
    score, which alone would pick the named aspect)."""
    cited = {c.chunk_id for c in tutor.ask(question, history).citations}
    assert "04-08#why-simulation-cost" not in cited
    others = {"04-08#why-simulation-safety", "04-08#why-simulation-scale", "04-08#why-simulation-control"}
    assert len(others & cited) >= (3 if history else 2)  # English runs longer: one may be left to the sources


def test_a_chain_of_followups_keeps_its_topic(tutor):
    turns = [{"role": "user", "content": "Sim2Real 怎么缩小差距？"}, {"role": "assistant", "content": "..."},
             {"role": "user", "content": "再具体说说第二种方法"}, {"role": "assistant", "content": "..."}]
    answer = tutor.ask("为什么？", turns)
    assert answer.intent == "methods"
    assert "04-08#system-identification" in {c.chunk_id for c in answer.citations}


def test_english_question_gets_english_framing_and_chinese_quotes(tutor):
    answer = tutor.ask("Why is Sim2Real hard?")
    assert answer.language == "en"
    assert "The card gives these reasons" in answer.answer
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in c.quote) for c in answer.citations)
    assert all(f.isascii() for f in answer.followups)


def test_render_text_lists_numbered_sources(tutor):
    answer = tutor.ask("什么是 Sim2Real？")
    out = render_text(answer)
    assert out.startswith(answer.answer)
    for c in answer.citations:
        assert f"[{c.marker}] {c.section}" in out
    assert "接下来可以问" in out


def test_warm_ask_overhead_is_small(tutor):
    """Everything but the one query embedding (timed separately) stays in single-digit ms."""
    questions = ["什么是 Sim2Real？", "换了新电机以后动作变慢", "强化学习和 Sim2Real 有什么区别？", "Why is Sim2Real hard?"]
    for q in questions:
        tutor.ask(q)
    over = []
    for q in questions * 3:
        t0 = time.perf_counter()
        tutor.ask(q)
        total = time.perf_counter() - t0
        t0 = time.perf_counter()
        tutor.retriever.rank(q, tutor.settings.answer_top_k)
        over.append(total - (time.perf_counter() - t0))
    assert sorted(over)[len(over) // 2] < 0.05


def test_templates_are_validated_at_load(tmp_path: Path):
    Templates(PROJECT_ROOT / "prompts")  # the shipped ones load
    for f in (PROJECT_ROOT / "prompts").glob("*.md"):
        (tmp_path / f.name).write_text(f.read_text("utf-8"), "utf-8")
    (tmp_path / "why_hard.en.md").write_text("**Why?**\n\n$points\n\n$secret_instructions\n", "utf-8")
    with pytest.raises(TemplateError, match="secret_instructions"):
        Templates(tmp_path)
    (tmp_path / "why_hard.en.md").unlink()
    with pytest.raises(TemplateError, match="why_hard.en.md"):
        Templates(tmp_path)


@pytest.mark.parametrize("question,tag", [
    ("客户说机器人在实验室走得好好的，到了工厂就老摔，怎么回事？", "地面 / 摩擦"),
    ("the robot does fine in our lab but keeps falling at the customer's plant", "friction"),
])
def test_a_story_that_names_only_the_place_gets_the_scenarios_tagged_factor(tutor, question, tag):
    """A complaint that names no factor but resembles the card's lab-to-factory scenario gets the factor
    the card tags that scenario with (地面 / 摩擦), not every factor."""
    a = tutor.ask(question)
    assert a.intent == "scenario" and tag in a.answer
    assert "传感器" not in a.answer.split("[")[0] and "payload" not in a.answer


@pytest.mark.parametrize("lang_question, label", [
    ("数据攒够了是不是就不用在真机上做安全验证了", "**和你的问题最贴近的一节**"),
    ("Once we have plenty of field logs, is the real-robot safety check still needed?", "**The section closest to your question**"),
])
def test_the_top_ranked_section_always_speaks(tutor, lang_question, label):
    """When the intent's builder leaves out the section search ranks first (a wrong intent on an unseen
    phrasing), that section still speaks, cited: its sentence closest to the question leads (the lead is
    scored over the top-ranked sections, issue 14), or it is added under the label."""
    from s2r_tutor.answer.answerer import Answerer
    from s2r_tutor.answer.compose import Focus
    from s2r_tutor.models import Intent

    answerer = Answerer(tutor)
    lang = "zh" if label.startswith("**和") else "en"
    plan = answerer.plan(lang_question, [])
    top = tutor.chunks[plan.ranked[0].idx]
    assert top.anchor == "related-robot-data"
    plan.intent, plan.focus = Intent.why_simulation, Focus(question=lang_question)  # a builder that never cites it
    plan.act, plan.reading = "define", None  # and no lead sentence from the act
    text, citations = answerer.compose(plan, lang)
    by_id = {c.chunk_id: c for c in citations}
    assert top.chunk_id in by_id
    assert label in text or by_id[top.chunk_id].marker == 1  # it leads, or it is added under the label
    assert "真机安全验证仍然不可省略" in by_id[top.chunk_id].quote
    if label in text:
        assert text.index(label) > text.index("A · ")  # after the intent's own answer, not instead of it
    # a follow-up that singles out part of the material keeps the builder's choice alone (a part named
    # only in passing does not: it no longer filters the lead, issue 14 round 2)
    plan.focus = Focus(anchors={"why-simulation-safety"}, question=lang_question)
    plan.previous_answer = "..."
    text, citations = answerer.compose(plan, lang)
    assert label not in text and top.chunk_id not in {c.chunk_id for c in citations}
