"""`Tutor`: the one object every adapter (CLI, chat, HTTP, eval) talks to."""

from __future__ import annotations

import logging

from pydantic import ValidationError

from .embedders import BoundedEmbedder, Embedder, get_embedder
from .errors import LLMError, QueryError
from .retrieval.index import LoadedIndex, open_index
from .models import Answer, Chunk, Hit, Turn
from .retrieval.retriever import Retriever
from .settings import Settings
from .text import clean_input
from .threads import limit_blas_threads
from .retrieval.tokenize import make_tokenizer

log = logging.getLogger("s2r_tutor")


def _intent_prior(settings: Settings):
    """The answerer's phrase rules, lent to search as a section prior. With reader questions in the
    index it matters less than it did (holdout3 hit@1 0.917 either way; cases 0.851 -> 0.943, but the
    rules were written on those), so it is kept small: docs/retrieval.md."""
    if settings.intent_prior <= 0:
        return None
    from .answer.routing import section_prior

    return lambda query: section_prior(query, settings.intent_prior)


class Tutor:
    def __init__(self, settings: Settings, embedder: Embedder, index: LoadedIndex):
        self.settings = settings
        # Every query text is cut to `max_query_tokens` before the model reads it (issue 13, finding 2).
        inner = embedder.inner if isinstance(embedder, BoundedEmbedder) else embedder
        self.embedder = BoundedEmbedder(inner, settings.max_query_tokens)
        self.index = index
        self.retriever = Retriever(index, self.embedder, settings, prior=_intent_prior(settings))
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
        limit_blas_threads(settings.blas_threads)  # after the index: numpy, FAISS and the embedder are loaded
        return cls(settings, embedder, index)

    @property
    def chunks(self) -> list[Chunk]:
        return self.index.chunks

    def clean_query(self, query: object) -> str:
        """Validate and normalise user text once; truncate to `max_query_chars` (documented limit).
        What the embedder reads of it is cut further, to `max_query_tokens`."""
        if not isinstance(query, str):
            raise QueryError("the question must be text")
        # Only a prefix is cleaned: cleaning reads every character, and a megabyte of text must cost
        # no more than a question (whitespace it collapses is rarely 8x the text that remains).
        text = clean_input(query[: self.settings.max_query_chars * 8])
        if not text:
            raise QueryError("the question is empty: type a question about Sim2Real")
        return text[: self.settings.max_query_chars]

    def search(self, query: str, k: int | None = None, mode: str = "hybrid") -> list[Hit]:
        """Best-first hits for `query`. Empty/whitespace-only raises QueryError; long input is truncated."""
        k = self.settings.top_k if k is None else k
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise QueryError("k must be a positive whole number")
        # 系統辨識 searches as 系统辨识: the card and its index are simplified (the answerer converts too)
        from .answer.finalize import to_simplified

        return self.retriever.search(to_simplified(self.clean_query(query)), min(k, 50), mode)

    def clean_history(self, history: list[Turn] | list[dict] | None) -> list[Turn]:
        """Validate the earlier turns, each clipped rather than rejected when it is long: to
        `max_turn_chars`, and a user turn (once a question) to what a question may be. Clipping comes
        before validation, so one over-long message can never make every later question fail."""
        s = self.settings
        turns = []
        for t in history or []:
            if isinstance(t, Turn):
                t = t.model_dump()
            if isinstance(t, dict) and isinstance(t.get("content"), str):
                keep = s.max_query_chars if t.get("role") == "user" else s.max_turn_chars
                t = {**t, "content": t["content"][:keep]}
            try:
                turns.append(Turn.model_validate(t))
            except ValidationError:
                raise QueryError("history must be a list of {role: 'user'|'assistant', content: text} turns") from None
        return turns

    def _get_answerer(self):
        # Imported on the first ask: the answerer brings its templates and the LLM client (httpx).
        # Search uses only answer.intents, through the section prior (routing.py).
        from .answer import Answerer

        if self._answerer is None:
            self._answerer = Answerer(self)
        return self._answerer

    # `ask` in three steps, so a server can keep the network wait off its CPU workers (finding 7):
    # prepare_answer (CPU) -> llm_reply (network only, skipped without an LLM) -> finish_answer (CPU).
    def prepare_answer(self, question: str, history: list[Turn] | list[dict] | None = None):
        """Retrieve, compose and verify the template answer; with an LLM configured, also the request
        for it. Returns a `Draft` (`.answer` is the template answer, `.request` None without an LLM)."""
        turns = self.clean_history(history)
        return self._get_answerer().draft(self.clean_query(question), turns)

    def llm_reply(self, draft) -> str | LLMError | None:
        """Wait for the LLM's reply to `draft` (no CPU work): its text, or the LLMError it failed with."""
        return self._get_answerer().wait_llm(draft)

    def finish_answer(self, draft, reply: str | LLMError | None) -> Answer:
        """Verify the LLM's reply against the cited card spans; the template answer when it fails."""
        return self._get_answerer().finish(draft, reply)

    def prepare(self) -> None:
        """Load the answerer now (templates, card lookups), not on the first ask: a server calls this
        before it listens, so a broken template or card is a start-up error, never a served one."""
        self._get_answerer()

    def close(self) -> None:
        """Release the optional LLM client's connection pool (a server calls this at shutdown)."""
        llm = getattr(self._answerer, "llm", None)
        if llm is not None and hasattr(llm, "close"):
            llm.close()

    def ask(self, question: str, history: list[Turn] | list[dict] | None = None) -> Answer:
        draft = self.prepare_answer(question, history)
        return self.finish_answer(draft, self.llm_reply(draft))
