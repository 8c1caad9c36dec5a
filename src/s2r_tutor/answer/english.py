"""The English swap at the answer's final render step: cited Chinese card text becomes the aligned
English of the same card sentences (the card's `.en.md`, alignment.py).

Composition and verification run on the Chinese card as always; only the finished, verified
Markdown is rewritten, and only with English that the alignment ties to a cited Chinese sentence:
a piece of card text whose sentence has no aligned English stays Chinese. Each citation gets
`quote_en` (both languages), while `quote` stays the exact Chinese span.

A cited piece may be a clause of a sentence ("仿真中的摩擦系数可能不准确"): English is aligned by
sentence, so it becomes the whole English sentence, once per answer, and a label that named only
that clause ("Friction") is dropped with it.
"""

from __future__ import annotations

import re

from ..retrieval.alignment import english_of_span, has_english, quote_english, sentence_offsets
from ..models import Answer, Chunk, Citation
from ..text import sentences
from .card import QUOTATION
from .grounding import MARKER

_UNIT = re.compile(r"(?<=\])(?!\s*\[)")
_MARKERS_AT_END = re.compile(r"((?:\s*\[\d+\])+)\s*$")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_NUMBERING = re.compile(r"^\d+\s*[·.、]?\s*")
_LABEL = re.compile(r"\*\*[^*\n]+\*\*\s*[:：]\s*")
_ZH_PAREN = re.compile(r"\s*[（(][^（）()\n]*[\u3400-\u9fff][^（）()\n]*[）)]")
# Card terms that keep their capitals inside a sentence (the card's own glosses and names).
_PROPER = ("Sim2Real", "Reality Gap", "Domain Randomization", "System Identification", "Real-world Fine-tuning",
           "Robust Policy", "Simulation to Reality")
# Template wording that stops being true once the quotes are English.
_SEPARATORS = set("、，,；;：:→/ |。")
_PUNCT = str.maketrans({"；": "; ", "，": ", ", "：": ": ", "。": ". ", "、": ", "})
_FRAMING = {"(quotes are the card's own Chinese text)": "(quotes are from the card's aligned English rendering)",
            "(quotes are the card's own text)": "(quotes are from the card's aligned English rendering)"}


def with_quote_en(citations: list[Citation], chunks: dict[str, Chunk]) -> list[Citation]:
    """Each citation with `quote_en` filled from its chunk's alignment (None without one)."""
    out = []
    for c in citations:
        chunk = chunks.get(c.chunk_id)
        en = quote_english(chunk, c.quote) if chunk is not None else None
        out.append(c.model_copy(update={"quote_en": en}))
    return out


def heading_names(chunks: list[Chunk]) -> dict[str, str]:
    """Chinese heading (and title) -> its English rendering, for labels that name a section."""
    names: dict[str, str] = {}
    for c in chunks:
        if not c.section_en:
            continue
        for zh, en in zip(c.section.split(" > "), c.section_en.split(" > ")):
            if _CJK.search(zh):
                names.setdefault(zh.strip(), en.strip())
                # the bold fix moves a closing ？ out of the bold ("**…是什么关系**？"): the bare heading too
                names.setdefault(zh.strip().rstrip("？?：:"), en.strip().rstrip("?:"))
        if _CJK.search(c.title) and c.section_en:
            names.setdefault(c.title.strip(), c.section_en.split(" > ")[0].strip())
    return names


def _fix_framing(text: str, names: dict[str, str]) -> str:
    for zh in sorted(names, key=len, reverse=True):
        if zh in text:
            text = text.replace(zh, names[zh])
    for old, new in _FRAMING.items():
        text = text.replace(old, new)
    text = _ZH_PAREN.sub("", text)
    return text.translate(_PUNCT)


def _bold_names(text: str, names: dict[str, str]) -> str:
    """A bold label that is a Chinese heading becomes the English heading."""
    return re.sub(r"\*\*([^*\n]+)\*\*", lambda m: f"**{names.get(m.group(1).strip(), m.group(1))}**", text)


def _matches(body: str, chunks: list[Chunk]) -> list[tuple[int, int]]:
    """Maximal pieces of `body` that are card text of the cited chunks (each with a Chinese
    character), left to right. A piece starts at a Chinese character or the start of a word, and
    stops at the end of a whole card sentence (or list item) when the answer's own separator
    follows: '关节结构、电机性能' joined by the answer is two items, not a run of one long sentence.
    Bold labels are framing, never card text."""
    masked = re.sub(r"\*\*[^*\n]+\*\*", lambda m: "\x01" * len(m.group(0)), body)
    texts = [c.text for c in chunks]
    whole = sorted({w for c in chunks for s in sentences(c.text) for w in (s, _NUMBERING.sub("", s)) if w},
                   key=len, reverse=True)
    out, i = [], 0
    while i < len(masked):
        ch = masked[i]
        starts = bool(_CJK.match(ch)) or (ch.isalnum() and (i == 0 or not masked[i - 1].isalnum()))
        if not starts:
            i += 1
            continue
        best = i
        for t in texts:
            j = best
            while j < len(masked) and masked[i: j + 1] in t:
                j += 1
            best = max(best, j)
        for w in whole:  # the longest whole sentence here, if the answer's separator follows it
            end = i + len(w)
            if end < best and masked.startswith(w, i) and (end == len(masked) or masked[end] in _SEPARATORS):
                best = end
                break
        if best - i >= 2 and _CJK.search(masked[i:best]):
            out.append((i, best))
            i = best
        else:
            i += 1
    return out


def _locate(piece: str, chunk: Chunk, after: int = 0) -> tuple[int, int] | None:
    """Where `piece` sits in the chunk: an occurrence that is a whole sentence (or a whole list item
    without its numbering) wins over one inside a longer sentence ('传感器' the item, not the word);
    among equals, the first at or after `after` (a repeated item, '已完成', is read in card order)."""
    text, spans = chunk.text, sentence_offsets(chunk.text)
    best, best_key = None, None
    start = text.find(piece)
    while start >= 0:
        end = start + len(piece)
        score = 0
        for x, y in spans:
            if x <= start and end <= y:
                whole = text[x:y]
                if whole.strip() == piece.strip() or _NUMBERING.sub("", whole).strip() == piece.strip():
                    score = 2
                elif start == x or start == x + len(whole) - len(_NUMBERING.sub("", whole)):
                    score = 1
                break
        key = (score, start >= after)
        if best_key is None or key > best_key:
            best, best_key = (start, end), key
        start = text.find(piece, start + 1)
    return best


def lower_first(text: str) -> str:
    """'Equipment wear' -> 'equipment wear' inside a list; card terms and acronyms keep capitals."""
    if not text or text.startswith(_PROPER):
        return text
    word = re.match(r"[A-Z][a-z]*(?=\W|$)", text)  # 'Equipment', 'A'; not 'IMU' or 'Sim2Real'
    return text[0].lower() + text[1:] if word else text


def _sep(raw: str) -> str:
    s = raw.strip()
    if "→" in s:
        return " → "
    if "/" in s:
        return " / "
    if any(p in s for p in "；;"):
        return "; "
    if any(p in s for p in "：:"):
        return ": "
    if any(p in s for p in "、，,"):
        return ", "
    if any(p in s for p in "。.！!？?"):
        return ". "
    return " "


# a sentence's own short address ("解决方案人员要知道：") left out of the quote, and its English ("… need to know: ");
# not the card's labelled quotation (示例：“…”), handled by _QUOTED below
_OPENER = re.compile(r"[^。！？；，\n]{2,12}：“?")
_OPENER_EN = re.compile(r"[^.!?;:“”\n]{2,48}:\s+")
_QUOTED = QUOTATION  # the card's labelled quotation: 示例：“…”
_QUOTED_EN = re.compile(r"^\s*[^“”:]{1,20}:\s*“(.*)”\s*$", re.S)


class _Swapper:
    """Rewrites the answer line by line; remembers which card sentences are already shown."""

    def __init__(self, citations: list[Citation], chunks: dict[str, Chunk], names: dict[str, str],
                 fillers: dict[str, str] | None = None):
        self.by_marker = {c.marker: chunks.get(c.chunk_id) for c in citations}
        self.names = names
        self.fillers = fillers or {}  # the card's filler clauses the Chinese quote left out -> their English
        self.shown: set[tuple[str, int]] = set()
        self.lines: list[str] = []
        self.labelled: dict[tuple[str, int], tuple[int, str]] = {}  # sentence -> (line, its label)

    def unit(self, unit: str, table: bool) -> tuple[str | None, str, list[tuple[str, int]]]:
        """(English unit or None when all it says is already shown, its framing prefix, its sentences)."""
        m = _MARKERS_AT_END.search(unit)
        if not m:
            return _fix_framing(_bold_names(unit, self.names), self.names), "", []
        body, markers = unit[: m.start()], m.group(1)
        cited = [c for n in MARKER.findall(markers) if (c := self.by_marker.get(int(n))) is not None]
        usable = [c for c in cited if has_english(c)]
        pieces = _matches(body, usable) if usable else []
        if not pieces:
            return _fix_framing(_bold_names(body, self.names), self.names) + markers, "", []
        prefix = _fix_framing(_bold_names(body[: pieces[0][0]], self.names), self.names)
        words: list[tuple[str, str]] = []  # (the answer's separator before it, English)
        keys: list[tuple[str, int]] = []
        prev_end, after = pieces[0][0], {}
        for a, b in pieces:
            piece, sep = body[a:b], body[prev_end:a]
            prev_end = b
            where = next(((c, loc) for c in usable if (loc := _locate(piece, c, after.get(c.chunk_id, 0)))), None)
            if where is None:
                continue
            chunk, (start, end) = where
            after[chunk.chunk_id] = end
            offsets = sentence_offsets(chunk.text)
            ids = [i for i, (x, y) in enumerate(offsets) if x < end and start < y]
            fresh = [i for i in ids if table or (chunk.chunk_id, i) not in self.shown]
            keys += [(chunk.chunk_id, i) for i in ids]
            if not fresh:
                continue
            self.shown.update((chunk.chunk_id, i) for i in ids)
            first, last = chunk.text[slice(*offsets[fresh[0]])], chunk.text[slice(*offsets[fresh[-1]])]
            en = english_of_span(chunk, offsets[fresh[0]][0], offsets[fresh[-1]][1]) or ""
            skipped = chunk.text[offsets[fresh[0]][0]:start] if fresh[0] == ids[0] else ""
            # the quote left the card's own filler clause out (leads.json filler_clauses): so does its English
            dropped = self.fillers.get(skipped, "")
            cut = len(dropped) if dropped and en.startswith(dropped) else None
            if cut is None and _OPENER.fullmatch(skipped) and not _QUOTED.match(first) and (m := _OPENER_EN.match(en)):
                # the answer quoted the sentence without the words addressing our own engineers
                # ("解决方案人员要知道：…" in words for a customer): so does its English (blind 23 b23en-028)
                cut = m.end()
                if skipped.endswith("“") and prefix.strip() == "“":
                    # the Chinese rest opens with the quotation mark of "“仿真里能做到”…": in English it opens no quote
                    prefix = prefix.replace("“", "", 1)
            if cut is not None:
                en = en[cut:][:1].upper() + en[cut:][1:]
            if not _NUMBERING.match(piece) and _NUMBERING.match(first):
                en = _NUMBERING.sub("", en)  # the answer left the card's numbering out
            if _QUOTED.match(first) and not _QUOTED.match(piece):
                # the answer quoted the example inside the card's 示例：“…” (a method's side of a comparison):
                # its English is that quote, not "Example: “…”" (blind 15 b15en-018)
                en = _QUOTED_EN.sub(r"\1", en)
            if last.rstrip().endswith("→") and not piece.rstrip().endswith("→"):
                en = en.rstrip().removesuffix("→").rstrip()  # ... and a trailing arrow
            words.append((sep, en))
        if not words:
            return None, prefix, keys  # every sentence it stands for is already shown in English
        out = ""
        for k, (sep, en) in enumerate(words):
            if k == 0:
                out = en
                continue
            glue = " " if en.startswith("→") else _sep(sep)
            if glue == " " and not out.endswith((".", ";", ":", "?", "!", "”", "→")):
                glue = "; "  # two list items the card keeps on separate lines
            if glue == "; " and not out.endswith((".", ";", ":", "?", "!", "”", "→")) and en[:1].isupper() \
                    and en.endswith("."):
                glue = ". "  # a list item, then a whole sentence: "…cannot be fully simulated. The goal of…"
            if glue in (", ", ": "):
                en = lower_first(en)
            if out.endswith((".", ";", ":", "?", "!", "”")) and glue in (", ", "; ", ": ", ". ", " "):
                glue = " "
            out += glue + en
        label = _LABEL.search(prefix)
        name = label.group(0).strip("*:： ").split("·")[-1].strip() if label else ""
        if name and not table and re.match(rf"{re.escape(name)}\b", out, re.I):
            prefix = _LABEL.sub("", prefix)  # the sentence says its label first ("Scenario: ...")
        suffix = body[pieces[-1][1]:]
        suffix = "" if _CJK.search(suffix) or not suffix.strip() else _fix_framing(suffix, self.names)
        if not suffix and out.endswith(";"):
            # the card's clause sentence ends in "；" ("…not necessarily flat;"): quoted on its own it ends the
            # statement, not a dangling semicolon before its marker (blind 11 b11en-007)
            out = out[:-1] + "."
        return f"{prefix}{out}{suffix}{markers}", prefix, keys

    def line(self, line: str) -> None:
        if not MARKER.search(line):
            self.lines.append(_fix_framing(_bold_names(line, self.names), self.names))
            return
        table = line.lstrip().startswith("|")
        parts: list[str] = []
        carried = ""  # the prefix (bullet, label) of a dropped unit, for the next unit that stays
        dropped_keys: list[tuple[str, int]] = []
        for unit in _UNIT.split(line):
            text, prefix, keys = self.unit(unit, table)
            if text is None:
                if _LABEL.search(prefix) or prefix.lstrip().startswith(("- ", "* ")):
                    carried = carried or prefix  # a bare separator ("; ") is not worth keeping
                dropped_keys += keys
                continue
            if carried and MARKER.search(text):
                text = carried + text.lstrip(" ;,，；")
                prefix, carried = carried, ""
            label = _LABEL.search(prefix)
            for key in keys:
                if label and key not in self.labelled:
                    self.labelled[key] = (len(self.lines), label.group(0))
            parts.append(text)
        text = "".join(parts).rstrip()
        if MARKER.search(text):
            self.lines.append(text)
            return
        # Nothing new on this line: the sentence it quoted is shown above. Its label joins that
        # line's label ("Friction / Motors and joints"), so no label the builder chose is lost.
        label = _LABEL.search(carried)
        target = next((self.labelled[k] for k in dropped_keys if k in self.labelled), None)
        if label and target:
            row, old = target
            mine = label.group(0).strip("*:： ")
            name = old.strip("*:： ")
            if mine.lower() not in name.lower():
                merged = f"**{name} / {mine}**{old[old.rindex('**') + 2:]}"
                self.lines[row] = self.lines[row].replace(old, merged, 1)
                for k, (r, o) in list(self.labelled.items()):
                    if r == row and o == old:
                        self.labelled[k] = (r, merged)


_DOUBLE_STOP = re.compile(r"([.!?;,:])\.((?:\s*\[\d+\])+)")


def to_english(markdown: str, citations: list[Citation], chunks: list[Chunk],
               fillers: dict[str, str] | None = None) -> str:
    """The verified Chinese-quoting Markdown with every cited card sentence in its aligned English; `fillers`:
    the card's filler clauses a quote left out (Chinese -> English), left out of the English too."""
    by_id = {c.chunk_id: c for c in chunks}
    swap = _Swapper(citations, by_id, heading_names(chunks), fillers)
    for ln in markdown.splitlines():
        swap.line(ln)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(swap.lines)).strip()
    # a Chinese clause the answer closed with 。 (card.stopped) whose English ends on its own mark: one mark, not ";."
    return _DOUBLE_STOP.sub(lambda m: (m.group(1) if m.group(1) in ".!?" else ".") + m.group(2), text)


def finish(answer: Answer, chunks: list[Chunk], fillers: dict[str, str] | None = None) -> Answer:
    """The final render step's language pass: `quote_en` on every citation, and for an English
    template answer the cited Chinese replaced by its aligned English."""
    if not answer.citations:
        return answer
    by_id = {c.chunk_id: c for c in chunks}
    citations = with_quote_en(answer.citations, by_id)
    text = answer.answer
    if answer.language == "en" and answer.backend == "template":
        text = to_english(text, citations, chunks, fillers)
        # a card heading used as a label keeps the heading's full-width question mark after its English
        # name ("**Why is robot simulation worth understanding on its own**？", blind 11 b11en-020)
        text = re.sub(r"(\*\*[^*\n]*[A-Za-z][^*\n]*\*\*)？", lambda m: m.group(1)[:-2] + "?**", text)
        # A line is only dropped when all it said is already shown above, so every citation that
        # remains in use is still referenced; renumbering keeps markers 1..n in order.
        from .grounding import renumber

        text, citations = renumber(text, citations)
    return answer.model_copy(update={"answer": text, "citations": citations})
