"""The optional LLM path: numbered sources in, Markdown with [n] out, then the same verification as
the template answer. Any invalid citation, or nothing left after verification, raises LLMError so
the caller keeps the template answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

from ..errors import LLMError
from ..models import Answer, Chunk, Citation
from ..text import sentences
from .grounding import MIN_ANCHOR, renumber, verify
from .llm.base import LLM
from .templates import AnswerTemplate

MAX_SOURCES = 8
LANGUAGE_NAMES = {"zh": "简体中文 (Simplified Chinese)", "en": "English"}


def numbered_sources(template_answer: Answer, ranked: list, chunks: list[Chunk]) -> list[Chunk]:
    by_id = {c.chunk_id: c for c in chunks}
    picked = [by_id[c.chunk_id] for c in template_answer.citations if c.chunk_id in by_id]
    for r in ranked:
        if chunks[r.idx] not in picked:
            picked.append(chunks[r.idx])
    return picked[:MAX_SOURCES]


def build_messages(template: AnswerTemplate, question: str, lang: str, sources: list[Chunk]) -> list[dict[str, str]]:
    listing = "\n\n".join(f"[{i}] ({c.chunk_id} · {c.section})\n{c.text}" for i, c in enumerate(sources, 1))
    system = template.render(language=LANGUAGE_NAMES[lang], question=question, sources=listing)
    return [{"role": "system", "content": system}, {"role": "user", "content": question}]


def tighten(markdown: str, citations: list[Citation]) -> list[Citation]:
    """Shrink each quote from the whole chunk to the span of the sentences the answer actually used."""
    out = []
    for c in citations:
        cited = " ".join(line for line in markdown.splitlines() if f"[{c.marker}]" in line)
        used = []
        for s in sentences(c.text):
            m = SequenceMatcher(None, cited, s, autojunk=False).find_longest_match(0, len(cited), 0, len(s))
            if m.size >= min(MIN_ANCHOR, len(s)):
                start = c.text.find(s)
                used.append((start, start + len(s)))
        if used:
            c = c.model_copy(update={"quote": c.text[min(a for a, _ in used):max(b for _, b in used)]})
        out.append(c)
    return out


@dataclass
class LLMRequest:
    """What the LLM is asked (messages), and what its reply is checked against (sources)."""

    messages: list[dict[str, str]]
    sources: list[Chunk]


@dataclass
class Draft:
    """A verified template answer and, when an LLM is configured, the request that may replace it."""

    answer: Answer
    request: LLMRequest | None = None
    #: what is done to the verified LLM reply before it is shown (the template answer had it done already): a draft
    #: to send moves its markers out of the customer's text (forms.Forms.unmarked), whoever wrote the draft
    after: Callable[[Answer], Answer] | None = None


def prepare(template: AnswerTemplate, chunks: list[Chunk], template_answer: Answer, ranked: list,
            lang: str) -> LLMRequest:
    sources = numbered_sources(template_answer, ranked, chunks)
    return LLMRequest(build_messages(template, template_answer.question, lang, sources), sources)


def finish(llm_name: str, request: LLMRequest, template_answer: Answer, reply: str) -> Answer:
    """The LLM's reply, verified segment by segment against the sources; LLMError when nothing holds."""
    sources = request.sources
    provisional = [Citation(marker=i, chunk_id=c.chunk_id, section=c.section, quote=c.text, text=c.text,
                            source=c.source) for i, c in enumerate(sources, 1)]
    verdict = verify(reply.strip(), provisional, set(), untrusted=True)
    if verdict.invalid:
        raise LLMError(f"LLM citations do not hold up: {verdict.invalid[0][:80]!r}")
    text, citations = renumber(verdict.markdown, provisional)
    if not citations:
        raise LLMError("nothing in the LLM reply could be tied to the sources")
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return template_answer.model_copy(update={"answer": text, "citations": tighten(text, citations),
                                              "backend": f"llm:{llm_name}"})


def llm_answer(llm: LLM, template: AnswerTemplate, chunks: list[Chunk], template_answer: Answer,
               ranked: list, lang: str) -> Answer:
    """prepare -> ask -> finish in one call (for callers that do not split CPU from network)."""
    request = prepare(template, chunks, template_answer, ranked, lang)
    return finish(llm.name, request, template_answer, llm.complete(request.messages))
