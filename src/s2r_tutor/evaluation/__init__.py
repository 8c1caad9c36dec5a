"""The evaluation set and its CI gate (issue 4): case model, metrics, runner, report, CLI verb.

Re-exported lazily: `evaluation.metrics` alone (bench uses its `percentile`) loads no runner, Tutor
or answerer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

_EXPORTS = {"EvalCase": "cases", "load_cases": "cases", "CaseResult": "runner", "EvalReport": "runner",
            "run_eval": "runner"}

__all__ = ["CaseResult", "EvalCase", "EvalReport", "load_cases", "run_eval"]

if TYPE_CHECKING:
    from .cases import EvalCase, load_cases
    from .runner import CaseResult, EvalReport, run_eval


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
