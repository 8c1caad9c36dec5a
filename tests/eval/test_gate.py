"""The evaluation tier (`pytest -m eval -s`): the real `s2r-tutor eval` over tests/eval/cases.jsonl,
with the thresholds from Settings. Its metrics table and failing cases are printed into the CI log."""

from __future__ import annotations

import json

import pytest

from s2r_tutor.cli import EXIT_OK, main
from s2r_tutor.settings import PROJECT_ROOT

pytestmark = pytest.mark.eval

CASES = PROJECT_ROOT / "tests" / "eval" / "cases.jsonl"


def test_eval_gate(index_dir, tmp_path, capsys):
    report_file = tmp_path / "eval-report.json"
    rc = main(["--index-dir", str(index_dir), "eval", "--cases", str(CASES), "--report", str(report_file)])
    out = capsys.readouterr().out
    with capsys.disabled():
        print("\n== s2r-tutor eval ==\n" + out)
    report = json.loads(report_file.read_text(encoding="utf-8"))
    assert report["n_cases"] >= 80
    assert rc == EXIT_OK, f"eval gate failed: {report['failed_metrics']}"
