"""Read access to the card's sections by anchor, and the card sentences builders quote from."""

from __future__ import annotations

import itertools
import re

from ..models import Chunk
from ..text import sentences
from .grounding import Ledger

_NUMBERING = re.compile(r"^\d+\s*[·.、]?\s*")
_NUMBERED = re.compile(r"^\d+\s")  # an item of a numbered list in the card ("05 真机验证仍然不可避免")


_TERM_CHARS = 6  # a list whose middle item is shorter than this enumerates terms ("本体重量", "减速器")


def terms(text: str) -> set[str]:
    """The items of a section's lists when they enumerate short terms ("本体重量", "摔倒", "仿真验证"): a term
    is not a statement."""
    items = [ln.strip()[2:].strip() for ln in text.splitlines() if ln.strip().startswith("- ")]
    lengths = sorted(len(unnumber(i)) for i in items)
    return set(items) if lengths and lengths[len(lengths) // 2] < _TERM_CHARS else set()


class CardView:
    def __init__(self, chunks: list[Chunk], doc_id: str = "04-08"):
        self.doc_id = doc_id
        # the card's own filler clauses (zh -> its English), quoted without: set once data/leads.json
        # filler_clauses is checked against the card (Answerer)
        self.fillers: dict[str, str] = {}
        self._by_anchor: dict[str, Chunk] = {}
        for c in chunks:
            if c.doc_id == doc_id and c.chunk_id == f"{doc_id}#{c.anchor}":
                self._by_anchor[c.anchor] = c

    @property
    def anchors(self) -> list[str]:
        return list(self._by_anchor)

    def chunk(self, anchor: str) -> Chunk | None:
        return self._by_anchor.get(anchor)

    def sents(self, anchor: str) -> list[str]:
        c = self.chunk(anchor)
        return sentences(c.text) if c else []

    def items(self, anchor: str) -> list[str]:
        """The numbered items of a section, numbers kept ("01 真实世界无法被完全模拟", ...): what an ordinal points into."""
        return [x for x in self.sents(anchor) if _NUMBERED.match(x)]

    def heading(self, anchor: str) -> str:
        c = self.chunk(anchor)
        return c.section.split(" > ")[-1] if c else ""

    def dependent_items(self, anchor: str) -> set[str]:
        """List items that cannot open an answer alone, read from the card's structure: items of parallel
        lists under bold sub-headings ("**强化学习**" / "**Sim2Real**": "可以在仿真或真实环境中训练" names
        no subject of its own), and the terms of an enumeration of short terms ("本体重量", "关节结构", …,
        "世界模型与真实环境的差异"): a term is not a statement."""
        c = self.chunk(anchor)
        if c is None:
            return set()
        rows = [ln.strip() for ln in c.text.splitlines() if ln.strip()]
        if sum(1 for r in rows if re.fullmatch(r"\*\*[^*]+\*\*", r)) >= 2:
            return {r[2:].strip() for r in rows if r.startswith("- ")}
        return terms(c.text)


    def item_heading(self, anchor: str, item: str) -> str:
        """The bold sub-heading a list item stands under ("**强化学习**" over "可以在仿真或真实环境中训练"),
        '' when the item is not under one: such an item names no subject of its own."""
        c = self.chunk(anchor)
        if c is None:
            return ""
        head = ""
        for ln in (x.strip() for x in c.text.splitlines()):
            m = re.fullmatch(r"\*\*([^*]+)\*\*", ln)
            if m:
                head = m.group(1).strip()
            elif ln.startswith("- ") and item in ln:
                return head
            elif ln and not ln.startswith("- "):
                head = ""
        return ""


# the card's labelled quotation: 示例：“…” (a method's example)
QUOTATION = re.compile(r"^\s*[^“”：\s]{1,6}：“")


def unquote(sentence: str) -> str:
    """The words inside a labelled quotation ('示例：“先在仿真中学习…”' -> '先在仿真中学习…', still an exact
    substring); any other sentence as it stands, unnumbered."""
    inner = re.search(r"“(.+)”", sentence) if QUOTATION.match(sentence) else None
    return inner.group(1) if inner else unnumber(sentence)


def unnumber(item: str) -> str:
    """'01 真实世界无法被完全模拟' -> '真实世界无法被完全模拟' (still an exact substring)."""
    return _NUMBERING.sub("", item)


_TRAILING_MARKERS = re.compile(r"(?:\s*\[\d+\])+$")


def stopped(quoted: str, lang: str) -> str:
    """A cited card phrase said as a sentence: its stop (。 / .) before its markers, where the card's list item or
    clause has none of its own ("真机验证仍然不可避免 [1] 解决方案人员要知道…" ran two quotes together)."""
    m = _TRAILING_MARKERS.search(quoted)
    text, marks = (quoted[: m.start()], m.group(0)) if m else (quoted, "")
    if not text:
        return quoted
    if lang != "zh":
        # (a closing quote ends an English quotation too: "…falls easily.”." read as a stray mark to a blind 41 reader)
        return quoted if text.endswith((".", "!", "?", ":", "。", "”", '"')) else text.rstrip(";, ") + "." + marks
    # a quoted example ends with its closing quote mark: "…传感器噪声”。" read wrong (b14-006)
    return quoted if text.endswith(("。", "！", "？", "”")) else text.rstrip("；;，,") + "。" + marks


class Writer:
    """Builds cited Markdown lines from card spans through a Ledger (so every quote is checked)."""

    def __init__(self, card: CardView, ledger: Ledger, lang: str):
        self.card, self.ledger, self.lang = card, ledger, lang

    def quote(self, anchor: str, *spans: str, sep: str = "") -> str | None:
        """The spans joined by `sep`, with the chunk's [n]; spans that are not in the chunk are left out."""
        chunk = self.card.chunk(anchor)
        if chunk is None:
            return None
        # a sentence opening with the card's own filler ("不需要先理解复杂公式，可以把…") is quoted from after it:
        # readers called the clause filler in five blind sets (b43-006, b45en-009, b45en-027, b49en-007, b49en-030)
        spans = tuple(next((s[len(f):] for f in self.card.fillers if s.startswith(f) and len(s) > len(f)), s)
                      for s in spans)
        good = [s for s in spans if s and s in chunk.text]
        if not good:
            return None
        for s in good[:-1]:
            self.ledger.cite(chunk, s)
        tail = self.ledger.cite(chunk, good[-1])
        return sep.join(good[:-1] + [tail]) if len(good) > 1 else tail

    def bullet(self, anchor: str, *spans: str, label: str = "", sep: str = "", prefix: str = "- ") -> str:
        body = self.quote(anchor, *spans, sep=sep)
        if body is None:
            return ""
        if label and body.startswith(label):  # "场景：场景：…", "因此：因此工程师…": the sentence says it
            label = ""
        label = as_label(label)
        if label:
            self.ledger.frame(f"**{label}**")
            return f"{prefix}**{label}**：{body}" if self.lang == "zh" else f"{prefix}**{label}**: {body}"
        return f"{prefix}{body}"

    def sentence(self, anchor: str, contains: str) -> str:
        """The first card sentence of `anchor` that contains `contains` ('' when none does)."""
        return next((s for s in self.card.sents(anchor) if contains in s), "")

    def listed(self, anchor: str, head: str, label: str = "") -> str:
        """A bullet of `head` and the list of short terms that follows it in the card ("真实机器人训练成本高：
        设备磨损、场地、人工、维修"): such a head says little without its items (blind 34 b34-050 quoted the
        cost head alone). A head no term list follows is its own bullet."""
        s, terms = self.card.sents(anchor), self.card.dependent_items(anchor)
        after = s[s.index(head) + 1:] if head in s else []
        items = list(itertools.takewhile(lambda x: x in terms, after))
        head = unnumber(head)  # "05 真机验证仍然不可避免": the item's words
        line = self.bullet(anchor, head, *items, label=label, sep="、")
        return line.replace(f"{head}、", f"{head}：", 1) if items else line  # the card's own pieces (as _aspect)


def as_label(heading: str) -> str:
    """A section heading used as a line's label: a heading asked as a question labels without its "？"
    (「**解决方案人员什么时候要想到 Sim2Real**：」, not 「…Sim2Real**？：」)."""
    return heading.strip().rstrip("？?")


def lines(*items: str) -> str:
    return "\n".join(i for i in items if i)


class StrictWriter(Writer):
    """A Writer that records every card sentence or span a builder asks for and does not find: the
    answerer dry-runs every builder with it at load, so an edited card fails at start-up, naming the
    sentence, instead of answering with a silently shorter answer."""

    def __init__(self, card: CardView, lang: str = "zh"):
        super().__init__(card, Ledger(), lang)
        self.missing: list[str] = []

    def quote(self, anchor: str, *spans: str, sep: str = "") -> str | None:
        chunk = self.card.chunk(anchor)
        if chunk is None:
            self.missing.append(f"section {anchor!r} is missing")
            return None
        for s in spans:
            if s and s not in chunk.text:
                self.missing.append(f"section {anchor!r} no longer contains {s!r}")
        if not any(spans):
            self.missing.append(f"section {anchor!r}: an expected sentence was not found")
        return super().quote(anchor, *spans, sep=sep)

    def sentence(self, anchor: str, contains: str) -> str:
        found = super().sentence(anchor, contains)
        if not found:
            self.missing.append(f"section {anchor!r} has no sentence containing {contains!r}")
        return found
