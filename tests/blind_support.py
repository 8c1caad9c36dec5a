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


def copied(mine) -> set[str]:
    """The test wordings in `mine` that a blind set or the labelled data (example questions, customer stories)
    already holds: a test must be phrased in words of its own, or it measures what it was fitted on."""
    from s2r_tutor.answer.acts import load_examples
    from s2r_tutor.answer.story_match import load_stories

    taken = blind_questions() | {e.question for e in load_examples()} | {s.text for s in load_stories()}
    return set(mine) & taken
