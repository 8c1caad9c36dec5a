"""A zh↔en glossary of the card's vocabulary.

Two uses: English questions are expanded with the Chinese terms they name, so BM25 (which sees the
Chinese card through jieba) can match them; and study flashcards show the card's core terms in both
languages. `core` terms are the card's own named concepts (flashcards); the rest is everyday
vocabulary readers use for the same things (expansion only). The terms and synonyms are data
(`data/rules/glossary.json`), read on first use.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from pydantic import BaseModel, Field


class Term(BaseModel):
    zh: str
    en: str
    aliases: list[str] = Field(default_factory=list, description="other English spellings, lower case")
    anchor: str | None = Field(None, description="the 04-08 section that explains the term")
    core: bool = Field(False, description="a concept the card names (shown as a flashcard)")


_SOURCE = "data/rules/glossary.json"


@lru_cache(maxsize=1)
def _load() -> tuple[list[Term], dict[str, str]]:
    """The glossary data file, parsed and validated once; a bad entry is an AnswerDataError naming it."""
    from importlib import resources

    from pydantic import ValidationError

    from ..errors import AnswerDataError

    try:
        data = json.loads(resources.files("s2r_tutor").joinpath(_SOURCE).read_text("utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise AnswerDataError(f"{_SOURCE}: cannot be read ({exc})") from None
    terms = []
    for i, raw in enumerate(data.get("terms") or []):
        try:
            terms.append(Term.model_validate(raw))
        except ValidationError as exc:
            name = raw.get("zh") if isinstance(raw, dict) else raw
            raise AnswerDataError(f"{_SOURCE}: terms[{i}] ({name!r}): {exc.errors()[0]['msg']}") from None
    synonyms = data.get("zh_synonyms")
    if not terms or not isinstance(synonyms, dict) or not all(isinstance(k, str) and k and isinstance(v, str) and v
                                                              for k, v in synonyms.items()):
        raise AnswerDataError(f"{_SOURCE}: needs 'terms' and 'zh_synonyms' (word -> card term)")
    return terms, synonyms


def __getattr__(name: str):
    # GLOSSARY: the terms; ZH_SYNONYMS: everyday Chinese words readers use for what the card names in
    # its own vocabulary (expansion only: added to the retrieval query, never to an answer)
    if name == "GLOSSARY":
        return _load()[0]
    if name == "ZH_SYNONYMS":
        return _load()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern, str]]:
    pats = []
    for term in _load()[0]:
        for name in {term.en.lower(), *term.aliases}:
            pats.append((re.compile(r"(?<![a-z0-9])" + re.escape(name) + r"(?![a-z0-9])"), term.zh))
    # longest first, so "reality gap" wins over "gap"-like shorter aliases
    return sorted(pats, key=lambda p: -len(p[0].pattern))


def zh_terms_for(text: str) -> list[str]:
    """The card's Chinese terms for what `text` names in English or in everyday Chinese, in order,
    without repeats and without terms the text already contains."""
    low = text.lower()
    found: list[str] = []
    for pat, zh in _patterns():
        if zh not in found and pat.search(low):
            found.append(zh)
    found += [zh for zh in everyday_terms(text) if zh not in found]
    return [t for t in found if t.lower() not in low]


def everyday_terms(text: str) -> list[str]:
    """The card terms `text` names in everyday Chinese only (zh_synonyms: "贵" -> 成本), without the English
    aliases: what a question's own words point at in the card's vocabulary."""
    return list(dict.fromkeys(zh for word, zh in _load()[1].items() if word in text and zh not in text))


def expand_query(text: str) -> str:
    """`text` plus the Chinese terms it names: only for retrieval, never shown to the reader."""
    extra = zh_terms_for(text)
    return f"{text} {' '.join(extra)}" if extra else text
