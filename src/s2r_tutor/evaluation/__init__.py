"""The evaluation set and its CI gate (issue 4): case model, metrics, runner, report, CLI verb."""

from .cases import EvalCase, load_cases
from .runner import CaseResult, EvalReport, run_eval

__all__ = ["CaseResult", "EvalCase", "EvalReport", "load_cases", "run_eval"]
