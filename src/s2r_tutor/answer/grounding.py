"""Citations that point at exact spans of the card, and a verifier that fails closed.

Builders never write card text themselves: they ask a `Ledger` to `cite(chunk, span)`, which only
succeeds when `span` is an exact substring of the chunk, and returns the span with its `[n]`.
`verify()` then re-checks the finished Markdown on its own: every marked segment must be covered
by the quotes of the citations it names, every unmarked line must be known framing, anything else
is dropped. `renumber()` removes citations nothing points at and numbers the rest 1..n in order.

An LLM's reply is verified `untrusted`: no line stands on being framing (headings and "label:"
lines included), Latin text must come from the quotes as Chinese text must, and markup that could
fetch or link anything (raw HTML, images, links, reference definitions, bare addresses) makes the
reply invalid, so the template answer is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ..models import Chunk, Citation

MARKER = re.compile(r"\s*\[(\d+)\]")
_MARKERS = re.compile(r"(?:\s*\[\d+\])+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
MIN_BLOCK = 3        # shortest shared run (characters) that counts as quoting
MIN_ANCHOR = 8       # a marked segment must share at least one run this long (or the whole quote)
MIN_COVERAGE = 0.85  # share of the segment's Chinese characters that must come from its quotes


@dataclass
class Ledger:
    """Markers per chunk in order of first use; each citation's quote spans every cited piece."""

    citations: dict[str, Citation] = field(default_factory=dict)
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    framing: set[str] = field(default_factory=set)

    def marker(self, chunk: Chunk) -> int:
        if chunk.chunk_id not in self.citations:
            self.citations[chunk.chunk_id] = Citation(
                marker=len(self.citations) + 1, chunk_id=chunk.chunk_id, section=chunk.section,
                quote="", text=chunk.text, source=chunk.source)
        return self.citations[chunk.chunk_id].marker

    def cite(self, chunk: Chunk, span: str) -> str | None:
        """`span [n]`, or None (fail closed) when `span` is not an exact piece of the chunk."""
        start = chunk.text.find(span) if span else -1
        if start < 0:
            return None
        n = self.marker(chunk)
        lo, hi = self.spans.get(chunk.chunk_id, (start, start + len(span)))
        lo, hi = min(lo, start), max(hi, start + len(span))
        self.spans[chunk.chunk_id] = (lo, hi)
        c = self.citations[chunk.chunk_id]
        self.citations[chunk.chunk_id] = c.model_copy(update={"quote": chunk.text[lo:hi]})
        return f"{span} [{n}]"

    def frame(self, text: str) -> str:
        """Register template wording (labels, headings) that may stand without a citation."""
        for line in text.splitlines():
            if line.strip():
                self.framing.add(line.strip())
        return text

    def all(self) -> list[Citation]:
        return sorted((c for c in self.citations.values() if c.quote), key=lambda c: c.marker)


def _covered(segment: str, quotes: list[str]) -> tuple[list[bool], int]:
    """Which characters of `segment` lie in runs (>= MIN_BLOCK) shared with the quotes; longest run."""
    work = list(segment)
    longest = 0
    for quote in quotes:
        while True:
            text = "".join(work)
            m = SequenceMatcher(None, text, quote, autojunk=False).find_longest_match(0, len(text), 0, len(quote))
            if m.size < MIN_BLOCK:
                break
            longest = max(longest, m.size)
            work[m.a:m.a + m.size] = ["\0"] * m.size
    return [b == "\0" for b in work], longest


def coverage(segment: str, quotes: list[str]) -> tuple[float, int]:
    """(share of the segment's CJK characters found in runs shared with the quotes, longest run)."""
    mask, longest = _covered(segment, quotes)
    total = len(_CJK.findall(segment))
    covered = sum(1 for a, b in zip(segment, mask) if b and _CJK.match(a))
    return (covered / total if total else 0.0), longest


def _ascii_fold(text: str) -> str:
    return "".join(ch.lower() if ch.isascii() else ch for ch in text)  # same length, unlike str.lower


def latin_supported(segment: str, quotes: list[str]) -> bool:
    """Latin letters in an LLM's segment come from the quotes as its Chinese does: at most two
    letters (an abbreviation) outside runs shared with the quotes, or MIN_COVERAGE of them inside."""
    letters = [i for i, ch in enumerate(segment) if ch.isascii() and ch.isalpha()]
    if not letters:
        return True
    mask, _ = _covered(_ascii_fold(segment), [_ascii_fold(q) for q in quotes])
    missing = sum(1 for i in letters if not mask[i])
    return missing <= 2 or 1 - missing / len(letters) >= MIN_COVERAGE


_PIECE = re.compile(r"[^\s、。：:；;，,→*|\[\]]+")


def _all_pieces_quoted(segment: str, quotes: list[str], need: int) -> bool:
    """Fast path: every Chinese-bearing piece between punctuation is verbatim in a quote."""
    pieces = [p for p in _PIECE.findall(segment) if _CJK.search(p)]
    return bool(pieces) and max(map(len, pieces)) >= need and all(any(p in q for q in quotes) for p in pieces)


def supported(segment: str, quotes: list[str], framing: set[str]) -> bool:
    for f in framing:
        if f in segment and len(f) < len(segment):
            segment = segment.replace(f, " ")
    if not quotes:
        return False
    # a run of MIN_ANCHOR characters, unless the quote or the segment's Chinese text is shorter
    need = max(MIN_BLOCK, min(MIN_ANCHOR, min(len(q) for q in quotes), len(_CJK.findall(segment)) or MIN_ANCHOR))
    if _all_pieces_quoted(segment, quotes, need):
        return True
    share, longest = coverage(segment, quotes)
    return longest >= need and share >= MIN_COVERAGE


def has_content(text: str) -> bool:
    """Does an unmarked piece say something (Chinese characters, or three or more words)?"""
    return bool(_CJK.search(text)) or len(_LATIN_WORD.findall(text)) >= 3


def says_anything(text: str) -> bool:
    """The untrusted test: any Chinese character or any letter is something a reader would read."""
    return bool(_CJK.search(text)) or any(ch.isalpha() for ch in text)


# Markup that makes a browser fetch or link something, or hides text from the check: raw HTML (tags,
# comments, entities), images, inline and reference links, reference definitions, autolinks and bare
# addresses. A reply that carries any is not trusted at all.
UNSAFE_MARKUP = re.compile(
    r"<\s*[A-Za-z/!?]|&#?[A-Za-z0-9]+;|!\[|\]\s*\(|\]\s*\[[^\]\d]|^\s{0,3}\[[^\]]+\]:|"
    r"\b(?:https?|ftp|file|javascript|vbscript|mailto):|\bdata:[a-z]+/|\bwww\.|//[A-Za-z0-9]", re.I | re.M)


@dataclass
class Verdict:
    markdown: str
    dropped: list[str]
    invalid: list[str]  # marked segments whose markers or quotes do not hold up


def _is_framing(line: str, framing: set[str], untrusted: bool = False) -> bool:
    s = line.strip()
    if not s or re.fullmatch(r"[|\-:\s]+", s):
        return True
    # An LLM's reply has no framing of its own: its headings and "label:" lines must be supported too.
    return not untrusted and s in framing


def _check_unit(unit: str, by_marker: dict[int, Citation], framing: set[str],
                untrusted: bool = False) -> tuple[bool, bool]:
    """(keep, invalid) for one piece of a line: text ending in its markers, or trailing text."""
    nums = [int(n) for n in MARKER.findall(unit)]
    body = _MARKERS.sub("", unit)
    if not nums:
        if untrusted:
            return not says_anything(body), False
        return (not has_content(body) or _is_framing(body, framing)), False
    if any(n not in by_marker for n in nums):
        return False, True
    cites = [by_marker[n] for n in nums]
    if any(c.quote not in c.text for c in cites):
        return False, True
    quotes = [c.quote for c in cites]
    ok = supported(body, quotes, framing) and (not untrusted or latin_supported(body, quotes))
    return ok, not ok


def verify(markdown: str, citations: list[Citation], framing: set[str], untrusted: bool = False) -> Verdict:
    """Keep what is tied to a span; drop the rest. Table rows are checked cell by cell.

    `untrusted` (an LLM's reply): every line that says anything needs support, framing included;
    Latin text is checked as Chinese is; markup in UNSAFE_MARKUP makes the whole reply invalid."""
    by_marker = {c.marker: c for c in citations}
    kept, dropped, invalid = [], [], []
    for line in markdown.splitlines():
        if untrusted and UNSAFE_MARKUP.search(line):
            dropped.append(line)
            invalid.append(line)
            continue
        if _is_framing(line, framing, untrusted) and not MARKER.search(line):
            kept.append(line)
            continue
        if line.lstrip().startswith("|"):
            cells = [c for c in line.strip().strip("|").split("|")]
            results = [_check_unit(c, by_marker, framing, untrusted) for c in cells]
            if all(ok for ok, _ in results):
                kept.append(line)
            else:
                dropped.append(line)
                invalid += [c for c, (_, bad) in zip(cells, results) if bad]
            continue
        units = re.split(r"(?<=\])(?!\s*\[)", line)
        out = []
        for unit in units:
            ok, bad = _check_unit(unit, by_marker, framing, untrusted)
            if ok:
                out.append(unit)
            else:
                dropped.append(unit)
                if bad:
                    invalid.append(unit)
        text = "".join(out)
        rest = _MARKERS.sub("", text)
        if MARKER.search(text) or (text.strip() and not (says_anything(rest) if untrusted else has_content(rest))):
            kept.append(text.rstrip())
        elif text.strip():
            dropped.append(text)
    return Verdict("\n".join(kept), dropped, invalid)


def renumber(markdown: str, citations: list[Citation]) -> tuple[str, list[Citation]]:
    """Number the citations that the text still uses 1..n in order of first appearance."""
    by_marker = {c.marker: c for c in citations}
    order: list[int] = []
    for m in MARKER.finditer(markdown):
        n = int(m.group(1))
        if n in by_marker and n not in order:
            order.append(n)
    new = {old: i + 1 for i, old in enumerate(order)}
    text = re.sub(r"\[(\d+)\]", lambda m: f"[{new[int(m.group(1))]}]" if int(m.group(1)) in new else "", markdown)
    return text, [by_marker[old].model_copy(update={"marker": new[old]}) for old in order]
