"""The evaluation set and its CI gate (issue 4): case model, metrics, runner, report, CLI verb.

Re-exported lazily: `evaluation.metrics` alone (bench uses its `percentile`) loads no runner, Tutor
or answerer."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

_EXPORTS = {"EvalCase": "cases", "load_cases": "cases", "CaseResult": "runner", "EvalReport": "runner",
            "run_eval": "runner"}

__all__ = ["CaseResult", "EvalCase", "EvalReport", "load_cases", "run_eval"]

if TYPE_CHECKING:
    from .cases import EvalCase, load_cases
    from .runner import CaseResult, EvalReport, run_eval


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 's2r_tutor.evaluation' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
