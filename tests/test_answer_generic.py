"""The corpus-derived scope vocabulary (answer/vocab.py) and the card-agnostic answer path
(answer/generic.py), on the real corpus. The two-card corpus is covered by test_eval_multicard.py."""

from __future__ import annotations

import pytest

from s2r_tutor.answer import Answerer
from s2r_tutor.answer.generic import build_generic, lexical_scores
from s2r_tutor.answer.grounding import Ledger, verify
from s2r_tutor.answer.vocab import CorpusVocab
from s2r_tutor.models import Chunk


@pytest.fixture(scope="module")
def answerer(tutor) -> Answerer:
    return Answerer(tutor)


@pytest.mark.parametrize("question", [
    "交付以后机器人回传的运行数据，对后续改进有啥用",  # a phrase of the card (运行数据)
    "关节间隙、电机延迟这些，方针里能模拟准吗",        # 关节间隙, although 仿真 is misspelt
])
def test_a_phrase_of_the_card_is_enough(answerer, question):
    ev = answerer.vocab.evidence(question)
    assert ev.phrases and ev.strength == 2
    assert not answerer.tutor.ask(question).refused


def test_everyday_words_alone_are_not_enough(answerer):
    assert answerer.vocab.evidence("深度学习训练要多少数据").strength < 2  # 训练, 数据: no robot, no card phrase
    assert answerer.vocab.evidence("电机坏了怎么修").strength == 0
    assert answerer.vocab.evidence("we're porting the same controller from our quadruped to a new model "
                                   "with stronger motors").strength == 2  # 策略 + 电机, about a robot


def test_vocabulary_comes_from_the_chunks_given():
    card = Chunk(chunk_id="77-01#intro", doc_id="77-01", title="什么是潮汐调度？", section="潮汐调度", anchor="intro",
                 text="潮汐调度（Tidal Dispatch）让叉车按涨落周期错峰补货。", source="77-01.md", line_start=1, line_end=2)
    vocab = CorpusVocab([card])
    assert vocab.evidence("潮汐调度是什么").phrases == ["潮汐调度"]
    assert "dispatch" in vocab.en_words
    assert vocab.evidence("今天天气怎么样").strength == 0


def test_generic_answer_is_cited_spans_of_the_top_card(answerer, tutor):
    question = "仿真和现实的差距来自哪里"
    ranked = tutor.retriever.rank(question, tutor.settings.answer_top_k)
    chunks = [tutor.chunks[r.idx] for r in ranked]
    ledger = Ledger()
    values = build_generic(ledger, chunks, question, "zh", scorer=answerer._sentence_scores)
    template = answerer.templates.get("generic", "zh")
    ledger.frame(template.render(title=values["title"]))
    markdown = template.render(**values)
    verdict = verify(markdown, ledger.all(), ledger.framing)
    assert not verdict.dropped and ledger.all()
    assert values["title"] == "什么是 Sim2Real？"
    assert all(c.quote in c.text and c.chunk_id.startswith("04-08#") for c in ledger.all())


def test_lexical_scores_prefer_shared_words():
    scores = lexical_scores("轮值表多久刷新", ["轮值表每 15 分钟刷新一次。", "紫班机器人承担最远的巡检路线"])
    assert scores[0] > scores[1]
