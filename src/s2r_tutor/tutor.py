"""`Tutor`: the one object every adapter (CLI, chat, HTTP, eval) talks to."""

from __future__ import annotations

import logging

from pydantic import ValidationError

from .embedders import Embedder, get_embedder
from .errors import QueryError
from .index import LoadedIndex, open_index
from .models import Answer, Chunk, Hit, Turn
from .retriever import Retriever
from .settings import Settings
from .text import clean_input
from .tokenize import make_tokenizer

log = logging.getLogger("s2r_tutor")


def _intent_prior(settings: Settings):
    """The answerer's phrase rules, lent to search as a section prior. With reader questions in the
    index it matters less than it did (holdout3 hit@1 0.917 either way; cases 0.851 -> 0.943, but the
    rules were written on those), so it is kept small: docs/retrieval.md."""
    if settings.intent_prior <= 0:
        return None
    from .routing import section_prior

    return lambda query: section_prior(query, settings.intent_prior)


class Tutor:
    def __init__(self, settings: Settings, embedder: Embedder, index: LoadedIndex):
        self.settings = settings
        self.embedder = embedder
        self.index = index
        self.retriever = Retriever(index, embedder, settings, prior=_intent_prior(settings))
        self._answerer = None

    @classmethod
    def load(cls, settings: Settings | None = None, *, rebuild: bool = False, progress: bool = True,
             embedder: Embedder | str | None = None, **overrides) -> "Tutor":
        """Load `index/`, building it first when it is missing, stale or corrupt. No network.

        `overrides` are Settings fields (e.g. `corpus_dir=...`, `embedder="sentence-transformers"`).
        """
        if isinstance(embedder, str):  # Tutor.load(embedder="sentence-transformers") names a backend
            overrides["embedder"], embedder = embedder, None
        # Validate overrides (a str path becomes a Path, a bad value is an error), never copy blindly.
        settings = Settings(**{**(settings.model_dump() if settings else {}), **overrides}) if overrides or \
            settings is None else settings
        embedder = embedder or get_embedder(settings.embedder, settings.embedder_model)
        tokenizer = make_tokenizer(settings.user_dict)
        index = open_index(settings, embedder, tokenizer, rebuild=rebuild, progress=progress)
        return cls(settings, embedder, index)

    @property
    def chunks(self) -> list[Chunk]:
        return self.index.chunks

    def clean_query(self, query: object) -> str:
        """Validate and normalise user text once; truncate to `max_query_chars` (documented limit)."""
        if not isinstance(query, str):
            raise QueryError("the question must be text")
        text = clean_input(query)
        if not text:
            raise QueryError("the question is empty: type a question about Sim2Real")
        return text[: self.settings.max_query_chars]

    def search(self, query: str, k: int | None = None, mode: str = "hybrid") -> list[Hit]:
        """Best-first hits for `query`. Empty/whitespace-only raises QueryError; long input is truncated."""
        k = self.settings.top_k if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise QueryError("k must be a positive whole number")
        return self.retriever.search(self.clean_query(query), min(k, 50), mode)

    def ask(self, question: str, history: list[Turn] | list[dict] | None = None) -> Answer:
        # Imported on the first ask: the answerer brings its templates and the LLM client (httpx).
        # Search uses only answer.intents, through the section prior (routing.py).
        from .answer import Answerer

        if self._answerer is None:
            self._answerer = Answerer(self)
        try:
            turns = [t if isinstance(t, Turn) else Turn.model_validate(t) for t in (history or [])]
        except ValidationError:
            raise QueryError("history must be a list of {role: 'user'|'assistant', content: text} turns") from None
        return self._answerer.answer(self.clean_query(question), turns)
