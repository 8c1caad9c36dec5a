"""Question-focused composition: the card sentence(s) that answer the act first, then only the
supporting lines that fit a length budget (Settings.answer.budget_chars, hard cap max_chars).

A topic's builder (compose.py) still gathers the material; this module decides what leads and what
is left to the sources. It never writes card text: leads are cited through the same `Writer`, and
the body's lines are the builder's own, kept or dropped whole."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .card import Writer, stopped, unnumber
from .labels import label_for
from .leads import Ref


@dataclass
class Focus:
    """What part of an intent's material the question (or its follow-up) singles out."""

    anchors: set[str] = field(default_factory=set)
    item: int | None = None  # 1-based item of a list (why_hard), from an ordinal follow-up
    question: str = ""
    act: str = "define"  # what is asked (answer/acts.py); the scenario walkthrough orders its parts by it
    factors: list[str] | None = None  # a customer story's gap factors (story_match.StoryMatcher); None: not read
    factor_votes: dict[str, float] = field(default_factory=dict)  # the labelled stories' vote per factor (0-1)
    followup: bool = False  # the question follows an answer: a walkthrough's "why" adds the deeper reason
    claim: str | None = None  # the yes/no claim the neighbours read (data/leads.json claims); builders answer only it
    order: list[str] = field(default_factory=list)  # `anchors` in the order the question (or the turn before) names them
    verdict: str | None = None  # a story's yes/no kind (scenarios.json verdicts), read by the labelled stories
    own: str = ""  # the turn's own words (`question` of a follow-up also carries the earlier question)
    excepted: set[str] = field(default_factory=set)  # named list items an exception cue ("besides X") turned away
    letter: bool = False  # an email draft is asked for (data/forms.json): a story answers with its letter shape

    @property
    def story_text(self) -> str:
        """The words the story is told in: a first turn's own; a follow-up's `question`, which carries the
        earlier turn's story."""
        return self.question if self.followup else (self.own or self.question)

    @property
    def asked_text(self) -> str:
        """What this turn asks in so many words: a follow-up's own words, a first turn's question."""
        return (self.own or self.question) if self.followup else self.question

_MARK = re.compile(r"\s*\[\d+\]")
_MARKS = re.compile(r"\[\d+\]")
_LABEL = re.compile(r"^(?:[-*]\s+)?(?:\*\*[^*]+\*\*\s*[：:]?\s*)?")
_PUNCT = re.compile(r"[\s，。；：、,.;:!?！？“”\"'（）()|*\-→]")


_SIDE = re.compile(r"^[^：:，,。]{1,8}：\S")  # "仿真环境：参数明确…": a list item that names its side first


def _side_run(text: str, item: str) -> list[str]:
    """The run of consecutive labelled list items ("- 仿真环境：…" / "- 真实环境：…") that `item` is one of."""
    rows = [ln.strip()[2:].strip() if ln.strip().startswith("- ") else None for ln in text.splitlines()]
    if item not in rows or not _SIDE.match(item):
        return []
    i = j = rows.index(item)
    while i > 0 and rows[i - 1] is not None and _SIDE.match(rows[i - 1]):
        i -= 1
    while j + 1 < len(rows) and rows[j + 1] is not None and _SIDE.match(rows[j + 1]):
        j += 1
    return rows[i:j + 1]


def lead_block(w: Writer, refs: tuple[Ref, ...], verdict: str | None = None, unaddressed: tuple[str, ...] = (),
               whole_sides: bool = True) -> str:
    """The verdict line (framing, when the claim has one) and the lead sentences, cited, in one paragraph.
    `unaddressed`: openings a sentence is quoted without ("解决方案人员要知道：" in words for a customer).
    `whole_sides`: one side of a contrast the card lists brings the others (not in a one-line answer)."""
    parts: list[str] = []
    sides: list[str] = []
    sides_first = True
    by_anchor: dict[str, list[str]] = {}
    for anchor, phrase in refs:
        s = unnumber(w.sentence(anchor, phrase))
        s = next((s[len(o):] for o in unaddressed if s.startswith(o) and len(s) > len(o)), s)
        if s and s not in by_anchor.setdefault(anchor, []):
            by_anchor[anchor].append(s)
    for anchor, sents in by_anchor.items():
        # one side of a contrast the card lists ("真实环境：…") never leads without the other ("仿真环境：…"): the
        # whole run of labelled items comes, in card order, where the first of them stood
        chunk = w.card.chunk(anchor)
        for x in list(sents) if whole_sides and chunk is not None else ():
            run = _side_run(chunk.text, x)
            if len(run) >= 2 and any(y not in sents for y in run):
                at = min(sents.index(y) for y in run if y in sents)
                rest = [y for y in sents if y not in run]
                sents[:] = rest[:at] + run + rest[at:]
        sents[-1] = sents[-1].rstrip("；")  # a sentence cut at "；" does not end the lead on it
        # a list item under a bold sub-heading ("可以在仿真或真实环境中训练" under "强化学习", "服务的不只限于
        # 强化学习" under "Sim2Real") names no subject: each run of sentences under one sub-heading is
        # quoted on its own, labelled with it (blind 8 b8-088: "…两者解决的是不同问题。服务的不只限于强化学习")
        runs: list[tuple[str, list[str]]] = []
        for x in sents:
            head = w.card.item_heading(anchor, x)
            if runs and runs[-1][0] == head:
                runs[-1][1].append(x)
            else:
                runs.append((head, [x]))
        for head, run in runs:
            labelled = [x for x in run if chunk is not None and _side_run(chunk.text, x)]
            if len(labelled) >= 2:
                # two labelled list items ("仿真环境：…" / "真实环境：…") are two sides: one line each, as the card
                # lists them (blind 34 b34-017 asked for two columns and got them run together on one line)
                sides_first = sides_first if sides or parts else run[0] in labelled
                sides.extend(q for x in labelled if (q := w.quote(anchor, x)))
                run = [x for x in run if x not in labelled]
                if not run:
                    continue
            # a sentence ending in its quotation's own full stop ("…效果变差。”") ends there: no "；" after it
            q = w.quote(anchor, *run, sep="；" if any(not re.search(r"[。；！？.!?]”?$", x) for x in run[:-1]) else "")
            if not q:
                continue
            if head:
                q = w.ledger.frame(f"**{label_for(w.lang, head)}**") + ("：" if w.lang == "zh" else ": ") + q
            parts.append(q)
    if not parts and not sides:
        return ""
    # a short verdict ("不是。") opens the lead's own paragraph: never a bare "No." standing alone
    head = (w.ledger.frame(f"**{verdict}**") + ("\n\n" if len(verdict) > 16 else " ")) if verdict else ""
    if sides:
        head = head.rstrip() + "\n\n" if head else ""
        blocks = [" ".join(parts), "\n".join(f"- {x}" for x in sides)]
        return head + "\n\n".join(filter(None, blocks[::-1] if sides_first else blocks))
    # two or more pieces in one paragraph: each said as a sentence ("真机验证仍然不可避免 [1] 解决方案人员要知道…" read
    # as one run-on sentence to the blind 40 readers)
    return head + " ".join(stopped(x, w.lang) for x in parts) if len(parts) > 1 else head + " ".join(parts)


_EXAMPLE = re.compile(r"^(?:示例|Example)")


def core(line: str) -> str:
    """A line's own words: no markers, no bullet label, no punctuation (for duplicate checks)."""
    # a card example line ("示例：“先在仿真中学习…”") whose words the answer already says is a duplicate
    return _EXAMPLE.sub("", _PUNCT.sub("", _LABEL.sub("", _MARK.sub("", line), count=1)))


@dataclass
class Unit:
    text: str
    para: int
    heading: bool  # framing without a citation: kept only with the content it introduces
    alone: bool = False  # the only line of its paragraph (a heading for the next paragraph)


def units(markdown: str) -> list[Unit]:
    out: list[Unit] = []
    for p, para in enumerate(x for x in re.split(r"\n\s*\n", markdown) if x.strip()):
        lines = [ln for ln in para.splitlines() if ln.strip()]
        if lines and lines[0].lstrip().startswith("|"):
            out.append(Unit("\n".join(lines), p, False))
            continue
        for ln in lines:
            # an unmarked bullet is content (a check to make); any other unmarked line introduces what follows
            out.append(Unit(ln, p, not _MARK.search(ln) and not ln.lstrip().startswith(("- ", "* ")), len(lines) == 1))
    return out


def assemble(lead: str, body: str, budget: int, max_chars: int, previous: str = "", must: frozenset[str] = frozenset()) -> str:
    """`lead` first, then the body's cited lines in order while the answer stays within `budget`
    (a line's unmarked heading travels with it); lines the lead or the previous answer already say are
    skipped; a line citing one of the `must` markers ("[3]": the section search ranks first) is kept
    over the budget; never more than `max_chars`."""
    said = core(lead)
    before = core(previous)
    kept: list[Unit] = []
    length = len(lead)
    pending: list[Unit] = []
    for u in units(body):
        if u.heading:
            pending = [u]  # a heading with nothing kept under it is dropped
            continue
        # a heading introduces its own paragraph, or the next one when it stands alone
        pending = [p for p in pending if p.para == u.para or (p.alone and p.para == u.para - 1)]
        c = core(u.text)
        if c and (c in said or (before and c in before)):
            continue
        extra = len(u.text) + sum(len(p.text) + 1 for p in pending)
        over = length + extra > budget
        if (kept or lead) and over and not (must and set(_MARKS.findall(u.text)) & must and length + extra <= max_chars):
            continue
        kept.extend(pending)
        kept.append(u)
        pending = []
        length += extra
        said += c
    while kept and length > max_chars:
        length -= len(kept.pop().text)
    return join_units(lead, kept)


def join_units(lead: str, kept: list) -> str:
    """`lead`, then the kept units in their paragraphs (a trailing heading with nothing under it dropped)."""
    while kept and kept[-1].heading:
        kept.pop()
    blocks: list[str] = [lead] if lead else []
    last = None
    for u in kept:
        if last is not None and u.para == last and blocks:
            blocks[-1] += "\n" + u.text
        else:
            blocks.append(u.text)
        last = u.para
    return "\n\n".join(blocks)


def drop_orphan_headings(markdown: str) -> str:
    """Framing paragraphs (one unmarked line) with no content after them: verification can drop the only
    line under a heading ("**和你的问题最贴近的一节**" over an unsupported span), which must not dangle."""
    paras = [p for p in re.split(r"\n\s*\n", markdown) if p.strip()]

    def framing(p: str) -> bool:
        # a bold heading line only: "卡片没有给出具体数字。" is a statement, kept whatever follows it
        return "\n" not in p.strip() and not _MARKS.search(p) and p.lstrip().startswith("**")
    keep = [p for i, p in enumerate(paras) if not (framing(p) and (i + 1 == len(paras) or framing(paras[i + 1])))]
    return "\n\n".join(keep)
