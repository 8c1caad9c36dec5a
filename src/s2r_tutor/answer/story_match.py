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
    verdict: str | None = None  # the yes/no the story asks (a scenarios.json verdict key), when it asks one
    question: bool = False  # "story_kind": "question": a general question, not a customer's story


def load_stories(text: str | None = None) -> list[Story]:
    src = rd.source(_STORIES)
    text = rd.read_text(_STORIES) if text is None else text
    keys = {f.key for f in table().factors}
    kinds = {v.key for v in table().verdicts}
    out = []
    for n, row in rd.jsonl_rows(text, src):
        story, factors = row.get("story"), row.get("factors")
        if not isinstance(story, str) or not story.strip() or not isinstance(factors, list):
            raise AnswerDataError(f"{src}:{n}: needs 'story' (text) and 'factors' (a list)")
        unknown = [f for f in factors if f not in keys]
        if unknown:
            raise AnswerDataError(f"{src}:{n}: unknown factor(s) {unknown}; choose from {sorted(keys)}")
        verdict = row.get("verdict")
        if verdict is not None and verdict not in kinds:
            raise AnswerDataError(f"{src}:{n}: unknown verdict {verdict!r}; choose from {sorted(kinds)}")
        kind = row.get("story_kind", "story")
        if kind not in ("story", "question"):
            raise AnswerDataError(f"{src}:{n}: story_kind must be 'story' or 'question', not {kind!r}")
        if kind == "question" and (factors or verdict is not None):
            raise AnswerDataError(f"{src}:{n}: a general question (story_kind 'question') names no factor or verdict")
        out.append(Story(story.strip(), tuple(factors), verdict, kind == "question"))
    if not out:
        raise AnswerDataError(f"{src}: no labelled stories")
    return out


def story_texts(stories: list[Story]) -> list[str]:
    """What is embedded for each story (scripts/shipped_vectors.py rebuilds the shipped file from the same texts)."""
    from ..retrieval.glossary import expand_query

    return [expand_query(s.text) for s in stories]


def story_vectors(stories: list[Story], embedder, cache_dir: Path | None) -> np.ndarray:
    """The stories' query vectors (answer/vectors.py: shipped file, index cache, or computed once)."""
    return labelled_vectors(story_texts(stories), embedder, "rules/scenario_stories.vectors", cache_dir,
                            "labelled customer stories")


class StoryMatcher:
    """Story -> factor keys: votes of the nearest labelled stories, plus cue words as light features."""

    def __init__(self, stories: list[Story], vectors: np.ndarray, t: Table | None = None):
        self.stories, self.vectors, self.t = stories, vectors, t or table()

    def votes(self, qv: np.ndarray | None, question: str, neighbours: dict[str, float] | None = None) -> dict[str, float]:
        t = self.t
        out = dict(self.neighbour_votes(qv) if neighbours is None else neighbours)
        q = fold(question)
        for f in t.factors:
            if f.cues.search(q):
                out[f.key] += t.cue_weight
        return out

    def neighbour_votes(self, qv: np.ndarray | None) -> dict[str, float]:
        t = self.t
        out = {f.key: 0.0 for f in t.factors}
        # the stories labelled with the yes/no they ask vote that only: their question tails pulled other
        # stories' factors (b7-082, a fall at a factory, read as payload after a payload story asking "retrain?")
        # general questions (story_kind "question") vote like a story with no factor: a question near them is
        # told no factor (excluding them named a precision factor for "跟客户讲'仿真跑通了现场就肯定没问题'，这么说OK吗"
        # and lost its "不是" verdict, blind 11 b11-051)
        plain = [i for i, s in enumerate(self.stories) if s.verdict is None]
        for i, w in self._nearest(qv, plain, t.k):
            for key in self.stories[i].factors:
                out[key] += w
        return out

    def _nearest(self, qv: np.ndarray | None, among: list[int], k: int) -> list[tuple[int, float]]:
        """The `k` stories of `among` nearest to `qv`, each with its softmax weight (`temperature`), summing to 1."""
        if qv is None or not among:
            return []
        sims = self.vectors[among] @ qv
        top = np.argsort(-sims)[:k]
        best = float(sims[top[0]])
        weights = [math.exp((float(sims[i]) - best) / self.t.temperature) for i in top]
        total = sum(weights)
        return [(among[i], w / total) for i, w in zip(top, weights)]

    def story_share(self, qv: np.ndarray | None) -> float:
        """The share (softmax weight) of the `k` nearest labelled rows that are customer stories rather than
        general questions labelled story_kind "question" ("为什么仿真里好好的上真机就不行", "A 型号换到 B 型号为什么不灵"):
        a told story the act reader read as a topic (one unit of ten falls more, joints worn after a year) is
        still a story when its neighbours here say so (match.story_share)."""
        return sum(w for i, w in self._nearest(qv, list(range(len(self.stories))), self.t.k) if not self.stories[i].question)

    def told(self, qv: np.ndarray | None, min_cosine: float) -> bool:
        """Whether the labelled rows say this is a customer story the card has a factor for, in words no cue
        list knows ("one unit of ten is unstable", "交付半年后开始拖脚走路", "续航上去了但转弯老往一边歪"): the
        nearest row is a story with a factor, at cosine >= `min_cosine` (the answerer's neighbour_min_cosine, the
        bar its labelled-question rescue uses), and match.told_share of the nearest rows are stories (stricter than
        match.story_share, which needs a symptom word beside it)."""
        if qv is None or not len(self.stories):
            return False
        sims = self.vectors @ qv
        best = int(np.argmax(sims))
        s = self.stories[best]
        return (float(sims[best]) >= min_cosine and not s.question and bool(s.factors)
                and self.story_share(qv) >= self.t.told_share and bool(self.match(qv, "")))

    def verdict_votes(self, qv: np.ndarray | None, question: str) -> dict[str, float]:
        """Which yes/no the story asks: the nearest stories labelled with a verdict vote (weights as for
        the factors, summing to 1), and the first verdict kind whose cue words the story uses adds verdict_cue."""
        t = self.t
        out = {v.key: 0.0 for v in t.verdicts}
        labelled = [i for i, s in enumerate(self.stories) if s.verdict is not None]
        for i, w in self._nearest(qv, labelled, t.verdict_k):
            out[self.stories[i].verdict] += w
        q = fold(question)
        # the first kind whose cues match (the table's order: "重新训练" is retrain before it is blame)
        cued = next((v for v in t.verdicts if v.cues is not rd.NEVER and v.cues.search(q)), None)
        if cued is not None:
            out[cued.key] += t.verdict_cue
        return out

    def verdict(self, qv: np.ndarray | None, question: str) -> str:
        """The verdict kind with the most votes (ties: the table's order, which puts the default last)."""
        votes = self.verdict_votes(qv, question)
        order = [v.key for v in self.t.verdicts]
        best = max(order, key=lambda k: (votes[k], -order.index(k)))
        # without a cue the neighbours alone name a kind only when they nearly agree (match.verdict_min):
        # leave-one-out they are right about a third of the time when they split (story_matcher_eval.py)
        return best if votes[best] >= self.t.verdict_min else order[-1]

    def match(self, qv: np.ndarray | None, question: str, neighbours: dict[str, float] | None = None) -> list[str]:
        """The factors the story names, strongest first ([] when it names none). `neighbours`: `neighbour_votes(qv)`,
        when the caller has it already."""
        nv = self.neighbour_votes(qv) if neighbours is None else neighbours
        votes = self.votes(qv, question, nv)
        # a tie is broken by the labelled stories, not by the table's order: a cue word is a light feature ("绊倒"
        # in "用了大半年越来越容易绊倒" tied the worn body its neighbours name, and terrain was checked; b48-039)
        found = sorted((k for k, v in votes.items() if v >= self.t.min_vote), key=lambda k: (-votes[k], -nv[k]))
        found = [k for k in found if votes[k] >= self.t.second_ratio * votes[found[0]]]
        found = [k for i, k in enumerate(found) if k != self.t.catch_all or i == 0]
        if len(found) == 1 and self.t.cue_second is not None:
            # a story that names two causes (slope + oil + a battery pack): a second factor whose cue words
            # it uses and that its neighbours also vote for (match.cue_second, leave-one-out in answering-history.md)
            q = fold(question)
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
