"""Read the study-relevant structure out of a chunk's Markdown: paragraphs, bullet lists (with an
optional **bold label** above), `Label：description` items, `示例：“…”` lines, quoted speech
followed by `→ tag / tag` lines. Every string returned is an exact substring of the chunk text,
so it can be quoted as a citation."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..models import Chunk
from ..text import sentences

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+(.*\S)\s*$")
_BOLD = re.compile(r"^\s*\*\*(.+?)\*\*\s*$")
_ARROW = re.compile(r"^\s*→\s*(.+?)\s*$")
_QUOTED = re.compile(r"^\s*([^\s：:“”\"]{1,12})\s*[：:]\s*[“\"](.+?)[”\"]\s*$")
_EXAMPLE_LABELS = {"示例", "例如", "例", "example", "e.g."}
# "01 · ", "A · ", "03 ", "客户场景 1：" -> the enumerator in front of a heading or an item
_ENUM = re.compile(r"^\s*(?:(?:\d{1,2}|[A-Z])\s*[·.、)]\s*|\d{1,2}\s+(?=\S)|[^\s：:]{1,8}\s*\d{1,2}\s*[：:]\s*)")
_LABEL_ITEM = re.compile(r"^([^：:]{1,24})[：:]\s*(\S.*)$")
_BILINGUAL = re.compile(r"^([^A-Za-z]*[\u3400-\u9fff][^A-Za-z]*?)\s+([A-Za-z][A-Za-z0-9 \-'/]*[A-Za-z0-9])$")


def strip_enum(text: str) -> str:
    """'01 · 域随机化 Domain Randomization' -> '域随机化 Domain Randomization'."""
    out = _ENUM.sub("", text, count=1).strip()
    return out or text.strip()


@dataclass
class BulletList:
    items: list[str]  # exact substrings of the chunk text (bullet marker left out)
    label: str | None = None  # a **bold** line right above the list


@dataclass
class Scenario:
    speaker: str
    speech: str  # the quoted words
    tags: list[str]
    arrow_line: str  # exact text after '→', e.g. 'Reality Gap / 地面 / 摩擦'
    remark: str = ""  # text after the tags, e.g. '不能只看算法效果'


@dataclass
class Structure:
    paragraphs: list[str] = field(default_factory=list)  # non-list lines, exact
    lists: list[BulletList] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)  # the quoted text of 示例：“…”
    scenarios: list[Scenario] = field(default_factory=list)

    def sentences(self) -> list[str]:
        return [s for p in self.paragraphs for s in sentences(p)]


def parse(text: str) -> Structure:
    st = Structure()
    label: str | None = None
    current: BulletList | None = None
    pending: tuple[str, str] | None = None  # (speaker, speech) waiting for its arrow line
    for line in text.splitlines():
        if not line.strip():
            current = None if current and current.items else current
            continue
        if m := _BULLET.match(line):
            if current is None:
                current = BulletList(items=[], label=label)
                st.lists.append(current)
                label = None
            current.items.append(m.group(1))
            continue
        current = None
        if m := _BOLD.match(line):
            label = m.group(1).strip()
            continue
        if m := _ARROW.match(line):
            if pending:
                tags_text, _, remark = m.group(1).partition("，")
                tags = [t.strip() for t in re.split(r"\s*/\s*", tags_text) if t.strip()]
                st.scenarios.append(Scenario(pending[0], pending[1], tags, m.group(1), remark.strip()))
                pending = None
            continue
        if m := _QUOTED.match(line):
            if m.group(1).lower() in _EXAMPLE_LABELS:
                st.examples.append(m.group(2))
            else:
                pending = (m.group(1), m.group(2))
            continue
        label = None
        st.paragraphs.append(line.strip())
    return st


def labelled_items(items: list[str]) -> list[tuple[str, str, str]]:
    """`(label, description, item)` for items shaped 'Label：description' (enumerator dropped)."""
    out = []
    for item in items:
        if m := _LABEL_ITEM.match(item):
            out.append((strip_enum(m.group(1)).strip(), m.group(2).strip(), item))
    return out


def heading_term(heading: str) -> tuple[str, str | None] | None:
    """A heading that names a term: ('域随机化', 'Domain Randomization'), ('成本', None); None for
    question headings ('为什么…？'), which are asked as recall questions instead."""
    h = strip_enum(heading)
    if not h or h.endswith(("？", "?")) or len(h) > 40:
        return None
    if m := _BILINGUAL.match(h):
        return m.group(1).strip(), m.group(2).strip()
    return h, None


def heading(chunk: Chunk) -> str:
    return chunk.section.split(" > ")[-1]


def parent(chunk: Chunk) -> str:
    return " > ".join(chunk.section.split(" > ")[:-1])
