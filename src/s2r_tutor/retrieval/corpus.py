"""Reading concept cards: `corpus/*.md` with YAML front matter and `{#anchor}`-tagged headings.

A card may have a companion `<card>.questions.jsonl`: questions readers ask that a section answers,
one `{"anchor": ..., "question": ...}` per line. They are extra search keys for that section
(docs/retrieval.md), never shown and never quoted; a card without the file works as before.

A card may also have an English rendering `<card>.en.md`, sentence-aligned to it (alignment.py,
docs/cards.md); it is loaded with the card, never as a card of its own.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .alignment import Rendering, card_path_of, is_rendering, parse_rendering, rendering_path
from ..errors import CorpusError
from ..text import strip_anchor, strip_comments

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")
_FENCE = re.compile(r"^(```|~~~)")


class CardMeta(BaseModel):
    """The front matter every card must carry."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1, description="card id, e.g. '04-08'")
    title: str = Field(min_length=1)
    language: str = "zh"
    related: list[str] = Field(default_factory=list)


class Section(BaseModel):
    """A heading and the body lines up to the next heading of any level."""

    level: int
    heading: str
    anchor: str
    path: list[str] = Field(description="headings from the top down to this one")
    body: str
    line_start: int
    line_end: int


class Card(BaseModel):
    meta: CardMeta
    source: str = Field(description="corpus-relative path")
    sections: list[Section]
    questions: dict[str, list[str]] = Field(
        default_factory=dict, description="anchor -> reader questions from the card's .questions.jsonl")
    english: Rendering | None = Field(None, description="the card's sentence-aligned .en.md, when it has one")


QUESTIONS_SUFFIX = ".questions.jsonl"
MAX_QUESTION_CHARS = 300


class CardQuestion(BaseModel):
    """One line of a `.questions.jsonl` file."""

    model_config = ConfigDict(extra="forbid")

    anchor: str = Field(min_length=1)
    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)


def questions_path(card_path: Path) -> Path:
    return card_path.with_name(card_path.stem + QUESTIONS_SUFFIX)


def parse_questions(text: str, source: str, anchors: set[str]) -> dict[str, list[str]]:
    """anchor -> questions, in file order, duplicates dropped. A bad line is a CorpusError naming
    file:line: a typo in an anchor would otherwise silently attach nothing."""
    out: dict[str, list[str]] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}:{lineno}"
        try:
            item = CardQuestion.model_validate(json.loads(line))
        except ValueError as exc:  # JSONDecodeError and ValidationError are both ValueErrors
            what = "is not valid JSON" if isinstance(exc, json.JSONDecodeError) else \
                "needs exactly a non-empty 'anchor' and 'question' (at most %d characters)" % MAX_QUESTION_CHARS
            raise CorpusError(f"{where}: {what}") from None
        if item.anchor not in anchors:
            raise CorpusError(f"{where}: no section with text of its own has the anchor {item.anchor!r}")
        question = " ".join(item.question.split())
        if not question:
            raise CorpusError(f"{where}: the question is blank")
        bucket = out.setdefault(item.anchor, [])
        if question not in bucket:
            bucket.append(question)
    return out


def slugify(text: str) -> str:
    """A stable anchor for headings without `{#id}`: lowercase ASCII words and CJK kept as is."""
    text = re.sub(r"[^\w\u3400-\u9fff]+", "-", text.lower()).strip("-_")
    return text or "section"


def _split_front_matter(text: str, source: str) -> tuple[dict, int]:
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        raise CorpusError(f"{source}: missing front matter (the file must start with a '---' line)")
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                data = yaml.safe_load("\n".join(lines[1:i])) or {}
            except (yaml.YAMLError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
                raise CorpusError(f"{source}: front matter is not valid YAML ({exc.__class__.__name__})") from None
            if not isinstance(data, dict):
                raise CorpusError(f"{source}: front matter must be a mapping of keys to values")
            return data, i + 1
    raise CorpusError(f"{source}: front matter is not closed by a '---' line")


def parse_card(text: str, source: str) -> Card:
    data, body_start = _split_front_matter(text, source)
    # YAML turns unquoted 04-08 into a string but 4 into an int; ids are always strings here.
    # Only scalars are turned into strings: str() of a nested (or alias-bombed) YAML value could be huge.
    scalar = (str, int, float)
    if isinstance(data.get("id"), scalar) and not isinstance(data.get("id"), bool):
        data["id"] = str(data["id"])
    related = data.get("related") or []
    if isinstance(related, str):
        related = [related]
    if not isinstance(related, list) or not all(isinstance(r, scalar) for r in related):
        raise CorpusError(f"{source}: front matter field 'related' must be a list of card ids")
    data["related"] = [str(r) for r in related]
    try:
        meta = CardMeta.model_validate(data)
    except ValidationError as exc:
        fields = ", ".join(".".join(map(str, e["loc"])) for e in exc.errors())
        raise CorpusError(f"{source}: front matter is missing or has invalid fields: {fields}") from None

    lines = text.split("\n")
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    current: dict | None = None
    in_fence = False
    used: set[str] = set()

    def close(end: int) -> None:
        if current is None:
            return
        body = "\n".join(lines[current["start"]: end]).strip("\n")
        sections.append(Section(body=body, line_end=end, **{k: v for k, v in current.items() if k != "start"}))

    for idx in range(body_start, len(lines)):
        line = lines[idx]
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if not m:
            continue
        close(idx)
        level = len(m.group(1))
        heading, anchor = strip_anchor(m.group(2))
        anchor = anchor or slugify(heading)
        base, n = anchor, 2
        while anchor in used:  # two headings with the same text still get distinct ids
            anchor, n = f"{base}-{n}", n + 1
        used.add(anchor)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading))
        current = dict(level=level, heading=heading, anchor=anchor, path=[h for _, h in stack],
                       line_start=idx + 1, start=idx + 1)
    # A final newline leaves an empty string after the last line; it is not a line of the file.
    close(len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines))
    if not sections:
        raise CorpusError(f"{source}: no headings found; a card needs at least one '# Title' heading")
    return Card(meta=meta, source=source, sections=sections)


def _read_bytes(path: Path, source: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{source}: cannot be read ({exc.strerror})") from None


def _decode(raw: bytes, source: str) -> str:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{source}: is not valid UTF-8 (byte {exc.start})") from None
    if "\x00" in text:
        raise CorpusError(f"{source}: looks like a binary file (contains NUL bytes)")
    return text.replace("\r\n", "\n")


def read_card(path: Path, root: Path) -> Card:
    source = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    card = parse_card(_decode(_read_bytes(path, source), source), source)
    qpath = questions_path(path)
    if qpath.is_file():
        qsource = source[: -len(path.name)] + qpath.name
        answerable = {s.anchor for s in card.sections if strip_comments(s.body).strip()}  # sections with chunks
        card.questions = parse_questions(_decode(_read_bytes(qpath, qsource), qsource), qsource, answerable)
    epath = rendering_path(path)
    if epath.is_file():
        esource = source[: -len(path.name)] + epath.name
        card.english = parse_rendering(_decode(_read_bytes(epath, esource), esource), esource, card)
    return card


def card_paths(corpus_dir: Path) -> list[Path]:
    if not corpus_dir.is_dir():
        raise CorpusError(f"corpus folder not found: {corpus_dir}")
    found = sorted(p for p in corpus_dir.rglob("*.md") if p.is_file() and not p.name.startswith(("_", ".")))
    paths = [p for p in found if not is_rendering(p)]  # an English rendering belongs to its card
    if not paths:
        raise CorpusError(f"no cards (*.md) in {corpus_dir}")
    for p in found:
        if is_rendering(p) and card_path_of(p) not in paths:
            raise CorpusError(f"{p.relative_to(corpus_dir).as_posix()}: an English rendering whose card "
                              f"{card_path_of(p).name} is not in the corpus")
    return paths


def load_corpus(corpus_dir: Path) -> list[Card]:
    """Every card under corpus_dir, sorted by path; duplicate card ids are an error."""
    cards = [read_card(p, corpus_dir) for p in card_paths(corpus_dir)]
    seen: dict[str, str] = {}
    for card in cards:
        if card.meta.id in seen:
            raise CorpusError(f"duplicate card id {card.meta.id!r} in {seen[card.meta.id]} and {card.source}")
        seen[card.meta.id] = card.source
    return cards


def corpus_hash(corpus_dir: Path) -> str:
    """Content hash over every card's (and its questions file's and English rendering's) path and
    bytes: the index is stale when this changes."""
    h = hashlib.sha256()
    for card in card_paths(corpus_dir):
        for p in [card] + [x for x in (questions_path(card), rendering_path(card)) if x.is_file()]:
            source = p.relative_to(corpus_dir).as_posix()
            h.update(source.encode())
            h.update(b"\0")
            h.update(_read_bytes(p, source))  # an unreadable card is a CorpusError here too, not an OSError
            h.update(b"\0")
    return h.hexdigest()
