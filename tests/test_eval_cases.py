"""Eval case files: malformed input names file:line; the shipped sets meet the issue's shape."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from s2r_tutor.errors import EvalCaseError
from s2r_tutor.evaluation.cases import EvalCase, check_sections, load_cases
from s2r_tutor.evaluation.runner import resolve_sections
from s2r_tutor.models import Intent
from s2r_tutor.settings import PROJECT_ROOT
from s2r_tutor.text import normalize

EVAL = PROJECT_ROOT / "tests" / "eval"
CASES = EVAL / "cases.jsonl"
DEV = EVAL / "dev.jsonl"
GOOD = {"id": "c1", "question": "什么是 Sim2Real？", "expected_sections": ["04-08#summary"],
        "intent": "definition", "key_points": ["仿真环境"], "language": "zh"}


def write(tmp_path: Path, *lines: str) -> Path:
    p = tmp_path / "cases.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def line(**changes) -> str:
    case = {**GOOD, **changes}
    return json.dumps({k: v for k, v in case.items() if v is not ...}, ensure_ascii=False)


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ('{"id": "c2", "question": ', "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (line(id="c2", intent="gossip"), "intent"),
        (line(id="c2", question=...), "question"),
        (line(id="c2", question="   "), "blank"),
        (line(id="c2", colour="red"), "colour"),
        (line(id="c2", expected_sections=[]), "at least one expected section"),
        (line(id="c2", intent="out_of_scope", out_of_scope=True), "expects no sections"),
        (line(id="c2", out_of_scope=True), "out_of_scope must be true exactly when"),
        (line(id="c2", expected_sections=["reality-gap"]), "'<card id>#<anchor>'"),
        (line(id="c2", history=[{"role": "robot", "content": "hi"}]), "history.0.role"),
        (line(id="c2", language="fr"), "language"),
        (line(id="c1"), "duplicate case id 'c1' (first on line 2)"),
    ],
)
def test_malformed_case_names_file_and_line(tmp_path, bad, fragment):
    path = write(tmp_path, "# comment line", line(), "", bad)
    with pytest.raises(EvalCaseError) as err:
        load_cases(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}:4: "), msg
    assert fragment in msg


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(EvalCaseError, match="not found"):
        load_cases(tmp_path / "nope.jsonl")
    with pytest.raises(EvalCaseError, match="no cases found"):
        load_cases(write(tmp_path, "# only a comment", ""))
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(EvalCaseError, match="not valid UTF-8"):
        load_cases(tmp_path / "bin.jsonl")


def test_unknown_section_is_reported_with_its_line(tmp_path):
    cases = load_cases(write(tmp_path, line(), line(id="c2", expected_sections=["04-08#no-such"])))
    with pytest.raises(EvalCaseError, match=r"cases\.jsonl:2: expected section\(s\) 04-08#no-such"):
        check_sections(cases, {"04-08#summary"})


def test_good_case_parses_with_its_location(tmp_path):
    (case,) = load_cases(write(tmp_path, line(history=[{"role": "user", "content": "hi"}])))
    assert case.intent is Intent.definition and case.multi_turn
    assert case.where.endswith("cases.jsonl:1")


# ---- the shipped sets -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cases() -> list[EvalCase]:
    return load_cases(CASES)


def test_eval_set_shape(cases):
    assert len(cases) >= 80
    assert sum(c.out_of_scope for c in cases) >= 12
    assert sum(c.multi_turn for c in cases) >= 6
    langs = Counter(c.language for c in cases)
    assert langs["zh"] > langs["en"] >= 25
    assert {c.intent for c in cases} == set(Intent), "every intent is exercised"
    assert sum(1 for c in cases if c.note and "typo" in c.note) >= 3


def test_eval_set_covers_every_section_and_scenario(cases, tutor):
    sections = {f"{c.doc_id}#{c.anchor}" for c in tutor.chunks}
    covered = {s for c in cases for s in c.expected_sections}
    assert sections - covered == set()
    scenarios = {s for s in sections if "#scenario-" in s}
    assert len(scenarios) == 4
    for s in scenarios:
        assert any(c.expected_sections[0] == s and c.intent is Intent.scenario for c in cases), s
    new = [c for c in cases if c.note and c.note.startswith("new complaint")]
    assert len(new) >= 6 and all(c.intent is Intent.scenario for c in new)
    check_sections(cases, sections)


def test_key_points_are_quotable_from_expected_sections(cases, tutor):
    """A key point must be reachable: it appears in the heading or text of an expected section."""
    text = {f"{c.doc_id}#{c.anchor}": normalize(f"{c.section}\n{c.text}") for c in tutor.chunks}
    for case in cases:
        for kp in case.key_points:
            assert any(normalize(kp) in text[s] for s in case.expected_sections), (case.id, kp)


def test_dev_set_is_separate_from_eval_set(cases, tutor):
    sections = {f"{c.doc_id}#{c.anchor}" for c in tutor.chunks}
    dev = [json.loads(x) for x in DEV.read_text(encoding="utf-8").splitlines() if x.strip()]
    assert len(dev) >= 40
    for row in dev:
        assert set(row) == {"question", "expected_sections", "intent"}
        assert row["expected_sections"] and set(row["expected_sections"]) <= sections, row
        Intent(row["intent"])
    held_out = {normalize(c.question) for c in cases}
    assert not held_out & {normalize(r["question"]) for r in dev}


CASE_FILES = [p for p in sorted(EVAL.glob("*.jsonl")) if p != DEV]  # dev.jsonl is retrieval-only, checked above


@pytest.mark.parametrize("path", [*CASE_FILES, PROJECT_ROOT / "tests/data/cards/cases.jsonl"],
                         ids=lambda p: p.name if p.parent == EVAL else "cards/" + p.name)
def test_every_eval_file_parses(path, tutor):
    cases = load_cases(path)
    if path.parent == EVAL:
        resolve_sections(tutor, cases)


def test_a_heading_without_text_is_scored_by_its_subsections(tmp_path, tutor):
    """'04-08#why-simulation' has no chunk of its own (its text is A-D): a case naming it expects them."""
    cases = load_cases(write(tmp_path, line(expected_sections=["04-08#why-simulation", "04-08#summary"])))
    (case,) = resolve_sections(tutor, cases)
    assert case.expected_sections == [f"04-08#why-simulation-{x}" for x in ("cost", "safety", "scale", "control")] \
        + ["04-08#summary"]
    assert case.where.endswith("cases.jsonl:1")  # errors still point at the file's line
    with pytest.raises(EvalCaseError, match="04-08#related"):  # a prefix of a container is still unknown
        resolve_sections(tutor, load_cases(write(tmp_path, line(expected_sections=["04-08#related"]))))


def test_held_out_sets_do_not_share_questions():
    seen: dict[str, str] = {}
    for path in sorted(EVAL.glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip() and not raw.lstrip().startswith("#"):
                case = json.loads(raw)
                # a follow-up ("举个例子呗") is a new case under a different conversation
                q = normalize(" ".join([t["content"] for t in case.get("history", [])] + [case["question"]]))
                assert q not in seen, f"{path.name} repeats a question of {seen[q]}"
                seen[q] = path.name
