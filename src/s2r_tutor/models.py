"""Typed results that cross every boundary (Python API, CLI --json, HTTP). Names are contracts."""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Intent(str, Enum):
    """What the reader is asking for; each has one template per language in prompts/."""

    definition = "definition"
    why_simulation = "why_simulation"
    loop = "loop"
    reality_gap = "reality_gap"
    methods = "methods"
    rl_vs_sim2real = "rl_vs_sim2real"
    physical_system = "physical_system"
    why_hard = "why_hard"
    scenario = "scenario"
    quick_memory = "quick_memory"
    related = "related"
    out_of_scope = "out_of_scope"


class Chunk(BaseModel):
    """One retrievable piece of a card: a section, or a paragraph-bounded part of a long one."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str = Field(description="stable id, e.g. '04-08#reality-gap' (or '...#reality-gap-2' for a split part)")
    doc_id: str = Field(description="card id from the front matter, e.g. '04-08'")
    title: str = Field(description="the card's title")
    section: str = Field(description="heading path, ' > '-joined")
    anchor: str = Field(description="the section's anchor id (without the card id)")
    text: str = Field(description="the section body as Markdown, comments removed")
    source: str = Field(description="corpus-relative path of the card file")
    line_start: int = Field(description="first line of the section in the source file (1-based)")
    line_end: int = Field(description="last line of the section in the source file (inclusive)")
    questions: list[str] = Field(
        default_factory=list, description="reader questions the section answers (the card's .questions.jsonl): "
        "search keys only, never shown or quoted")
    section_en: str = Field("", description="the heading path in the card's English rendering ('' without one)")
    sentences_en: list[str] = Field(
        default_factory=list, description="the aligned English of each sentence of `text` (text.sentences() order), "
        "from the card's .en.md; empty without one")

    @property
    def heading(self) -> str:
        """The heading path below the card title (every chunk shares the title, so it adds no signal)."""
        parts = self.section.split(" > ")
        return " > ".join(parts[1:] if len(parts) > 1 else parts)

    @property
    def heading_en(self) -> str:
        """`heading` in the English rendering ('' without one)."""
        parts = self.section_en.split(" > ") if self.section_en else []
        return " > ".join(parts[1:] if len(parts) > 1 else parts)

    def embed_text(self) -> str:
        """What BM25 and the whole-section vector see: the heading gives short sections their topic."""
        return f"{self.heading}\n{self.text}"


class Hit(BaseModel):
    chunk_id: str
    doc_id: str
    section: str = Field(description="heading path")
    text: str = Field(description="the chunk's full text")
    score: float
    source: str = Field(description="corpus-relative path")


class Citation(BaseModel):
    marker: int = Field(description="the n in [n]")
    chunk_id: str
    section: str
    quote: str = Field(description="the supporting sentence(s): an exact span of `text`")
    quote_en: str | None = Field(None, description="the aligned English of every card sentence `quote` spans, "
                                 "from the card's English rendering; None when the card has none")
    text: str = Field(description="the cited chunk's full text")
    source: str


class Turn(BaseModel):
    """One prior message of a conversation, as passed in `history`."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["user", "assistant"]
    content: str = Field(max_length=20_000)


class Answer(BaseModel):
    question: str
    language: Literal["zh", "en"]
    intent: str
    act: str = Field("", description="what is asked (answer.acts.ACTS: define, why, how, compare, verdict, "
                     "customer_reply, check_first, example, simpler, not_in_card, overview, out_of_scope)")
    answer: str = Field(description="Markdown with [n] markers")
    citations: list[Citation] = Field(default_factory=list)
    refused: bool = False
    followups: list[str] = Field(default_factory=list)
    hits: list[Hit] = Field(default_factory=list)
    backend: str = Field("template", description="'template' or 'llm:<model>'")
