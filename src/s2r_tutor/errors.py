"""A small exception tree. The CLI and HTTP layers turn these into one clear line or a 4xx/5xx."""


class TutorError(Exception):
    """Base of every error this package raises on purpose; its message is meant for users."""


class QueryError(TutorError, ValueError):
    """The question or query cannot be used (empty, whitespace only, not text)."""


class CorpusError(TutorError):
    """A corpus card is missing, unreadable, or malformed (front matter, encoding, duplicate id)."""


class IndexCorruptError(TutorError):
    """An index file on disk is missing, truncated, or does not match its manifest."""


class EmbedderError(TutorError):
    """An unknown embedding backend, or a model that is not available locally."""


class TemplateError(TutorError):
    """A prompt template is missing or uses a variable it is not allowed to."""


class LLMError(TutorError):
    """The optional LLM endpoint failed (down, timeout, malformed reply)."""


class EvalCaseError(TutorError):
    """A malformed case in an evaluation file (the message names the file and line)."""


class AnswerDataError(TutorError):
    """The answerer's labelled examples or lead table are malformed, or name a card sentence that is missing."""
