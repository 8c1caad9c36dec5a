"""docs/reliability.md stays true: at least 40 catalogued cases, its headline count matches its
rows, and every case id in the catalogue is referenced by a reliability or property test."""

from __future__ import annotations

import re

from s2r_tutor.settings import PROJECT_ROOT

DOC = PROJECT_ROOT / "docs" / "reliability.md"
TESTS = PROJECT_ROOT / "tests"


def catalogue_ids() -> list[str]:
    text = DOC.read_text("utf-8").split("## Catalogue", 1)[1]
    return re.findall(r"^\| (R\d{2,3}[a-z]?|P\d) \|", text, flags=re.M)


def test_catalogue_is_large_enough_and_counted_right():
    ids = catalogue_ids()
    assert len(ids) == len(set(ids)), "a case id is listed twice"
    assert len(ids) >= 40
    headline = re.search(r"distinct bad inputs and faults catalogued[^|]*\| \*\*(\d+)\*\*", DOC.read_text("utf-8"))
    assert headline and int(headline.group(1)) == len(ids)


def test_every_case_is_backed_by_a_test():
    sources = "\n".join(p.read_text("utf-8") for pattern in ("test_reliability_*.py", "test_property_*.py")
                        for p in TESTS.glob(pattern) if p.name != "test_reliability_catalogue.py")
    missing = [i for i in catalogue_ids() if not re.search(rf"\b{i}\b", sources)]
    assert not missing, f"catalogued but no test names them: {missing}"
