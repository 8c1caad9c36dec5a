"""A small exception tree. The CLI and HTTP layers turn these into one clear line or a 4xx/5xx."""

import logging


class TutorError(Exception):
    """Base of every error this package raises on purpose.

    `part` is None when the message is about the caller's input and meant for them; otherwise it
    names, in words, the part of the server that failed, and the message (which may name server
    paths) belongs in the server log only: `public_message()` is what a web user sees. Unless a
    subclass says otherwise, an error is the server's."""

    part: str | None = "the tutor"


class QueryError(TutorError, ValueError):
    """The question or query cannot be used (empty, whitespace only, not text)."""

    part = None  # about the caller's input: the message is for them


class CorpusError(TutorError):
    """A corpus card is missing, unreadable, or malformed (front matter, encoding, duplicate id)."""

    part = "the card corpus"


class IndexCorruptError(TutorError):
    """An index file on disk is missing, truncated, or does not match its manifest."""

    part = "the search index"


class EmbedderError(TutorError):
    """An unknown embedding backend, or a model that is not available locally."""

    part = "the embedding model"


class TemplateError(TutorError):
    """A prompt template is missing or uses a variable it is not allowed to."""

    part = "the answer templates"


class LLMError(TutorError):
    """The optional LLM endpoint failed (down, timeout, malformed reply)."""

    part = "the LLM"


class EvalCaseError(TutorError):
    """A malformed case in an evaluation file (the message names the file and line)."""

    part = None  # about the caller's input: the message is for them


class AnswerDataError(TutorError):
    """The answerer's labelled examples or lead table are malformed, or name a card sentence that is missing."""

    part = "the answer data"


class WorkerError(TutorError):
    """An answer worker process died or stalled; the workers were replaced, so a retry can succeed."""

    part = "the answer workers"


def public_message(exc: TutorError) -> str:
    """What a web user may read about `exc`: its own words when it is about their input, else which
    part failed, never the details: they name server paths, so they go to the server log here."""
    if exc.part is None:
        return str(exc)
    logging.getLogger("s2r_tutor").error("%s failed: %s", exc.part, exc)
    return f"the tutor cannot do this right now: a problem with {exc.part} (details are in the server log)"
