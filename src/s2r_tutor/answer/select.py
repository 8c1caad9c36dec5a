"""Which card sentence leads, and which supporting lines stay (issue 14, question-focused composition).

Both choices are scored, not phrased: a sentence's score is the cosine of its stored vector (the
index's sentence view, no embedding at answer time) to the question's vector from retrieval, plus
a prior for the section's retrieval rank and a prior when `data/leads.json` names the sentence as
the lead for the question's act. The lead is the best candidate among the top-ranked sections'
sentences and the leads table's; the body keeps its builder's lines in card order, but only the
most relevant ones that fit the length budget (a list the question did not ask about is left to the
sources instead of being printed whole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Set as AbstractSet
from typing import Callable

from .card import CardView, unnumber
from .focus import core, join_units, units
from .leads import Ref

_MARK = re.compile(r"\[(\d+)\]")
_PIECES = re.compile(r"\s*\[\d+\]\s*|[；。、：:]|\s→\s|\*\*[^*]*\*\*")
#: a lead must say something: not a list item ("场地"), a bare "不是。", or an arrow tag line
MIN_LEAD_CHARS = 10


@dataclass(frozen=True)
class Candidate:
    anchor: str
    sentence: str
    score: float
    cosine: float = 0.0
    order: int = 0  # position in its section (a lead pair is shown in card order)


def lead_candidates(card: CardView, anchors: list[str], table: tuple[Ref, ...],
                    never: tuple[Ref, ...] = ()) -> list[tuple[str, str, int, bool]]:
    """(anchor, sentence, section rank, in the leads table) for every sentence that may lead; `never`:
    the card's own filler ("不需要先理解复杂公式…"), which answers nothing (data/leads.json never_lead)."""
    out: dict[tuple[str, str], tuple[str, str, int, bool]] = {}
    tabled = {(a, s) for a, p in table for s in card.sents(a) if p in s}
    banned = {(a, s) for a, p in never for s in card.sents(a) if p in s}
    for rank, anchor in enumerate(anchors):
        items = card.dependent_items(anchor)
        for s in card.sents(anchor):
            if len(unnumber(s)) >= MIN_LEAD_CHARS and not s.startswith("→") and (anchor, s) not in out \
                    and (anchor, s) not in banned and (unnumber(s) not in items or (anchor, s) in tabled):
                out[(anchor, s)] = (anchor, s, rank, (anchor, s) in tabled)
    for anchor, s in tabled:
        if (anchor, s) not in out and len(unnumber(s)) >= MIN_LEAD_CHARS:
            out[(anchor, s)] = (anchor, s, len(anchors), True)
    return list(out.values())


def pick_lead(cands: list[tuple[str, str, int, bool]], cosines: list[float], rank_prior: list[float],
              table_prior: float, pair_margin: float = 0.0) -> list[Candidate]:
    """The best candidate, and a second sentence of the same section when it scores within
    `pair_margin` of it ("危险动作不能在真机上无限尝试" + "在虚拟环境里失败，不会…"), in card order."""
    scored = sorted((Candidate(anchor, s, cos + (rank_prior[rank] if rank < len(rank_prior) else 0.0)
                               + (table_prior if tabled else 0.0), cos, i)
                     for i, ((anchor, s, rank, tabled), cos) in enumerate(zip(cands, cosines))), key=lambda c: -c.score)
    if not scored:
        return []
    best = scored[0]
    # only the sentence next to it in the card: two cells of a table, or two far-apart sentences,
    # spliced into one opening read as garble (blind 8, b8-028)
    second = next((c for c in scored[1:] if c.anchor == best.anchor and abs(c.order - best.order) == 1), None)
    if second is None or second.score < best.score - pair_margin:
        return [best]
    return sorted([best, second], key=lambda c: c.order)


def with_predecessors(card: CardView, refs: tuple[tuple[str, str], ...], openers: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """A lead sentence that opens with a connective ("但", "因此", "两者") depends on the sentence before
    it in the card: that sentence joins the lead ahead of it, so no answer opens on a dangling "因此…"
    (blind 8: b8-028, b8-037). `openers` is data (data/leads.json dependent_openers)."""
    out: list[tuple[str, str]] = []
    for anchor, phrase in refs:
        sents = card.sents(anchor)
        i = next((k for k, x in enumerate(sents) if phrase in x), None)
        if i is not None and i > 0 and unnumber(sents[i]).startswith(openers):
            prev = sents[i - 1]
            if not any(a == anchor and p in prev for a, p in out):
                out.append((anchor, prev))
        out.append((anchor, phrase))
    return tuple(out)


def pick_sides(cands: list[tuple[str, str, int, bool]], cosines: list[float], sides: list[str]) -> list[Candidate]:
    """A comparison ("鲁棒策略和域随机化有啥不一样"): the best sentence of each side's section, both
    sides, in the order of `sides` (the order the question names them), so neither side is left out
    (blind 8 b8-032 described only domain randomization). [] when a side has no candidate."""
    out = []
    for side in sides:
        best = max(((c, cos) for c, cos in zip(cands, cosines) if c[0] == side), key=lambda x: x[1], default=None)
        if best is None:
            return []
        out.append(Candidate(side, best[0][1], best[1], best[1]))
    return out


def unit_sentences(text: str, marker_sents: dict[str, list[str]]) -> list[str]:
    """The card sentences a body line quotes (whole, or a clause of), by its markers' chunks."""
    pieces = [p.strip(" -*") for p in _PIECES.split(text)]
    pieces = [p for p in pieces if len(p) >= 4]
    found = []
    for m in _MARK.findall(text):
        for s in marker_sents.get(m, []):
            plain = unnumber(s)
            if any(p in plain or plain in p for p in pieces):
                found.append(s)
    return found


_EN_STOP = frozenset("the a an and or of to in on for is are be it its that this with as by at from can may not "
                     "but so than then there their they them more most all any".split())


def said_tokens(text: str) -> set[str]:
    """What a line says, for a repeat check across paraphrases: Chinese character pairs and English words
    (no markers, no labels, no stop words)."""
    text = re.sub(r"\[\d+\]|\*\*[^*\n]+\*\*\s*[：:]?", " ", text).lower()
    out = {w for w in re.findall(r"[a-z][a-z0-9'-]+", text) if w not in _EN_STOP and len(w) > 2}
    for run in re.findall(r"[\u3400-\u9fff]+", text):
        out.update(run[i:i + 2] for i in range(len(run) - 1))
    return out


_ORPHAN_MARKER = re.compile(r"((?:^|\n|\]|[：:])\s*)\[\d+\]\s*")
# a verdict line opening a lead ("**不是。**"), not a label ("**核心**：…")
_VERDICT_HEAD = re.compile(r"\*\*[^*\n]+\*\*(?!\s*[：:])\s*")


def assemble_ranked(lead: str, body: str, budget: int, max_chars: int, relevance: Callable[[str], float | None],
                    previous: str = "", must: frozenset[str] = frozenset(), measure: Callable[[str], int] = len,
                    floor: float | None = None, plain: Callable[[str], float | None] | None = None,
                    lead_first: bool = False, bare_lead: bool = False,
                    repeated: Callable[[str], bool] | None = None,
                    announced: Callable[[str], int | None] | None = None, whole_list: bool = False,
                    lead_own: float | None = None, whole_counted: bool = True, tables: bool = True) -> str:
    """`lead` first, then the body's most relevant cited lines (`relevance(line)`, best first) while
    the answer stays within `budget`, shown in the body's order; a line's unmarked heading travels
    with it; lines the lead or the previous answer already say are skipped; a line citing one of the
    `must` markers is kept over the budget (never over `max_chars`). `measure` counts a line's length
    in the language the reader will see. `floor`: lines scoring more than this below the best line
    are left to the sources, whatever the budget (the rest of a list the question did not ask about),
    compared by `plain(line)` (relevance without the lead-section bonus) when given.
    A lead sentence that a body line repeats is taken out of that line. `lead_first`: the lead is a
    verdict (a claim's card sentence): a body line that says it and more takes its place only when it
    opens with it, so the answer to a yes/no question is never moved into the middle of a list line
    (blind 9 b9-057: "可以在仿真或真实环境中训练" third of four items); the list line drops it instead.
    `repeated(line)`: the line says what the previous answer said in other words; it is left out.
    `announced(line)`: the count a line announces ("four intuitive ideas"); the list after it, when it has
    that many items, is kept whole or not at all (with the lead: whole, within `max_chars`). `whole_list`:
    the body's first list is the answer (the steps, the memory hooks): it is kept whole, like a list the
    lead announces. `lead_own`: the lead's own relevance; the floor then counts from it when it is higher
    than every body line's (a list that scores alike throughout, all of it below the point, is padding).
    `whole_counted`: a list under a heading that counts it ("卡片给出四类原因：") is the answer (why, how, an
    overview): kept whole like a list the lead announces. Otherwise (one point asked: an example, a verdict) it
    is kept whole or not at all, within the budget. A lead that is one of its items keeps its place; the rest
    of the list stays together, without the heading whose count it no longer matches. `tables`: a table is kept
    over the budget like a must line; False for a one-line ask, where the lead is the answer (round 37)."""
    said = core(lead)
    before = core(previous)
    # (by line too: a verdict line over one line per side, "不是一回事，各自的作用是：" then "- …依赖。 [1]")
    lead_sents = [p.strip().removeprefix("- ").strip()
                  for p in re.split(r"\s*\[\d+\]\s*|(?<=[。！？])|；|\n", re.sub(r"\*\*[^*\n]+\*\*[：:]?\s*", "", lead))
                  if len(p.strip().removeprefix("- ").strip()) >= MIN_LEAD_CHARS]
    us = units(body)
    uncounted: set[int] = set()  # counting headings whose list lost an item to the lead: one fewer, not shown
    # (`bare_lead`, for "simpler": a line that adds only a label, "**检验**：" + the lead, does not)
    whole = next((i for i, u in enumerate(us) if lead_sents and all(p in u.text for p in lead_sents)
                  and not (bare_lead and core(u.text) == said)
                  and (not lead_first or core(u.text).startswith(core(lead_sents[0])))), None)
    if whole is not None and lead_first and _VERDICT_HEAD.match(lead):
        # a claim's verdict line ("**不是。**") stays: the body line only loses the sentence the lead says
        # (blind 10 b10-054: the labelled "**核心**：…核心不是…" line took the lead's place, "不是" went with it)
        whole = None
    if whole is not None:
        # a body line says the lead and more (the section's head, items and tail): it leads instead,
        # under the lead's own verdict line if it has one ("卡片给的例子就是这一个…" before an example said again)
        head = _VERDICT_HEAD.match(lead)
        lead = (head.group(0) if head else "") + re.sub(r"^[-*]\s+", "", us[whole].text)
        said = core(lead)
        drop = {whole} | {i for i in range(whole) if us[i].heading and us[i].para == us[whole].para}
        para = us[whole].para
        titled = _titles(us, whole)
        if not whole_counted and _bullet(us[whole]) and titled:
            # one point asked (a yes/no, an example, a definition) and the lead is one item of a titled list: the
            # other items answer other questions and stay in the sources, with the title over them (blind 24
            # b24-013 "仿真里能不能同时开一堆机器人一起练" got C · 规模, then A, B and D under "卡片把原因归成几类")
            drop |= set(titled) | {i for i, u in enumerate(us) if u.para == para and _bullet(u)}
        elif announced is not None and (h := _counted(us, whole, announced)) is not None:
            # an item of a list its heading counts ("卡片给出四类原因："): the rest of the list still goes
            # together, under no heading, as the count no longer matches it (the question singled the item
            # out: b22-026 "仿真里都能控制哪些训练条件" leads with D · 可控)
            uncounted.add(id(us[h]))
        us = [u for i, u in enumerate(us) if i not in drop]
    elif announced is not None and said:
        # the lead says an item of a counted list in part (the English reasons are their heads alone): the
        # item is not shown again under it (the English pass drops a sentence shown twice), so likewise
        hit = next(((i, h) for i, u in enumerate(us) if (h := _counted(us, i, announced)) is not None
                    and core(u.text) and core(u.text) in said), None)
        if hit is not None:
            uncounted.add(id(us[hit[1]]))
            us = [u for i, u in enumerate(us) if i != hit[0]]
    for u in us:
        for p in lead_sents:
            # a whole lead sentence repeated inside a longer line is taken out of it (a clause is not)
            if p in u.text and p[-1] in "。！？" and core(u.text.replace(p, "")):
                # a marker left with no words before it (the sentence it closed was the one taken out) goes too
                rest = _ORPHAN_MARKER.sub(r"\1", re.sub(r"\s{2,}", " ", u.text.replace(p, ""))).rstrip()
                u.text = rest if u.text[:1].isspace() else rest.lstrip()
            elif f"{(q := p.rstrip('。'))}；" in u.text or f"；{q}" in u.text:
                # an item of a "；" list the lead already says (a verdict's sentence; the table row an
                # example quotes: blind 20 b20-055 said "经常先在仿真中训练…" in its lead and again in its row);
                # the lead may have closed the item with 。 (card.stopped), the list has not
                rest = u.text.replace(f"{q}；", "") if f"{q}；" in u.text else u.text.replace(f"；{q}", "")
                if core(rest):
                    u.text = rest
    groups: list[tuple[list[int], int]] = []  # (unit indexes: the line's heading + the line, line index)
    heading: int | None = None
    for i, u in enumerate(us):
        if u.heading:
            heading = i
            continue
        # a heading introduces its own paragraph, or the next one when it stands alone
        if heading is not None and not (us[heading].para == u.para or (us[heading].alone and us[heading].para == u.para - 1)):
            heading = None
        groups.append(([heading, i] if heading is not None else [i], i))
    length = measure(lead)
    # None: a line written for this question (a scenario's check) or a table: kept like a must line
    table = [us[line].text.lstrip().startswith("|") for _, line in groups]
    rel = [None if t else relevance(us[line].text) for t, (_, line) in zip(table, groups)]
    own = [None if t else (plain or relevance)(us[line].text) for t, (_, line) in zip(table, groups)]
    top = max([r for r in rel if r is not None], default=0.0)
    best_own = max([r for r in own if r is not None], default=0.0)
    if lead_own is not None:
        best_own = max(best_own, lead_own)
    always = [r is None and not t for r, t in zip(rel, table)]  # a table is kept like a must line (within max_chars)
    rel = [top + 1.0 if r is None else r for r in rel]
    order = sorted(range(len(groups)), key=lambda g: (-rel[g], g))
    bundles = _announced_lists(lead, us, groups, announced or (lambda _: None), whole_list, whole_counted, uncounted)
    keep: set[int] = set()
    done: set[int] = set()
    cited = False  # a card sentence is kept: before one is, the budget does not apply (see below)

    def take(idx: list[int], lines: list[int], forced: bool) -> None:
        """Keep these units (the lines `lines` and their headings) if they fit: a forced line within
        `max_chars`, any other within the budget."""
        nonlocal length, said, cited
        extra = sum(measure(us[i].text) + 1 for i in dict.fromkeys(idx) if i not in keep)
        # the first cited line is kept whatever the budget: a line written for the question (a story's
        # check, uncited, chosen first) must not crowd out every card sentence, or the answer has no
        # evidence left and falls back to the generic one (round 17: a 540-char English budget did that
        # to the temperature story, whose note heading and factor line run 530 characters)
        if (cited or lead) and length + extra > (max_chars if forced else budget):
            return
        cited = cited or any(_MARK.search(us[line].text) for line in lines)
        keep.update(idx)
        length += extra
        said += "".join(core(us[line].text) for line in lines)

    for g in order:
        if g in done:
            continue
        if g in bundles:
            # an announced list: all its lines at once, kept over the budget when the lead announced it
            members, forced = bundles[g]
            done.update(members)
            # (an item the lead already says is not said again: "两边的对比" under a lead quoting both sides)
            members = [m for m in members if not ((c := core(us[groups[m][1]].text)) and c in said)]
            if not members:
                continue
            if floor is not None and not forced and any(own[m] is not None and own[m] < best_own - floor for m in members):
                continue  # one point asked (a yes/no, an example): a list whose items fall below the point is padding
            take([i for m in members for i in groups[m][0]], [groups[m][1] for m in members], forced)
            continue
        idx, line = groups[g]
        # a line written for the question, a story's point, a table or a must line is kept over the budget
        forced = always[g] or (table[g] and tables) or bool(must and set(f"[{m}]" for m in _MARK.findall(us[line].text)) & must)
        if floor is not None and own[g] is not None and own[g] < best_own - floor and not forced:
            continue
        c = core(us[line].text)
        if c and (c in said or (before and c in before)):
            continue
        if repeated is not None and repeated(us[line].text):
            continue
        take(idx, [line], forced)
    return join_units(lead, [us[i] for i in sorted(keep) if id(us[i]) not in uncounted])


def _bullet(u) -> bool:
    return u.text.lstrip().startswith(("- ", "* "))


def _titles(us: list, i: int) -> list[int]:
    """The heading units before unit `i` that introduce its paragraph: one in that paragraph, or one standing
    alone in the paragraph before it."""
    return [h for h in range(i) if us[h].heading and (us[h].para == us[i].para or (us[h].alone and us[h].para == us[i].para - 1))]


def _counted(us: list, i: int, announced: Callable[[str], int | None]) -> int | None:
    """The heading unit that counts the list bullet `i` is an item of ("卡片给出四类原因："), or None."""
    heads = _titles(us, i)
    if heads and _bullet(us[i]) and announced(us[heads[-1]].text):
        return heads[-1]
    return None


def _announced_lists(lead: str, us: list, groups: list[tuple[list, int]], announced: Callable[[str], int | None],
                     whole_first: bool = False, counted_forced: bool = True,
                     uncounted: AbstractSet[int] = frozenset()) -> dict[int, tuple[list[int], bool]]:
    """group -> (the groups of its announced list, forced): a line (or the lead, or a heading) that announces
    a count binds the first run of bullet lines after it that has exactly that many items; the announcing
    line joins its list's bundle, and a list the lead announces is forced (kept over the budget), as is one
    a heading counts when `counted_forced`. `uncounted`: headings (by id) whose list lost an item to the lead.
    `whole_first`: the first list is bound, forced, whatever its length."""
    by_line = {line: g for g, (_, line) in enumerate(groups)}
    bullet = [_bullet(u) and i in by_line for i, u in enumerate(us)]
    # a lead with a list of its own ("卡片没有给两者分优劣…" over one line per side) announced that list
    speakers = [(-1, announced(lead))] if lead and not re.search(r"^[-*] ", lead, re.M) else []
    if whole_first:
        speakers = [(-1, -1)]  # n = -1: the first run, whatever its length
    speakers += [(i, announced(u.text)) for i, u in enumerate(us) if not u.heading and i in by_line]
    # a heading that counts its list ("两边的对比：", "The card gives four reasons:") binds it too, like the
    # lead: the list is the point of the block, kept whole (within max_chars); a list shown under it short of
    # an item contradicted it (blind 23 b23en-023: "side by side" over one side; b23en-009: one reason of four)
    speakers += [(i, n - (id(u) in uncounted)) for i, u in enumerate(us) if u.heading and (n := announced(u.text))]
    out: dict[int, tuple[list[int], bool]] = {}
    for at, n in speakers:
        items: list[int] = []
        i = at + 1
        while n and i < len(us):  # the first run of bullet lines after it with exactly n items
            if not bullet[i]:
                i += 1
                continue
            run = [i]
            while run[-1] + 1 < len(us) and bullet[run[-1] + 1] and us[run[-1] + 1].para == us[i].para:
                run.append(run[-1] + 1)
            if len(run) == n or (n == -1 and len(run) > 1):
                items = [by_line[k] for k in run]
                break
            i = run[-1] + 1
        if not items or any(g in out for g in items):
            continue
        members = ([by_line[at]] if at in by_line and by_line[at] not in items else []) + items
        for g in members:
            out[g] = (members, at < 0 or (counted_forced and us[at].heading))
    return out
