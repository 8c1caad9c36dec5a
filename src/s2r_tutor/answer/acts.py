"""What is asked, from labelled examples: the act (define, why, compare, verdict, ...) and a topic vote.

`data/acts.jsonl` holds short questions (zh + en) labelled with an act, usually a topic (an `Intent`)
and, for yes/no and misconception questions, the claim they test (`data/leads.json` says what the card
answers to it). A question is read by its nearest labelled neighbours over the e5 vector the retriever
already computed for it (`Retriever.rank_with_vector`): no second embedding call per question. The
examples' vectors are computed once per embedder and cached beside the index (and shipped for the
default embedder). A few act cue phrases (`data/act_cues.json`) add a small weight each, to break
ties where the examples are thin, and an act that asks for a particular kind of answer (`needs`: words for
a customer) wins only when the question names it. Unknown labels, and a labelled example its act's
`needs` would refuse, are start-up errors (`AnswerDataError`).
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import AnswerDataError
from ..retrieval.glossary import expand_query
from ..models import Intent
from .act_model import ActModel, fitted_model
from .finalize import to_simplified
from .lexicon import any_of, canonical
from . import ruledata as rd
from .vectors import labelled_vectors

log = logging.getLogger("s2r_tutor.answer")

ACTS = ("define", "why", "how", "compare", "verdict", "customer_reply", "check_first", "example", "simpler",
        "not_in_card", "overview", "out_of_scope")
#: acts a short question may ask of the previous answer's topic ("为什么？", "举个例子", "先查什么？")
FOLLOWUP_ACTS = frozenset({"why", "example", "simpler", "check_first", "customer_reply", "how", "verdict"})
_INTENTS = {i.value for i in Intent}


@dataclass(frozen=True)
class Example:
    question: str
    act: str
    intent: str | None = None
    claim: str | None = None
    condition: str | None = None  # the situation a "which method fits" question states (leads.json compare_conditions)


@dataclass
class Reading:
    """What the neighbours (and cues) say about one question."""

    act: str
    acts: dict[str, float]
    intents: dict[str, float] = field(default_factory=dict)  # neighbour topic votes, summing to 1 (or empty)
    claim: str | None = None  # the claim of the closest verdict neighbour, if close enough
    best_cosine: float = 0.0
    votes: dict[str, float] = field(default_factory=dict)  # the neighbours' act vote alone (no cue weight), sums to 1
    claim_cued: bool = False  # the claim was named by its own cue in a yes/no question (data/leads.json), not by neighbours
    claim_quoted: bool = False  # the claim is what a quoted or reported statement in the question says
    condition: str | None = None  # the situation most neighbours state, when they are close (acts.jsonl 'condition')
    claims: tuple[str, ...] = ()  # every claim the yes/no neighbours read clearly enough, strongest first (`claim`)


def _data_path(name: str):
    return resources.files("s2r_tutor").joinpath(f"data/{name}")


def load_examples(text: str | None = None, source: str = "data/acts.jsonl") -> list[Example]:
    """Parse the labelled examples; a bad line is an AnswerDataError naming `source:line`."""
    text = _data_path("acts.jsonl").read_text("utf-8") if text is None else text
    out: list[Example] = []
    for n, row in rd.jsonl_rows(text, source):
        q, act, intent = row.get("q"), row.get("act"), row.get("intent")
        if not isinstance(q, str) or not q.strip():
            raise AnswerDataError(f"{source}:{n}: 'q' must be a non-empty question")
        if act not in ACTS:
            raise AnswerDataError(f"{source}:{n}: unknown act {act!r}; choose one of {', '.join(ACTS)}")
        if intent is not None and intent not in _INTENTS:
            raise AnswerDataError(f"{source}:{n}: unknown intent {intent!r}; choose one of {', '.join(sorted(_INTENTS))}")
        unknown = set(row) - {"q", "act", "intent", "claim", "condition", "src"}
        if unknown:
            raise AnswerDataError(f"{source}:{n}: unknown key(s) {sorted(unknown)}")
        out.append(Example(q.strip(), act, intent, row.get("claim"), row.get("condition")))
    if not out:
        raise AnswerDataError(f"{source}: no labelled examples")
    return out


def _cue_data(text: str | None) -> dict:
    return json.loads(_data_path("act_cues.json").read_text("utf-8") if text is None else text)


def _patterns(act: str, pats: list[str], where: str) -> re.Pattern[str]:
    if act not in ACTS:
        raise AnswerDataError(f"data/act_cues.json: unknown act {act!r}{where}")
    try:
        return any_of(*pats)
    except re.error as exc:
        raise AnswerDataError(f"data/act_cues.json: bad pattern for {act!r}{where}: {exc}") from None


def load_cues(text: str | None = None) -> dict[str, re.Pattern[str]]:
    data = _cue_data(text)
    return {act: _patterns(act, pats, "") for act, pats in data.items()
            if not act.startswith("_") and act not in ("needs", "unless", "decisive")}


def load_unless(text: str | None = None) -> dict[str, re.Pattern[str]]:
    """act -> where its cue does not count (`unless` in act_cues.json)."""
    return {act: _patterns(act, pats, " (unless)") for act, pats in _cue_data(text).get("unless", {}).items()}


def load_decisive(text: str | None = None) -> dict[str, re.Pattern[str]]:
    """act -> the words that ask for it outright (`decisive` in act_cues.json): they decide the act over the
    neighbours' vote, for a question in scope."""
    return {act: _patterns(act, pats, " (decisive)") for act, pats in _cue_data(text).get("decisive", {}).items()}


def load_needs(text: str | None = None) -> dict[str, re.Pattern[str]]:
    """act -> what the question must name for that act to win (`needs` in act_cues.json, plus the act's own
    cues: a cue is the act named)."""
    data = _cue_data(text)
    return {act: _patterns(act, [*pats, *data.get(act, [])], " (needs)") for act, pats in data.get("needs", {}).items()}


_CLAUSE = re.compile(r"[，。,.;；！？!?\n]+")


def _letters(text: str) -> int:
    return len(re.sub(r"\W", "", text))


def ask_clause(question: str, min_chars: int = 1) -> str | None:
    """The clause that asks, of a question that tells something first: its last clause ("…老打滑，要重新训吗"
    -> "要重新训吗"), with the clause before it when the last is a bare "是吗" / "right?" after two or more
    (of two clauses, the bare "是吗" itself: a yes/no). None for a question of one clause or of fewer than
    `min_chars` letters: its whole vector is already the ask."""
    if _letters(question) < min_chars:
        return None
    parts = [p.strip() for p in _CLAUSE.split(question) if p.strip()]
    if len(parts) < 2:
        return None
    if _letters(parts[-1]) < 4 and len(parts) >= 3:
        return f"{parts[-2]}，{parts[-1]}"
    return parts[-1]


def example_texts(examples: list[Example]) -> list[str]:
    """What is embedded for each example (scripts/shipped_vectors.py rebuilds the shipped file from the same texts)."""
    return [expand_query(e.question) for e in examples]


def clause_texts(examples: list[Example]) -> list[str]:
    """What is embedded for each example's ask clause (a one-clause example: the whole question)."""
    return [expand_query(ask_clause(e.question) or e.question) for e in examples]


def example_vectors(examples: list[Example], embedder, cache_dir: Path | None) -> np.ndarray:
    """The examples' query vectors (answer/vectors.py: shipped file, index cache, or computed once)."""
    return labelled_vectors(example_texts(examples), embedder, "acts.vectors", cache_dir, "labelled example questions")


def clause_vectors(examples: list[Example], embedder, cache_dir: Path | None) -> np.ndarray:
    """The query vectors of the examples' ask clauses, the same way."""
    return labelled_vectors(clause_texts(examples), embedder, "acts_clauses.vectors", cache_dir,
                            "labelled example ask clauses")


def act_model(examples: list[Example], vectors: np.ndarray, settings, cache_dir: Path | None) -> ActModel:
    """The act regression over the examples' vectors (shipped, cached or fitted once: `act_model.fitted_model`)."""
    return fitted_model(vectors, [e.act for e in examples], ACTS, "acts.model", cache_dir, scale=settings.act_model_scale, l2=settings.act_model_l2,
                        epochs=settings.act_model_epochs)


class ActReader:
    def __init__(self, examples: list[Example], vectors: np.ndarray, cues: dict[str, re.Pattern[str]], settings,
                 clauses: np.ndarray | None = None, embed=None, needs: dict[str, re.Pattern[str]] | None = None,
                 unless: dict[str, re.Pattern[str]] | None = None, decisive: dict[str, re.Pattern[str]] | None = None,
                 model: ActModel | None = None):
        """`clauses`: `clause_vectors` of the examples, and `embed` (texts -> query vectors, the tutor's
        embedder) for a long question's own ask clause; without them the whole question is read alone.
        `needs`: `load_needs()`; every labelled example of such an act must name what it needs. `unless`:
        `load_unless()`. `model`: the act regression fitted on the same examples (`act_model.py`), averaged with the
        neighbours' act vote by `settings.act_model_weight`."""
        self.examples, self.vectors, self.cues, self.s = examples, vectors, cues, settings
        self.needs, self.unless, self.decisive = needs or {}, unless or {}, decisive or {}
        for e in examples:
            need = self.needs.get(e.act)
            if need is not None and not need.search(canonical(to_simplified(e.question))):
                raise AnswerDataError(f"data/acts.jsonl: {e.question!r} is labelled {e.act} but names none of "
                                      f"what data/act_cues.json needs for it")
        # the topics each claim's labelled questions are about (a claim is tested within its own topic)
        self.claim_topics: dict[str, set[str]] = {}
        for e in examples:
            if e.claim and e.intent:
                self.claim_topics.setdefault(e.claim, set()).add(e.intent)
        self.clauses, self.embed, self.model = clauses, embed, model

    def cue_acts(self, question: str) -> set[str]:
        q = canonical(question)
        return {a for a, pat in self.cues.items() if pat.search(q) and not self._unless(a, q)}

    def _unless(self, act: str, q: str) -> bool:
        """`act`'s cue words do not count in `q` (canonical): its `unless` words are there (act_cues.json)."""
        return act in self.unless and bool(self.unless[act].search(q))

    def read(self, qv: np.ndarray | None, question: str, exclude: str | None = None, model: bool = True) -> Reading:
        """`exclude`: leave this exact question out of the neighbours (leave-one-out measurement). `model`: False
        reads by the neighbours (and cues) alone, without the regression."""
        acts = dict.fromkeys(ACTS, 0.0)
        intents: dict[str, float] = {}
        claim, best, condition, claims_read = None, 0.0, None, ()
        claim_votes: dict[str | None, float] = {}
        claim_best: dict[str | None, float] = {}
        if qv is not None and len(self.examples):
            sims, top, weights = self._nearest(self.vectors, qv, exclude)
            best = float(sims[top[0]])
            total = sum(weights)
            for i, w in zip(top, weights):
                ex = self.examples[i]
                acts[ex.act] += w / total
                if ex.intent:
                    intents[ex.intent] = intents.get(ex.intent, 0.0) + w
                if ex.act == "verdict":
                    claim_votes[ex.claim] = claim_votes.get(ex.claim, 0.0) + w
                    claim_best[ex.claim] = max(claim_best.get(ex.claim, 0.0), float(sims[i]))
            # the yes/no neighbours vote on which claim is tested: one far neighbour's claim does not lead
            # when nearer yes/no examples test another or (clearly) none (blind 9 b9-084 got
            # "不是。同一套算法…" from its fourth neighbour; b9-063 tied two claims at the first)
            # many labelled yes/no questions carry no claim: "none" vetoes only when it clearly outvotes
            read = sorted((c for c, v in claim_votes.items() if c is not None and claim_best[c] >= self.s.claim_min_cosine
                           and claim_votes.get(None, 0.0) < 2 * v), key=lambda c: -claim_votes[c])
            strongest = max((c for c in claim_votes if c is not None), key=lambda c: claim_votes[c], default=None)
            # the claim is the strongest one, when it is read clearly; the others stand by for the topic
            # the plan settles on (answerer: a claim is about its own topic)
            claims_read = tuple(read) if read and read[0] == strongest else ()
            claim = claims_read[0] if claims_read else None
            z = sum(intents.values())
            intents = {k: v / z for k, v in intents.items()} if z else {}
            condition = self._condition(sims, top, weights)
            if model and self.model is not None and self.s.act_model_weight > 0:
                acts = self._with_model(acts, self.model.probs(qv))
        ranked = sorted(acts.values(), reverse=True)
        # margin 1 reads the clause always: a unanimous vote is 1 - 0 apart, and whether its weights summed to just
        # under or just over 1 decided it (float noise: "…那还需要sim2real干嘛？这个怎么回" flipped with one
        # unrelated labelled row added)
        unsure = self.s.ask_clause_margin >= 1.0 or ranked[0] - ranked[1] < self.s.ask_clause_margin
        clause_act = self._clause_votes(question, exclude) if qv is not None and unsure else None
        inside = 1.0 - acts["out_of_scope"]
        clause_in = sum(v for a, v in (clause_act or {}).items() if a != "out_of_scope")
        if clause_act is not None and inside > 0 and clause_in > 0:
            # a told story's vector is mostly the story, so its neighbours are stories asking anything; the
            # clause that asks ("要重新训吗", "给老板一句话", "any idea why?") votes beside it, clause to clause.
            # It shares out only the in-scope part: whether the card covers it at all stays the whole
            # question's (blind 12 b12-082, DH calibration "…有没有推荐的步骤", kept its out-of-scope veto)
            w = self.s.ask_clause_weight
            acts = {a: v if a == "out_of_scope" else
                    (1 - w) * v + w * inside * clause_act[a] / clause_in for a, v in acts.items()}
        votes = dict(acts)
        for a in self.cue_acts(question):
            acts[a] += self.s.cue_weight
        def winner(among) -> str:
            return max(among, key=lambda a: (acts[a], -ACTS.index(a)))

        q = canonical(question)
        unnamed = [a for a, need in self.needs.items() if acts[a] and not need.search(q)]
        # an unnamed act's vote goes unspent and the next in-scope act reads the question: whether the card
        # covers the question at all stays the whole vote's
        in_scope = unnamed and winner(ACTS) != "out_of_scope"
        for a in unnamed:
            acts[a] = 0.0
        act = winner([a for a in ACTS if a != "out_of_scope"] if in_scope else ACTS)
        # (an act's `unless` words hold for its decisive words too: "X 和 Y 啥关系，说人话" asks the relation plainly)
        asked = next((a for a, pat in self.decisive.items() if pat.search(q) and not self._unless(a, q)), None)
        if asked is not None and act != "out_of_scope" and act != asked:
            # asked for in so many words ("能不能举几个实际点的例子"): the neighbours found by the rest of the question
            # ("光说概念客户听不懂") do not outvote it; whether the card covers it stays the whole vote's
            acts[asked] = max(v for a, v in acts.items() if a != "out_of_scope") + self.s.cue_weight
            act = asked
        return Reading(act, acts, intents, claim, best, votes, condition=condition, claims=claims_read)

    def _with_model(self, acts: dict[str, float], p: np.ndarray) -> dict[str, float]:
        """The neighbours' act vote averaged with the regression's (`p`) over the in-scope acts only: whether the
        card covers the question stays the neighbours' (the refusal thresholds read their out-of-scope share; mixed
        in, dev refused 86 answerable questions, not 62). Where the average would change whether out of scope
        leads, their vote stands: spread over several acts, the in-scope share had fallen below the out-of-scope
        one for seven short follow-ups ("太长了，一句话？")."""
        w, oos = self.s.act_model_weight, ACTS.index("out_of_scope")
        inside, model_in = 1.0 - acts["out_of_scope"], 1.0 - float(p[oos])
        if inside <= 0 or model_in <= 0:
            return acts
        mixed = {a: v if a == "out_of_scope" else (1 - w) * v + w * inside * float(p[ACTS.index(a)]) / model_in
                 for a, v in acts.items()}

        def oos_leads(vote: dict[str, float]) -> bool:
            return vote["out_of_scope"] >= max(v for a, v in vote.items() if a != "out_of_scope")

        return mixed if oos_leads(mixed) == oos_leads(acts) else acts

    def _condition(self, sims: np.ndarray, top: np.ndarray, weights: list[float]) -> str | None:
        """The condition most of the neighbours' weight states, when one of them is close: a "which method
        fits" question is told in countless ways ("wants the sim to match their hardware", "想让仿真更像他们那台"),
        so labelled examples name the situation rather than more cue words."""
        votes: dict[str | None, float] = {}
        for i, w in zip(top, weights):
            votes[self.examples[i].condition] = votes.get(self.examples[i].condition, 0.0) + w
        named = {c: v for c, v in votes.items() if c is not None}
        if not named:
            return None
        won = max(named, key=lambda c: named[c])
        close = max(float(sims[i]) for i in top if self.examples[i].condition == won)
        share = named[won] / sum(votes.values())
        return won if close >= self.s.condition_min_cosine and share >= self.s.condition_min_share else None

    def _nearest(self, matrix: np.ndarray, v: np.ndarray, exclude: str | None) -> tuple[np.ndarray, np.ndarray, list[float]]:
        """Cosines of `v` to every example row, the `knn_k` nearest rows, and their softmax weights (relative
        to the nearest, so they need no normalising constant); `exclude` leaves one question out."""
        sims = matrix @ v
        if exclude is not None:
            sims = np.where([e.question == exclude for e in self.examples], -1.0, sims)
        top = np.argsort(-sims)[: self.s.knn_k]
        best = float(sims[top[0]])
        return sims, top, [math.exp((float(sims[i]) - best) / self.s.knn_temperature) for i in top]

    def _clause_votes(self, question: str, exclude: str | None) -> dict[str, float] | None:
        """The act vote (sums to 1) of the `knn_k` example clauses nearest the question's ask clause, or None
        (one clause, short, no clause vectors, weight 0, or the embedder failed)."""
        if self.clauses is None or self.embed is None or self.s.ask_clause_weight <= 0:
            return None
        clause = ask_clause(question, self.s.ask_clause_min_chars)
        if clause is None:
            return None
        try:
            cv = np.asarray(self.embed([expand_query(clause)])[0], dtype=np.float32)
        except Exception:  # a failing or sparse-only embedder: the whole question's vote stands
            log.debug("no vector for the ask clause", exc_info=True)
            return None
        _, top, weights = self._nearest(self.clauses, cv, exclude)
        total = sum(weights)
        out = dict.fromkeys(ACTS, 0.0)
        for i, w in zip(top, weights):
            out[self.examples[i].act] += w / total
        return out
