"""Multi-card corpora: the made-up card 99-01 beside the real 04-08 is indexed, retrieved, cited,
and the eval can target that corpus folder with --corpus."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from s2r_tutor import Tutor
from s2r_tutor.cli import main
from s2r_tutor.settings import PROJECT_ROOT

CARDS = PROJECT_ROOT / "tests" / "data" / "cards"
CASES = CARDS / "cases.jsonl"


def needs_answerer() -> None:
    try:
        from s2r_tutor.answer import Answerer  # noqa: F401
    except ImportError:
        pytest.skip("the answerer (issue 3) has not landed")


@pytest.fixture(scope="module")
def two_cards(tmp_path_factory) -> Tutor:
    return Tutor.load(corpus_dir=CARDS, index_dir=tmp_path_factory.mktemp("cards-index"), progress=False)


def test_both_cards_are_indexed(two_cards):
    docs = {c.doc_id for c in two_cards.chunks}
    assert docs == {"04-08", "99-01"}
    assert {c.source for c in two_cards.chunks} == {"04-08-sim2real.md", "99-01-hive-charging.md"}


@pytest.mark.parametrize("question, doc", [
    ("夜班老有两台机器人堵在同一个充电桩前面，怎么回事", "99-01"),
    ("电量只剩两成的巡检机器人应该归哪个班", "99-01"),
    ("为什么仿真里会走，真机却摔倒", "04-08"),
])
def test_search_finds_the_right_card(two_cards, question, doc):
    assert two_cards.search(question, k=1)[0].doc_id == doc


# The answerer learns each card's vocabulary from the corpus (answer/vocab.py) and answers a card it
# has no builder for from the retrieved sections (answer/generic.py): no code per card.
def test_answer_cites_the_made_up_card(two_cards):
    needs_answerer()
    answer = two_cards.ask("蜂巢充电的三色轮值表是怎么分班的？")
    assert not answer.refused
    assert answer.citations and all(c.chunk_id.startswith("99-01#") for c in answer.citations)
    assert all(c.quote in c.text for c in answer.citations)


@pytest.fixture(scope="module")
def cards_eval(tmp_path_factory) -> tuple[int, dict]:
    """`s2r-tutor --corpus tests/data/cards eval --cases tests/data/cards/cases.jsonl`, run once."""
    needs_answerer()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # The made-up card has no intents of its own: intent accuracy is not gated here.
        rc = main(["--corpus", str(CARDS), "--index-dir", str(tmp_path_factory.mktemp("cards-eval-index")),
                   "eval", "--cases", str(CASES), "--json", "--min", "intent_accuracy=0"])
    return rc, json.loads(out.getvalue())


def test_eval_targets_a_corpus_folder(cards_eval):
    _, report = cards_eval
    assert report["corpus_dir"] == str(CARDS) and report["n_cases"] == 8
    by_id = {r["id"]: r for r in report["results"]}
    for r in by_id.values():
        if r["retrieval_scored"]:
            assert r["ranked"][0].split("#")[0] == r["expected_sections"][0].split("#")[0], r["id"]
    assert by_id["mc-s2r-01"]["cites_expected"] and by_id["mc-oos-01"]["refused"]


def test_eval_on_two_cards_passes_the_gate(cards_eval):
    rc, report = cards_eval
    hive = [r for r in report["results"] if r["id"].startswith("mc-hive")]
    assert all(r["cites_expected"] for r in hive), [r["problems"] for r in hive]
    assert rc == 0, report["failed_metrics"]


def test_cases_for_another_corpus_are_rejected_on_the_default_one(tutor, index_dir, capsys):
    rc = main(["--index-dir", str(index_dir), "eval", "--cases", str(CASES)])  # session index, no rebuild
    err = capsys.readouterr().err
    assert rc == 1
    assert "cases.jsonl:3: expected section(s) 99-01#summary, 99-01#intro not in the corpus" in err


def test_refusal_names_the_other_cards_too(two_cards):
    """With more than one card, 'outside this card' alone would be wrong: the refusal says the other
    cards do not cover it either, by title."""
    from s2r_tutor.answer import REFUSAL

    needs_answerer()
    answer = two_cards.ask("明天北京天气怎么样？")
    assert answer.refused and answer.answer.startswith(REFUSAL["zh"])
    assert "「什么是蜂巢充电？」" in answer.answer
    english = two_cards.ask("What's the weather in Beijing tomorrow?")
    assert english.refused and english.answer.startswith(REFUSAL["en"]) and '"什么是蜂巢充电？"' in english.answer
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in english.answer.split("do not cover it either")[0])
    assert "「什么是 Sim2Real？」" not in answer.answer.removeprefix(REFUSAL["zh"])


@pytest.mark.parametrize("question", ["蜂巢充电的三色轮值表是怎么分班的？", "How is the hive charging rota organised?"])
def test_generic_answers_suggest_the_cards_other_sections(two_cards, question):
    """A card with no builders still gets next questions: its other sections, each answered from that card."""
    needs_answerer()
    answer = two_cards.ask(question)
    cited = {c.chunk_id for c in answer.citations}
    assert answer.followups and len(answer.followups) <= 3
    headings = {c.chunk_id: c.section.split(" > ")[-1] for c in two_cards.chunks
                if c.doc_id == "99-01" and " > " in c.section}  # the title section is named as the card
    for followup in answer.followups:
        named = [cid for cid, h in headings.items() if f"「{h}」" in followup or f'"{h}"' in followup]
        assert len(named) == 1 and named[0] not in cited, followup  # a section the answer did not use
        nxt = two_cards.ask(followup)
        assert not nxt.refused and named[0] in {c.chunk_id for c in nxt.citations}, followup
