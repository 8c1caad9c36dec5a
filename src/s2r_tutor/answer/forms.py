"""The form a reader asks an answer in (data/forms.json): a number of points, one sentence each, a length
cap, "keep it short", an email draft, a short message. Read from the question's own words; fitted onto the
composed answer before it is verified, so everything it keeps is still the card's cited text."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import AnswerDataError
from .card import lines
from .finalize import to_simplified
from .grounding import MARKER
from .lexicon import fold

_BULLET = re.compile(r"^[-*]\s+|^\d+[.)]\s+")
_ROW = re.compile(r"^\|")
_RULE = re.compile(r"^\|[\s:|-]+\|?$")
# an item's label ("**A · 成本**：") and its trailing markers ("[1][2]") stay when it is cut to one sentence
_ITEM = re.compile(r"^(?P<head>\s*(?:[-*]|\d+[.)])\s+(?:\*\*[^*\n]+\*\*\s*[：:]?\s*)?)(?P<body>.*?)(?P<marks>(?:\s*\[\d+\])*)\s*$")
_CJK = re.compile(r"[\u3400-\u9fff]")
_SENTENCE_END = re.compile(r"[。！？!?；]|\.(?=\s+[A-Z“\"(])")


class Form(BaseModel):
    """What the question asks of the answer's shape (all unset: no form asked)."""

    model_config = ConfigDict(frozen=True)

    count: int | None = None  # this many points
    each_sentence: bool = False  # each point in one sentence
    chars: int | None = None  # at most this many characters
    brief: bool = False  # "keep it short"
    letter: bool = False  # a draft to send
    message: bool = False  # a short one (a WeChat message, a text): a letter said in a few sentences
    sentences: int | None = None  # in at most this many sentences ("两句话以内")

    @property
    def asked(self) -> bool:
        return bool(self.count or self.each_sentence or self.chars or self.brief or self.letter or self.sentences)


class _Frame(BaseModel):
    title: str = Field(min_length=1)
    open: str = Field(min_length=1)
    close: str = Field(min_length=1)
    sources: str = Field(min_length=1)  # the line after a draft that carries its citation markers


class _Title(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    sources: str = Field(min_length=1)


class _Example(BaseModel):
    model_config = ConfigDict(extra="forbid")

    q: str = Field(min_length=1)
    count: int | None = None
    each_sentence: bool | None = None
    chars: int | None = None
    brief: bool | None = None
    letter: bool | None = None
    message: bool | None = None
    sentences: int | None = None


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    about: str = Field("", alias="_about")
    count: list[str]
    each_sentence: list[str]
    chars: list[str]
    words: list[str]
    approx: dict[str, int]
    chars_per_word: int = Field(ge=1)
    sentences: list[str]
    chars_per_sentence: dict[str, Annotated[int, Field(ge=1)]]
    brief: list[str]
    letter: list[str]
    letter_frame: dict[str, _Frame]
    message: list[str]
    message_frame: dict[str, _Title]
    chat_channel: list[str] = []  # the customer wrote on a chat channel: a draft back to them is a message
    message_sentences: int = Field(ge=1)
    drop_labels: list[str]
    # anchor prefixes (any card's: one with no customer scenarios simply leaves nothing out)
    letter_leaves_out: list[Annotated[str, Field(min_length=1)]]
    letter_drop_lines: list[str] = []  # framing lines about the card itself: no words for a customer
    letter_strip_labels: list[Annotated[str, Field(min_length=1)]] = []  # the card's inline labels ("场景：")
    examples: list[_Example]


def _compile(name: str, patterns: list[str]) -> tuple[re.Pattern[str], ...]:
    try:
        return tuple(re.compile(p, re.I) for p in patterns)
    except re.error as exc:
        raise AnswerDataError(f"data/forms.json {name}: bad pattern ({exc})") from exc


def _search(patterns: tuple[re.Pattern[str], ...], text: str) -> re.Match[str] | None:
    return next((m for p in patterns if (m := p.search(text))), None)


class Forms:
    """The form table, checked at load: every pattern compiles, both languages have a letter frame, and
    every labelled example reads as its label says."""

    def __init__(self, numbers: dict[str, int], data: dict | None = None) -> None:
        if data is None:
            data = json.loads(resources.files("s2r_tutor.data").joinpath("forms.json").read_text(encoding="utf-8"))
        try:
            t = _Table.model_validate(data)
        except ValidationError as exc:
            raise AnswerDataError(f"data/forms.json: {exc}") from exc
        for name, frames in (("letter_frame", t.letter_frame), ("message_frame", t.message_frame)):
            if set(frames) != {"zh", "en"}:
                raise AnswerDataError(f"data/forms.json {name}: needs exactly 'zh' and 'en'")
        if set(t.chars_per_sentence) != {"zh", "en"}:
            raise AnswerDataError("data/forms.json chars_per_sentence: needs exactly 'zh' and 'en'")
        self.numbers = {**{k.lower(): v for k, v in numbers.items()}, **{k.lower(): v for k, v in t.approx.items()}}
        self.count = _compile("count", t.count)
        self.each = _compile("each_sentence", t.each_sentence)
        self.chars = _compile("chars", t.chars)
        self.words = _compile("words", t.words)
        self.per_word = t.chars_per_word
        self.sentences = _compile("sentences", t.sentences)
        self.per_sentence = t.chars_per_sentence
        self.brief = _compile("brief", t.brief)
        self.letter = _compile("letter", t.letter)
        self.frames = t.letter_frame
        self.message = _compile("message", t.message)
        self.chat = _compile("chat_channel", t.chat_channel)
        self.message_frames = t.message_frame
        self.message_sentences = t.message_sentences
        self.drop_labels = frozenset(_bare_label(x) for x in t.drop_labels)
        self.leaves_out = tuple(t.letter_leaves_out)
        self.drop_lines = _compile("letter_drop_lines", t.letter_drop_lines)
        self.strip_label = re.compile("^(?P<head>(?:[-*] )?(?:\\*\\*[^*\n]+\\*\\*[：:] ?)?)(?:"
                                      + "|".join(re.escape(x) for x in t.letter_strip_labels) + ")[：:] ?") \
            if t.letter_strip_labels else None
        for name, ps in (("count", self.count), ("chars", self.chars), ("words", self.words),
                         ("sentences", self.sentences)):
            if any("n" not in p.groupindex for p in ps):
                raise AnswerDataError(f"data/forms.json {name}: the patterns need a group 'n' (the number)")
        for ex in t.examples:
            got = self.read(ex.q)
            wrong = {k: (v, getattr(got, k)) for k, v in ex.model_dump(exclude={"q"}, exclude_unset=True).items()
                     if getattr(got, k) != v}
            if wrong:
                raise AnswerDataError(f"data/forms.json examples: {ex.q!r} reads {wrong} (label, read)")

    def _number(self, m: re.Match[str] | None) -> int | None:
        if m is None or not m.group("n"):
            return None
        n = m.group("n").lower()
        return int(n) if n.isdigit() else self.numbers.get(n)

    def read(self, question: str) -> Form:
        q = fold(to_simplified(question))
        words = self._number(_search(self.words, q))
        chars = self._number(_search(self.chars, q))
        count = self._number(_search(self.count, q))
        said = self._number(_search(self.sentences, q))
        # (a question with Chinese in it is a Chinese reader's: its sentences are counted in Chinese characters)
        per_sentence = self.per_sentence["zh" if _CJK.search(q) else "en"]
        letter = _search(self.letter, q) is not None
        # a draft back to a customer who wrote on WeChat or Slack is a message, not an email (blind 49 b49-016)
        message = _search(self.message, q) is not None or (letter and _search(self.chat, q) is not None)
        return Form(count=count if count and count > 1 else None,
                    each_sentence=_search(self.each, q) is not None,
                    chars=chars or (words * self.per_word if words else None) or (said * per_sentence if said else None),
                    brief=_search(self.brief, q) is not None,
                    letter=message or letter,
                    message=message,
                    sentences=said)

    def fit(self, markdown: str, form: Form, lang: str, frame, announced, measure=len, cited=lambda line: set()) -> str:
        """`markdown` in the asked form, for a reader of `lang`. `frame(text)` registers framing wording (the letter's lines);
        `announced(line)` is the count a heading announces; `measure` counts as the reader will see; `cited(line)` the
        anchors a line cites."""
        if form.count or form.brief or form.each_sentence:
            markdown = _first_list(markdown, form.count, form.each_sentence or form.brief, announced, form.each_sentence)
        if form.chars and measure(MARKER.sub("", markdown)) > form.chars:
            # the point (the first paragraph that cites), whatever its length: the rest is in the sources; its
            # first sentence when that is still over, unless it is a list (the memory hooks are the short form)
            paras = markdown.strip().split("\n\n")
            at = next((i for i, p in enumerate(paras) if MARKER.search(p)), None)
            if at is not None:
                point = paras[at]
                # words for a customer above it (a reply asked in two sentences) are the answer: they stay, and the
                # card sentence they rest on stays under them, its first one only; so do a story reply's words on the
                # point's first line (dev b44-028 "帮我回两句": the cap took their label and verification the words)
                words = paras[at - 1] if at and _WORDS.fullmatch(paras[at - 1]) else None
                head, _, rest = point.partition("\n")
                if words is None and rest and _WORDS.fullmatch(head):
                    words, point = head, rest
                first = _FIRST_UNIT.match(point)
                if first and not _is_item(point.lstrip()) and (words or measure(MARKER.sub("", point)) > form.chars):
                    point = first.group(0).strip()
                # one short line: its label ("**检验**：") is no part of it
                markdown = f"{words}\n\n{point}" if words else _LABEL.sub("", point, count=1)
        if form.message:
            words, backing = self._letter_body(markdown, frame, cited)
            body = _as_message(words, form.sentences or self.message_sentences, frame, lang)
            return "\n\n".join([frame(self.message_frames[lang].title), lines(*backing, body)])
        if form.sentences:
            markdown = _within_sentences(markdown, form.sentences)
        if form.letter:
            f = self.frames[lang]
            words, backing = self._letter_body(markdown, frame, cited)
            markdown = "\n\n".join([frame(f.title), frame(f.open), lines(*backing, words), frame(f.close)])
        return markdown

    def unmarked(self, markdown: str, form: Form, lang: str, cited=lambda unit: set()) -> str:
        """A verified draft to send with its citation markers moved out of the text the customer will read, onto
        one line after it ("依据（不必发给客户）：[1] [2]"): a "[1]" pasted into an email or a WeChat message is noise
        to the customer (blind 47 b47-042, b47-049, b47en-011). The sources still name every cited sentence, the
        card scenario that backs the draft included, whose line leaves the text (`cited(unit)`: its anchors)."""
        if not (form.letter or form.message):
            return markdown
        nums = list(dict.fromkeys(MARKER.findall(markdown)))
        if not nums:
            return markdown
        label = (self.message_frames if form.message else self.frames)[lang].sources
        units = _CITED_UNIT.findall(markdown)
        backing = {u for u in units if (a := cited(u)) and all(x.startswith(self.leaves_out) for x in a)}
        if any(MARKER.search(u) for u in units if u not in backing):
            for u in backing:
                markdown = markdown.replace(u, "", 1)
        text = MARKER.sub("", markdown)
        if lang == "zh":
            text = _AFTER_CJK_STOP.sub("", text)  # "过程。 [1] 仿真" reads "过程。仿真"
        # (a backing line taken out leaves its line empty, or its bullet alone)
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(ln.rstrip() for ln in text.splitlines() if ln.strip() != "-"))
        return f"{text.rstrip()}\n\n{label}" + " ".join(f"[{n}]" for n in nums)

    def _letter_body(self, markdown: str, frame, cited) -> tuple[str, list[str]]:
        """(the lines a draft to send says, the lines that only back it). The reply label goes; the customer
        scenarios' lines, where other card lines back the draft, are no words for the customer (their own words
        quoted back to them with the card's tag line) but still what the draft rests on: they come back apart,
        to stand first in the draft (its first source) until `unmarked` moves their markers onto its sources line
        (blind 49 b49-016, b49en-008, b49en-025: a draft on a customer's story never cited the card's scenario)."""
        rows = markdown.splitlines()
        # (never all of its evidence: a draft with no other card line keeps the scenario as its words)
        out = {i for i, ln in enumerate(rows) if any(a.startswith(self.leaves_out) for a in cited(ln))}
        if not any(MARKER.search(ln) for i, ln in enumerate(rows) if i not in out):
            out = set()
        body = []
        for i, ln in enumerate(rows):
            # the reply label goes, on a line of its own or before the reply's words ("**可以这样跟客户解释**：“…”")
            m = _LABEL.match(ln)
            if _bare_label(ln) in self.drop_labels or i in out:
                continue
            if not MARKER.search(ln) and _search(self.drop_lines, ln.strip()):
                continue  # "The card groups the reasons like this:" speaks of the card, not to the customer
            if self.strip_label is not None:
                ln = self.strip_label.sub(r"\g<head>", ln, count=1)  # "Scenario: if a real robot…"
            if m and _bare_label(m.group(0)) in self.drop_labels:
                # (a reply written for the question is framing: so are its words without the label and quotes)
                ln = frame(_QUOTED.sub(r"\1", ln[m.end():]))
            body.append(ln)
        return "\n".join(body).strip(), [rows[i] for i in sorted(out)]


_QUOTED = re.compile(r"^[“\"](.*)[”\"]$")
_AFTER_CJK_STOP = re.compile(r"(?<=[。！？；，：、])[ \t]+")
_LABEL = re.compile(r"^\*\*[^*\n]+\*\*\s*[：:]\s*(?=\S)")
# a reply written for the question: its bold label, then the words in quotation marks (answerer._worded)
_WORDS = re.compile(r"\*\*[^*\n]+\*\*\s*[：:]\s*“[^\n]+”")
_FIRST_UNIT = re.compile(r"[^\n]*?\](?:\s*\[\d+\])*")  # a line's text up to its first markers


_CITED_UNIT = re.compile(r"[^\[\n]*?(?:\s*\[\d+\])+")
_STOP = re.compile(r"[。！？!?]|\.(?=\s|$)")


def _within_sentences(markdown: str, n: int) -> str:
    """A one-paragraph answer asked in `n` sentences: its cited pieces, whole, while their sentences add up to
    `n` (always the first). "用两句话以内…" kept the two-sentence walking scene and a third sentence after it, once
    each quoted piece got its own stop (round 42)."""
    paras = markdown.strip().split("\n\n")
    if len(paras) == 2 and _VERDICT_LINE.fullmatch(paras[0]) and "\n" not in paras[1]:
        # a bold verdict line over its one paragraph ("**No, they are not the same thing.**"): that paragraph
        return paras[0] + "\n\n" + _within_sentences(paras[1], n)
    if "\n" in markdown.strip():
        return markdown  # a list or several paragraphs: the chars cap shaped it already
    units = _CITED_UNIT.findall(markdown)
    if len(units) < 2 or "".join(units).strip() != markdown.strip():
        return markdown
    # labelled lines in a row ("**强化学习**：… **Sim2Real**：…") are one comparison: kept or left together
    groups: list[list[str]] = []
    for u in units:
        if groups and _LABEL.match(u.lstrip()) and _LABEL.match(groups[-1][-1].lstrip()):
            groups[-1].append(u)
        else:
            groups.append([u])
    # (the two sides of a comparison are one line: "一句话" after RL vs Sim2Real keeps both of them)
    kept = _within(groups, n, lambda g: _sentences(g[0]) if len(g) == 1 else 1)
    return "".join(u for g in kept for u in g).strip()


def _sentences(text: str) -> int:
    """The sentences a cited piece says (at least one)."""
    return len(_STOP.findall(MARKER.sub("", text))) or 1


def _within(pieces: list, n: int, count) -> list:
    """The first `pieces` while their sentences (`count(piece)`) add up to `n`; always the first."""
    kept, total = [], 0
    for p in pieces:
        k = count(p)
        if kept and total + k > n:
            break
        kept.append(p)
        total += k
    return kept


_VERDICT_LINE = re.compile(r"\*\*[^*\n\[]+\*\*")
_HEADING = re.compile(r"^(?:#+\s.*|\*\*[^*\n]+\*\*\s*[：:]?|[^\[\n]*[：:])$")


def _as_message(body: str, n: int, frame, lang: str) -> str:
    """A draft's lines as one short message: headings go ("卡片把原因归成几类："), a list item is its words
    without bullet or label, a reply written for the question loses its quotation marks (`frame` registers it), and
    its pieces (a cited unit, or a line written for the question) are kept while their sentences add up to `n`
    (always the first). A WeChat reply had been an email with 您好 and all four reasons as bullets (blind 44
    b44-032)."""
    pieces: list[str] = []
    for ln in body.splitlines():
        ln = ln.strip()
        if not ln or _RULE.match(ln) or _ROW.match(ln) or (_HEADING.match(ln) and not MARKER.search(ln)):
            continue
        m = _ITEM.match(ln) if _is_item(ln) else None
        if m:
            ln = (m.group("body") + m.group("marks")).strip()
        if not MARKER.search(ln) and (q := _QUOTED.match(ln)):
            ln = frame(q.group(1))
        units = _CITED_UNIT.findall(ln)
        if units and "".join(units).strip() == ln:
            pieces.extend(u.strip() for u in units)
        else:
            pieces.append(ln)
    kept = _within(pieces, n, _sentences)
    # (Chinese runs on after its own full stop; a space after the markers, as between the card's cited units)
    return "".join(p if not i or (lang == "zh" and kept[i - 1][-1] in "。！？；") else " " + p
                   for i, p in enumerate(kept))


def _bare_label(line: str) -> str:
    return re.sub(r"\*\*", "", line).strip().rstrip("：:").strip()


def _is_item(line: str) -> bool:
    return bool(_BULLET.match(line) or _ROW.match(line))


def _first_sentence(line: str) -> str:
    m = _ITEM.match(line)
    if not m or _ROW.match(line):
        return line
    body = m.group("body")
    end = _SENTENCE_END.search(body)
    if end is None or end.end() >= len(body.rstrip()):
        return line
    return f"{m.group('head')}{body[:end.end()].rstrip()}{m.group('marks')}"


def _first_list(markdown: str, count: int | None, one_sentence: bool, announced, each_side: bool = False) -> str:
    """The answer up to the end of its first list (or table), that list cut to `count` items and each item
    to `one_sentence`; what follows the list is left to the sources. An answer without a list is unchanged.
    `each_side` ("one line each"): a table is its first row, one line per column (blind 44 b44en-022, "RL vs
    sim2real, one line each pls", had only the line that the two solve different problems)."""
    lines = markdown.split("\n")
    start = next((i for i, ln in enumerate(lines) if _is_item(ln.lstrip()) and not ln.startswith(" ")), None)
    if start is None:
        return markdown
    end = start
    while end < len(lines) and lines[end].strip() and (_is_item(lines[end].lstrip()) or lines[end].startswith(" ")):
        end += 1
    items = lines[start:end]
    table = _ROW.match(items[0]) is not None
    if table:
        head = [x for x in items[:2] if _RULE.match(x.strip()) or x is items[0]]
        rows = items[len(head):]
        kept = head + (rows[:count] if count else rows[:1] if each_side else rows)
        cut = count is not None and len(rows) > count
    else:
        groups: list[list[str]] = []
        for ln in items:  # an indented line belongs to the item above it
            if ln.startswith(" ") and groups:
                groups[-1].append(ln)
            else:
                groups.append([ln])
        cut = count is not None and len(groups) > count
        groups = groups[:count] if count else groups
        kept = [_first_sentence(g[0]) for g in groups] if one_sentence else [ln for g in groups for ln in g]
    before = lines[:start]
    if cut:
        # a heading that counts the list ("卡片给出四类原因：") no longer matches what is shown
        j = len(before) - 1
        while j >= 0 and not before[j].strip():
            j -= 1
        if j >= 0 and announced(before[j]) is not None and len(before[j]) <= 40:
            before = before[:j]
    return "\n".join([*before, *kept]).strip()
