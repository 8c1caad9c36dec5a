"""The graded blind sets' questions, which no test wording and no labelled example may copy (data only, no tests)."""

from __future__ import annotations

import json
from functools import lru_cache

from s2r_tutor.settings import PROJECT_ROOT


@lru_cache(maxsize=1)
def blind_questions() -> frozenset[str]:
    """Every question of a graded blind set (docs/blind*/holdout*.jsonl), stripped."""
    return frozenset(json.loads(line)["question"].strip() for f in PROJECT_ROOT.glob("docs/blind*/holdout*.jsonl")
                     for line in f.read_text(encoding="utf-8").splitlines() if line.strip())
