"""Story -> gap factors: the nearest labelled customer stories (`data/rules/scenario_stories.jsonl`)
vote over the question vector the search already computed, and the factors' cue words add light
features (`StoryMatcher`); without a vector, the cue words alone (`match_factors`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import AnswerDataError
from .lexicon import fold
from . import ruledata as rd
from .scenario_table import Factor, Table, table
from .vectors import labelled_vectors

_STORIES = "scenario_stories.jsonl"

@dataclass(frozen=True)
class Story:
    text: str
    factors: tuple[str, ...]


def load_stories(text: str | None = None) -> list[Story]:
    src = rd.source(_STORIES)
    text = rd.read_text(_STORIES) if text is None else text
    keys = {f.key for f in table().factors}
    out = []
    for n, row in rd.jsonl_rows(text, src):
        story, factors = row.get("story"), row.get("factors")
        if not isinstance(story, str) or not story.strip() or not isinstance(factors, list):
            raise AnswerDataError(f"{src}:{n}: needs 'story' (text) and 'factors' (a list)")
        unknown = [f for f in factors if f not in keys]
        if unknown:
            raise AnswerDataError(f"{src}:{n}: unknown factor(s) {unknown}; choose from {sorted(keys)}")
        out.append(Story(story.strip(), tuple(factors)))
    if not out:
        raise AnswerDataError(f"{src}: no labelled stories")
    return out


def story_vectors(stories: list[Story], embedder, cache_dir: Path | None) -> np.ndarray:
    """The stories' query vectors (answer/vectors.py: shipped file, index cache, or computed once)."""
    from ..retrieval.glossary import expand_query

    texts = [expand_query(s.text) for s in stories]
    return labelled_vectors(texts, embedder, "rules/scenario_stories.vectors", cache_dir, "labelled customer stories")


class StoryMatcher:
    """Story -> factor keys: votes of the nearest labelled stories, plus cue words as light features."""

    def __init__(self, stories: list[Story], vectors: np.ndarray, t: Table | None = None):
        self.stories, self.vectors, self.t = stories, vectors, t or table()

    def votes(self, qv: np.ndarray | None, question: str) -> dict[str, float]:
        t = self.t
        out = self.neighbour_votes(qv)
        q = fold(question)
        for f in t.factors:
            if f.cues.search(q):
                out[f.key] += t.cue_weight
        return out

    def neighbour_votes(self, qv: np.ndarray | None) -> dict[str, float]:
        t = self.t
        out = {f.key: 0.0 for f in t.factors}
        if qv is not None and len(self.stories):
            sims = self.vectors @ qv
            top = np.argsort(-sims)[: t.k]
            best = float(sims[top[0]])
            weights = [math.exp((float(sims[i]) - best) / t.temperature) for i in top]
            total = sum(weights)
            for i, w in zip(top, weights):
                for key in self.stories[i].factors:
                    out[key] += w / total
        return out

    def match(self, qv: np.ndarray | None, question: str) -> list[str]:
        """The factors the story names, strongest first ([] when it names none)."""
        votes = self.votes(qv, question)
        found = sorted((k for k, v in votes.items() if v >= self.t.min_vote), key=lambda k: -votes[k])
        found = [k for k in found if votes[k] >= self.t.second_ratio * votes[found[0]]]
        found = [k for i, k in enumerate(found) if k != self.t.catch_all or i == 0]
        if len(found) == 1 and self.t.cue_second is not None:
            # a story that names two causes (slope + oil + a battery pack): a second factor whose cue words
            # it uses and that its neighbours also vote for (match.cue_second, leave-one-out in answering.md)
            q, nv = fold(question), self.neighbour_votes(qv)
            more = sorted((f.key for f in self.t.factors if f.key not in found and f.key != self.t.catch_all
                           and f.cues.search(q) and nv[f.key] >= self.t.cue_second), key=lambda k: -nv[k])
            found += more[:1]
        return found


def match_factors(question: str) -> list[Factor]:
    """Without a vector (the load-time dry run, a matcher-less caller): the factors whose cue words the
    story uses; the catch-all environment factor only when it names no other."""
    q = fold(question)
    found = [f for f in table().factors if f.cues.search(q)]
    named = [f for f in found if f.key != table().catch_all]
    return named or found
