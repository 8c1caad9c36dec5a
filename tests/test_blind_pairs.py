"""scripts/blind_pairs.py: the writer's format check holds for the committed blind set and catches what a writer gets
wrong; split hides which run is which behind A/B per group, and combine puts every grade back on its run."""

from __future__ import annotations

import importlib.util
import json
import random

import pytest

from s2r_tutor.settings import PROJECT_ROOT

_spec = importlib.util.spec_from_file_location("blind_pairs", PROJECT_ROOT / "scripts" / "blind_pairs.py")
bp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bp)

BLIND = PROJECT_ROOT / "docs" / "blind48"


def _cases() -> list[dict]:
    return bp.read_jsonl(BLIND / "holdout48.jsonl") + bp.read_jsonl(BLIND / "holdout48_en.jsonl")


def test_the_committed_blind_set_passes_the_writers_check():
    assert bp.check(_cases(), 48) == []


@pytest.mark.parametrize("change, problem", [
    (lambda c: c.update(id="b47-001"), "id must be b48-NNN"),
    (lambda c: c.update(act="definee"), "unknown intent"),
    (lambda c: c.update(expected_sections=["04-08#no-such-anchor"]), "unknown section 04-08#no-such-anchor"),
    (lambda c: c.update(key_points=["卡片上没有的一句话"]), "key point not verbatim"),
    (lambda c: c.pop("note"), "fields ['note'] missing or extra"),
])
def test_the_writers_check_names_what_is_wrong(change, problem):
    cases = _cases()
    first = next(c for c in cases if not c["out_of_scope"] and c["language"] == "zh")
    change(first)
    assert any(problem in p for p in bp.check(cases, 48)), bp.check(cases, 48)


def test_split_and_combine_put_every_grade_back_on_its_run(tmp_path):
    work, docs = tmp_path / "work", tmp_path / "docs"
    (work / "run").mkdir(parents=True)
    docs.mkdir()
    for run in ("before", "after"):  # the committed answers stand in for blind_run.py's grader files
        for suffix in ("", "_en"):
            rows = bp.read_jsonl(BLIND / f"{run}{suffix}.answers.jsonl")
            bp.write_jsonl(work / "run" / f"{run}{suffix}.grade.jsonl", [dict(r, run=run) for r in rows])
    key = bp.split(work, random.Random(7))
    assert set(key) == {"zh1", "zh2", "en"}
    for group, letters in key.items():
        assert sorted(letters.values()) == ["after", "before"]
        for letter, run in letters.items():
            shown = bp.read_jsonl(work / "grade" / f"{letter}_{group}.jsonl")
            assert {r["run"] for r in shown} == {run} and len(shown) == 30
            # a grader grades each case: here the grade says which run it came from
            bp.write_jsonl(work / "grade" / f"{letter}_{group}.grades.jsonl",
                           [{"id": r["id"], "grade": 3 if run == "after" else 1, "why": "x"} for r in shown])
    bp.combine(work, docs)
    for run, grade in (("before", 1), ("after", 3)):
        for suffix, n in (("", 60), ("_en", 30)):
            rows = bp.read_jsonl(docs / f"{run}{suffix}.grades.jsonl")
            assert len(rows) == n and {r["grade"] for r in rows} == {grade}


def test_combine_refuses_a_grader_file_that_skips_a_case(tmp_path):
    work = tmp_path
    (work / "run").mkdir()
    for run in ("before", "after"):
        for suffix in ("", "_en"):
            bp.write_jsonl(work / "run" / f"{run}{suffix}.grade.jsonl", bp.read_jsonl(BLIND / f"{run}{suffix}.answers.jsonl"))
    key = bp.split(work, random.Random(1))
    for group, letters in key.items():
        for letter in letters:
            shown = bp.read_jsonl(work / "grade" / f"{letter}_{group}.jsonl")
            bp.write_jsonl(work / "grade" / f"{letter}_{group}.grades.jsonl",
                           [{"id": r["id"], "grade": 2, "why": "x"} for r in shown[1:]])
    with pytest.raises(SystemExit, match="does not grade each case"):
        bp.combine(work, tmp_path)
    assert json.loads((work / "grade" / "key.json").read_text()) == key
