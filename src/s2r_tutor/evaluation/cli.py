"""`s2r-tutor eval`: run the set, print the metrics table and failing cases, gate on thresholds."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ..settings import EvalThresholds, Settings
from .cases import load_cases

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_GATE = 0, 1, 2, 3  # the same codes as s2r_tutor.cli


class UsageError(ValueError):
    pass


def parse_min(pairs: list[str], base: EvalThresholds) -> EvalThresholds:
    """Apply `--min METRIC=VALUE` overrides to the Settings thresholds; unknown names are errors."""
    update: dict[str, float] = {}
    names = list(EvalThresholds.model_fields)
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip().replace("-", "_").replace("@", "_at_")
        if not sep or name not in names:
            raise UsageError(f"--min {pair!r}: expected METRIC=VALUE with METRIC one of: {', '.join(names)}")
        try:
            value = float(raw)
        except ValueError:
            raise UsageError(f"--min {pair!r}: {raw!r} is not a number") from None
        if not 0.0 <= value <= 1.0:
            raise UsageError(f"--min {pair!r}: the value must be between 0 and 1")
        update[name] = value
    return base.model_copy(update=update)


def run_eval_command(args, make_tutor: Callable) -> int:
    from .report import render
    from .runner import run_eval

    settings = Settings()  # the same env-aware settings make_tutor() starts from
    try:
        thresholds = parse_min(list(getattr(args, "min", None) or []), settings.thresholds)
    except UsageError as exc:
        sys.stderr.write(f"s2r-tutor: {exc}\n")
        return EXIT_USAGE
    path = Path(args.cases) if getattr(args, "cases", None) else settings.eval_cases
    cases = load_cases(path)  # parse before loading the index: a bad file fails fast
    tutor = make_tutor(args)
    sys.stderr.write(f"s2r-tutor: evaluating {len(cases)} cases from {path}\n")
    report = run_eval(tutor, cases, thresholds, cases_file=str(path))
    dumped = report.model_dump_json()
    sys.stdout.write((dumped if getattr(args, "json", False) else render(report)) + "\n")
    if getattr(args, "report", None):
        out = Path(args.report)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(dumped + "\n", encoding="utf-8")
        except OSError as exc:
            sys.stderr.write(f"s2r-tutor: cannot write the report to {out} ({exc.strerror})\n")
            return EXIT_ERROR
    return EXIT_OK if report.passed else EXIT_GATE
