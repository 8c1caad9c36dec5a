"""docs/reliability.md stays true: at least 40 catalogued cases, its headline count matches its
rows, and every case id in the catalogue is exercised by a test function. "Exercised" is read from
what pytest collects, not from the source text (a mention in a comment does not count): the id is in
the test's name (`test_r12_...`), in a parametrized case's id (`[R12-...]`), in the test function's
docstring, or in a `@pytest.mark.reliability("R12")` marker."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from s2r_tutor.settings import PROJECT_ROOT

DOC = PROJECT_ROOT / "docs" / "reliability.md"
TESTS = PROJECT_ROOT / "tests"
ID = r"R\d{2,3}[a-z]?|P\d"

# Collects the whole suite in a child (collection only: nothing runs) and prints, per test item,
# its node id, its function's docstring and the ids of its `reliability` markers.
COLLECT = """
import json, sys, pytest
rows = []
class Record:
    def pytest_collection_modifyitems(self, items):
        for it in items:
            fn = getattr(it, "function", None)
            marks = [str(a) for m in it.iter_markers("reliability") for a in m.args]
            rows.append([it.nodeid, (fn.__doc__ or "") if fn else "", marks])
code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", sys.argv[1]], plugins=[Record()])
print("ITEMS " + json.dumps(rows))
sys.exit(int(code))
"""


def catalogue_ids() -> list[str]:
    text = DOC.read_text("utf-8").split("## Catalogue", 1)[1]
    return re.findall(rf"^\| ({ID}) \|", text, flags=re.M)


def exercised_ids(folder=TESTS) -> dict[str, list[str]]:
    """case id -> the collected tests under `folder` that exercise it."""
    r = subprocess.run([sys.executable, "-c", COLLECT, str(folder)], capture_output=True, text=True,
                       cwd=PROJECT_ROOT, timeout=600)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("ITEMS ")), None)
    assert r.returncode == 0 and line, f"collection failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    found: dict[str, list[str]] = {}
    for nodeid, doc, marks in json.loads(line[len("ITEMS "):]):
        name = nodeid.rsplit("::", 1)[-1]
        func, _, params = name.partition("[")
        text = " ".join([func.upper().replace("_", " "), params.replace("-", " "), doc, *marks])
        for case in set(re.findall(rf"\b({ID})\b", text)):
            found.setdefault(case, []).append(nodeid)
    return found


def test_catalogue_is_large_enough_and_counted_right():
    ids = catalogue_ids()
    assert len(ids) == len(set(ids)), "a case id is listed twice"
    assert len(ids) >= 40
    headline = re.search(r"distinct bad inputs and faults catalogued[^|]*\| \*\*(\d+)\*\*", DOC.read_text("utf-8"))
    assert headline and int(headline.group(1)) == len(ids)


def test_every_case_is_exercised_by_a_test_function():
    found = exercised_ids()
    missing = [i for i in catalogue_ids() if i not in found]
    assert not missing, f"catalogued, but no collected test names them (name, case id, docstring or marker): {missing}"


SAMPLE = '''
import pytest

# R90: only a comment
def test_r91_by_name():
    pass

def test_by_docstring():
    """R92: said in the docstring."""

@pytest.mark.reliability("R93")
def test_by_marker():
    pass

@pytest.mark.parametrize("case", ["x"], ids=["R94-crafted"])
def test_by_case(case):
    pass

def helper():
    """R95: not a test function."""
'''


def test_a_comment_is_not_a_test(tmp_path):
    (tmp_path / "test_sample.py").write_text(SAMPLE, "utf-8")
    assert sorted(exercised_ids(tmp_path)) == ["R91", "R92", "R93", "R94"]
