"""Customer-scenario walkthroughs: the story -> the gap factors it names (story_match.py) -> the
card's evidence for each, the check it calls for and the one method the card ties to it, in the shape
of what the story asks (scenario_table.py: the point first, then only the blocks that act needs).

A complaint that matches no factor gets the card's general reality-gap factors, named as such.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .card import lines, stopped, unnumber
from .english import lower_first
from .labels import label
from .lexicon import fold
from .scenario_table import SCENARIO_ANCHORS, Factor, Table, table
from .story_match import match_factors

if TYPE_CHECKING:
    from .card import Writer
    from .focus import Focus


def bold_line(head: str, rest: str, lang: str) -> str:
    """A bold heading with more words on its line: its colon outside the bold ("**可以这样跟客户解释**：“…”"),
    since bold closed after CJK punctuation and followed by text does not render (tests: no "：**" mid-line)."""
    if not rest:
        return f"**{head}**"
    core = head.rstrip("：:")
    # a heading with no colon of its own gets the reader's ("**你这边先核对**：…", not ":")
    colon = head[len(core):] or ("：" if lang == "zh" else ":")
    return f"**{core}**{colon}{'' if lang == 'zh' else ' '}{rest}"


def _clause(sentence: str, phrase: str) -> str:
    """In a sentence that lists four or more causes, just the clause with `phrase`."""
    parts = [c for c in re.split(r"[，；。]", sentence) if c]
    return unnumber(next((c for c in parts if phrase in c), sentence) if len(parts) >= 4 else sentence)


def pattern_line(w: "Writer", anchor: str) -> str:
    """A card scenario on one line: its heading, the customer's words and the card's diagnosis pointer after them."""
    return w.bullet(anchor, *w.card.sents(anchor), sep=" ", label=label(w.lang, anchor, w.card.heading(anchor)))


def _section(w: "Writer", key: str, *items: str) -> str:
    body = lines(*items)
    if not body:
        return ""
    return w.ledger.frame(f"**{label(w.lang, key)}**") + "\n" + body


def _evidence_for(w: "Writer", fac: Factor, refs: tuple[tuple[str, str], ...] | None = None) -> tuple[tuple[str, str], ...]:
    """The factor's evidence (or `refs`) as the reader will see it: English is aligned by whole
    sentence, so a clause of the long causes sentence ("传感器会有噪声") would show the whole sentence,
    friction and motors first (blind 9 b9en-003); an English answer leaves such a clause out when the
    factor has a sentence of its own."""
    refs = fac.evidence if refs is None else refs
    if w.lang != "en" or fac.key == "general":  # the general factor is the list of causes itself
        return refs
    own = tuple((a, p) for a, p in refs if len([c for c in re.split(r"[，；。]", w.sentence(a, p)) if c]) < 4)
    return own or refs[:1]


def _factor_line(w: "Writer", fac: Factor, whole: bool = False, said: set[str] | frozenset[str] = frozenset()) -> str:
    """`said`: "anchor|sentence" keys already cited in this answer: a factor's sentence is not said twice
    (blind 11 b11-008: the 'same algorithm, different body' sentence twice)."""
    refs = _evidence_for(w, fac)
    refs = tuple(r for r in refs if f"{r[0]}|{unnumber(w.sentence(*r))}" not in said) or refs
    evidence = [w.sentence(a, p) for a, p in refs]
    spans = [unnumber(s).rstrip("；;") for s in evidence] if whole else [_clause(s, p) for s, (_, p) in zip(evidence, refs)]
    # a whole sentence's 。 before a ；-joined next piece reads "模拟。 [1]；": the piece is quoted without it
    spans = [x.rstrip("。") if i < len(spans) - 1 else x for i, x in enumerate(spans)]
    cited = [w.quote(a, s) for (a, _), s in zip(refs, spans)]
    # English shows each cited piece as its whole aligned sentence: "; " after its full stop read "… completely. [3];
    # The less …" (blind 14 b14en-002), so English pieces are joined by a space
    body = ("；" if w.lang == "zh" else " ").join(c for c in cited if c)
    if not body:
        return ""
    w.ledger.frame(f"**{fac.names[w.lang]}**")
    return f"- **{fac.names[w.lang]}**{'：' if w.lang == 'zh' else ': '}{body}"


def _method_line(w: "Writer", ref: tuple[str, str]) -> str:
    """A method of the card (anchor, a phrase of its sentence): that sentence, cited, under its heading."""
    anchor, ties = ref
    return w.bullet(anchor, w.sentence(anchor, ties), label=w.card.heading(anchor).rstrip("？?"))


def is_story(question: str) -> bool:
    """A symptom told (摔, 变差, slips, …), not a question about the card's list of scenarios."""
    from .intents import SYMPTOM

    q = fold(question)
    return bool(SYMPTOM.search(q) or table().story_cues.search(q)) and not re.search(r"场景|scenario", q)


def factors_for(f: "Focus") -> list[Factor]:
    """The story's factors: decided by the answerer's StoryMatcher when it set them, else cue words.
    A story that names no factor gets the card's general gap factors ([table().general]); a question
    that tells no story ("when should an engineer think of Sim2Real") gets []. The answerer reads a
    non-empty list as "the walkthrough answers in its own shape"."""
    t = table()
    if f.factors is not None:
        found = [t.factor(k) for k in f.factors if any(x.key == k for x in t.factors)]
    else:
        found = match_factors(f.question)
    story = is_story(f.question)
    if not story and all(x.key == (t.catch_all or "") for x in found):
        found = []  # "when should a solution engineer think of Sim2Real with a customer": no story, no factor
    if not found and story and (t.asked_act(f.asked_text) or f.act) != "example":
        # (examples asked of customer trouble, "给我举几个客户那边sim2real出问题的例子", tell no story of their own: its
        # symptom words name what the examples are of, and the card's customer scenarios answer it)
        return [t.general]
    return found


def shaped(f: "Focus") -> bool:
    """Whether build_scenario answers in a shape of its own whose first block is the point: a story with
    factors, or the words for a customer asked without a story ("客户 CTO 问仿真结果在产线上还算数吗，我咋接").
    The answerer then puts no best-scoring sentence above it (blind 12 b12-030, b12-064 opened with scenario
    4's customer quote) and adds no "closest section" tail."""
    t = table()
    if factors_for(f) or t.uncovered_line(f.story_text, "zh"):
        return True  # a story's factors, or the card's general ones under a note on what it does not list
    return (t.asked_act(f.asked_text) or f.act) == "customer_reply" and not t.one_line.search(fold(f.question))


class _Blocks:
    """Renders a story answer's blocks; a card sentence or check said once is not said again."""

    def __init__(self, w: "Writer", f: "Focus", factors: list[Factor]):
        self.w, self.f, self.t = w, f, table()
        self.factors = factors
        self.general = factors == [self.t.general]
        self.uncovered = False  # set by build_scenario when the story names what the card does not cover
        self.extra_cite: tuple[tuple[str, str], ...] = ()  # said after the verdict's sentence (an uncovered cause)
        self.words_follow = False  # the verdict's block is followed by words for the customer (build_scenario)
        self.used: set[str] = set()

    def _text(self, key: str, **kw: str) -> str:
        return self.t.text[key][self.w.lang].format(**kw)

    def _frame(self, text: str) -> str:
        return self.w.ledger.frame(f"**{text}**")

    def _bold(self, head: str, rest: str) -> str:
        return bold_line(head, rest, self.w.lang)

    def _fresh(self, *items: str) -> list[str]:
        out = []
        for it in items:
            if it and it not in self.used:
                self.used.add(it)
                out.append(it)
        return out

    def _cited(self, refs: tuple[tuple[str, str], ...], together: bool = False) -> list[str]:
        """The card sentences `refs` name, cited, each once per answer. `together`: consecutive sentences of one
        section are quoted as one run with one marker (Writer.quote), as the two halves of one card sentence read
        ("…地面也不一定平整；" and "重量、质心…模拟。"), not as two cited pieces."""
        runs: list[tuple[str, list[str]]] = []
        for anchor, phrase in refs:
            s = unnumber(self.w.sentence(anchor, phrase))
            if s and f"{anchor}|{s}" not in self.used:
                self.used.add(f"{anchor}|{s}")
                if together and runs and runs[-1][0] == anchor:
                    runs[-1][1].append(s)
                else:
                    runs.append((anchor, [s]))
        return [q for anchor, sents in runs if (q := self.w.quote(anchor, *sents))]

    def _clauses(self, refs: tuple[tuple[str, str], ...]) -> list[str]:
        """zh: the clause of a long list sentence that holds the phrase (关节间隙 without the friction and the
        floor, which the story did not name); English aligns whole sentences only."""
        if self.w.lang != "zh":
            return self._cited(refs)
        return self._spans(tuple((a, _clause(self.w.sentence(a, p), p).rstrip("；;，,")) for a, p in refs))

    def _whole(self, anchor: str, span: str) -> bool:
        """Whether `span` is a whole card sentence or list item of `anchor` (not a clause of a longer one)."""
        return span.rstrip("。；;，,") in {unnumber(x).rstrip("。；;，,") for x in self.w.card.sents(anchor)}

    def _stopped(self, anchor: str, span: str, quoted: str) -> str:
        """A cited clause said as a sentence (`card.stopped`: a card phrase with no stop of its own, "Sensors have noise
        and delay [1] Simulation is…", ran into the next sentence, blind 13 b13en-033), but in English only for a
        whole sentence or list item: a clause is shown as its whole aligned English sentence, which brings its own
        ending (b14en-008 read "not necessarily flat;. [2]")."""
        return stopped(quoted, self.w.lang) if self.w.lang == "zh" or self._whole(anchor, span) else quoted

    def _spans(self, refs: tuple[tuple[str, str], ...]) -> list[str]:
        """Card spans quoted as they stand (a part of a sentence), each once per answer."""
        out = []
        for anchor, span in refs:
            if f"{anchor}|{span}" not in self.used:
                self.used.add(f"{anchor}|{span}")
                q = self.w.quote(anchor, span)
                if q:
                    out.append(self._stopped(anchor, span, q))
        return out

    def _say(self) -> list[str]:
        """The clauses that tell a customer what differs in this story: the strongest factor's `say`
        (default: its first evidence) and a second factor's first clause, clauses of one section joined
        into one cited sentence."""
        facs = [self.t.general] if self.general else self.factors[:2]
        refs = _evidence_for(self.w, facs[0], facs[0].say or facs[0].evidence[:1])
        if self.w.lang == "en":  # English shows whole sentences: one, the factor's own (not "weight, …"), not said yet
            refs = [(a, p) for a, p in refs if f"{a}|{_clause(self.w.sentence(a, p), p).rstrip('；;')}" not in self.used][-1:]
        else:  # a story naming two causes: the second factor's first clause too
            refs = (*refs, *[r for x in facs[1:] for r in (x.say or x.evidence)[:1]])
        groups: dict[str, list[str]] = {}
        for a, p in refs:
            c = _clause(self.w.sentence(a, p), p).rstrip("；;")
            if c and f"{a}|{c}" not in self.used:
                self.used.add(f"{a}|{c}")
                groups.setdefault(a, []).append(c)
        def sep(cs: list[str]) -> str:  # clauses of one sentence read with ，; labelled list items with ；
            if self.w.lang != "zh":
                return "; "
            if any(c.endswith("。") for c in cs[:-1]):  # a whole sentence then another: "越大。，同一套" read wrong
                return ""
            return "；" if any("：" in c for c in cs) else "，"

        return [self._stopped(a, cs[-1], q) for a, cs in groups.items() if (q := self.w.quote(a, *cs, sep=sep(cs)))]

    def _blame(self) -> list[str]:
        """After a blame verdict: the card's reason it is not only the algorithm for this factor (scenario
        4's 不能只看算法效果 as its whole scenario line, said once; physical-system's 同一套算法…)."""
        if self.general:
            return []
        out = []
        for a, p in self.factors[0].blame:
            if a.startswith("scenario-"):
                out += self._fresh(pattern_line(self.w, a))
            else:
                out += self._cited(((a, p),))
        return out

    def _names(self) -> str:
        sep = "、" if self.w.lang == "zh" else "; "
        return sep.join(re.sub(r"\s*\([^)]*\)", "", x.names[self.w.lang]) for x in self.factors)

    def _factor_lines(self) -> list[str]:
        if self.general:
            return self._fresh(_factor_line(self.w, self.t.general, whole=True))
        return self._fresh(*[_factor_line(self.w, x, said=self.used) for x in self.factors])

    def done(self) -> list[Factor]:
        """The factors the story says were already checked or tuned ("已经重新调过摩擦", "we already re-tuned
        the friction"): their checks are not asked again (blind 14 graders: a checklist that ignores what the
        reader already tried)."""
        return [x for x in self.factors if self.t.done(x, self.f.story_text)]

    def _checks(self, first_only: bool = False) -> list[str]:
        done = self.done()
        facs = [x for x in self.factors if x not in done] or ([self.t.general] if done else [])
        facs = facs[:1] if first_only else facs
        return self._fresh(*[self.w.ledger.frame(f"- {x.check[self.w.lang]}") for x in facs])

    def _methods(self) -> list[str]:
        # a method the story says was already applied ("仿真里已经加了域随机化") is not the fix offered again:
        # the methods the table names in its place are (blind 15 b15-011)
        tried = self.t.methods_tried(self.f.story_text)
        skip = {m.anchor for m in tried}
        # ... nor is the method of a factor the story says was already re-tuned ("把仿真里的摩擦重新调过了": not
        # domain randomization of the friction again; blind 15 b15-002, b15en-005): what stands in its place is
        done = {x.key for x in self.done()}
        refs = [m for m in dict.fromkeys(x.method for x in self.factors if x.method and x.key not in done) if m[0] not in skip]
        dropped = {x.method[0] for x in self.factors if x.method and x.key in done} - {r[0] for r in refs}
        skip |= dropped
        alts = [*tried, *(m for m in self.t.tried_methods if m.anchor in dropped and m not in tried)]
        refs += [r for m in alts for r in m.instead if r[0] not in skip and all(r[0] != x[0] for x in refs)]
        # a method sentence the answer already cited as a factor's evidence (lighting: domain randomization's
        # 光照 example) is not said again as its method
        refs = [m for m in dict.fromkeys(refs) if f"{m[0]}|{unnumber(self.w.sentence(*m))}" not in self.used]
        return self._fresh(*[_method_line(self.w, m) for m in refs])

    def _tie(self) -> list[str]:
        """The card line tying the story to its strongest factor, said under a default "is this the gap?"
        verdict before the definition: the factor's card scenario line, or (no scenario) its first evidence
        sentence, which names it. The first citation is then the one that answers this story, not the general
        gap sentence every story shares (blind 13/14 graders: most story misses opened with it)."""
        if self.general or self.uncovered:
            return []
        first = self.factors[0]
        if first.pattern:
            return self._fresh(pattern_line(self.w, first.pattern))
        a, p = first.evidence[0]
        out = self._clauses(((a, p),))
        self.used.add(f"{a}|{unnumber(self.w.sentence(a, p))}")  # the factor line does not say it again
        return out

    def render(self, block: str, point: bool) -> str:
        w = self.w
        if block == "verdict":
            v = self.t.verdict(self.f.question, self.f.verdict)
            tie = self._tie() if v.key == self.t.verdicts[-1].key and v.cite else []
            blame = v.key in ("blame", "hardware", "unchanged")
            # a blame answered with words for the customer after it: the gap's definition comes with the words
            # (the customer block cites it), not before them, where the words were the tail the length cap cut
            # ("ur algorithm must be bad. how do i push back politely", b38en-013)
            # (only where the factor's own reason stands under the verdict line: a bold line alone over the words
            # would be a second heading in the point's paragraph, and the verdict was lost, dev b8-002)
            defer = blame and self.words_follow and not self.uncovered and not self.general and bool(self.factors[0].blame)
            cited = [] if defer else self._cited(v.cite)
            body = " ".join(cited) if cited else ""
            # a story naming what the card does not cover (wifi, temperature) is not answered 是的: the note
            # said first tells what the card's gap covers, then its definition, cited
            # a note whose card sentences are the point (one unit of six, wear) says the verdict itself: "both" or
            # "yes, the gap" over it overreached (blind 13 b13en-005, b13-005)
            quiet = self.uncovered and (v.key == self.t.verdicts[-1].key or (self.extra_cite and v.key in ("either", "hardware")))
            line = "" if quiet else self._frame(v.line[w.lang])
            if not cited and not defer:  # a verdict line with no sentence of its own: the methods say it
                return lines(line, *self._methods())
            extra = self._blame() if blame else self._methods() if v.key == "fix" else []
            if quiet and self.extra_cite:
                # the note's own card sentences (关节间隙, 本体参数存在误差) answer it: they come before the definition
                return lines(line, *self._clauses(self.extra_cite), body, *extra)
            if blame:
                # "是不是我们算法不行": the card's reason it is not only the algorithm for THIS factor (scenario 4's
                # 不能只看算法效果, the changed-body sentence) is the answer's evidence; the gap's definition every
                # story shares comes after it (blind 17 graders: b17-003/004, b17en-004 cited the definition first)
                return lines(line, *tie, *extra, body, *self._clauses(self.extra_cite))
            return lines(line, *tie, body, *self._clauses(self.extra_cite), *extra)
        if block == "reason":
            # a story's "why" follow-up ("为啥仿真里没考虑到"): the card's reason, not the diagnosis again:
            # the simulation is an approximation that cannot model everything, and this factor's own sentence
            refs = (*self.t.reason_cite, *([] if self.general else (self.factors[0].blame or self.factors[0].say[:1])))
            cited = self._cited(tuple(refs))
            return lines(self._frame(self._text("reason_point")), " ".join(cited)) if cited else ""
        if block == "cause":
            if self.general:
                return lines(self._frame(self._text("general_point")) if point else
                             w.ledger.frame(f"**{label(w.lang, 'sc-factors')}**"), *self._factor_lines())
            head = self._frame(self._text("cause_point", names=self._names())) if point else \
                w.ledger.frame(f"**{label(w.lang, 'sc-factors')}**")
            items = self._factor_lines()
            # every factor sentence already said (under a note, by the verdict): no heading left alone (b13en-005)
            return lines(head, *items) if items or point else ""
        if block in ("checks", "check1"):
            items = self._checks(first_only=block == "check1")
            if not items:
                return ""
            if self.general and not self.done():
                # the general check goes through the card's list of sources item by item: that list, cited, is
                # its evidence (a follow-up "那先查啥" of a story that named no factor had nothing cited, and
                # was answered with the generic summary of the sections; dev b15-053, b25-006)
                items = [*items, *self._factor_lines()]
            head = self._text("checks_point") if point else (self._text("check1") if block == "check1" else label(w.lang, "sc-checks"))
            done = self.done()
            if done:  # what the reader already did is named, not asked again
                sep = "、" if w.lang == "zh" else ", "
                names = sep.join(re.sub(r"\s*\([^)]*\)", "", x.names[w.lang]) for x in done)
                # on the heading's own line: a second unmarked line would be read as the heading (focus.units)
                return lines(w.ledger.frame(self._bold(head, self._text("checks_done", names=names))), *items)
            return lines(self._frame(head), *items)
        if block == "methods":
            items = self._methods()
            return lines(self._frame(self._text("methods_point")), *items) if items else ""
        if block == "scenario":
            # the strongest factor's card scenario only: a lighting story whose second factor is the
            # sensors is not the card's sensor-swap scenario
            anchors = [self.factors[0].pattern] if self.factors[0].pattern else []
            items = self._fresh(*[pattern_line(w, a) for a in anchors])
            if not items:
                return ""
            return items[0] if point else lines(w.ledger.frame(f"**{label(w.lang, 'sc-patterns')}**"), *items)
        if block == "customer":
            # what one can say to the customer, each a cited card sentence or clause: the reality gap,
            # what differs in this story (the factor's `say`), and the closing span (never a line
            # addressed to our own engineers, such as 解决方案人员要知道)
            close = self.t.customer_close.get(w.lang, ())
            # the words for the customer first (the factor's `reply`: what differs, that the system needs adapting
            # for it, what we check first), then the card behind them: the factor's card scenario, what differs in
            # this story, the gap definition (blind 13/14 graders: card sentences stitched together, "sensors have
            # noise and delay", were no message one could send, and the adaptation was only in a tag)
            fac = self.t.general if self.general else self.factors[0]
            if fac.reply_if_named and not fac.cues.search(fold(self.f.story_text)) \
                    and self.f.factor_votes.get(fac.key, 0.0) < self.t.reply_min_vote:
                # words that say what the story told ("this unit against one that works", "the new sensor") are
                # not put in the reader's mouth for a story that told none of it: its strongest factor is only the
                # neighbours' weak guess (blinds 52-55: b52-041, b53-030, b55-009 were graded 0, 0, 1 for it)
                fac = self.t.general
            # the reply shares the point's line: an unmarked line of its own would be read as a heading and take
            # the point's place (focus.units)
            reply = fac.reply[w.lang] if fac.reply else ""
            if self.f.letter and reply.startswith("“"):
                # a draft thanks them and says the cause is read from their description, not yet checked
                opener = self._text("letter_open")
                reply = f"“{opener}{reply[1:] if w.lang == 'zh' else lower_first(reply[1:])}"
            head = self._bold(self._text("customer_point"), reply)
            # (an email to the customer does not quote the card's scenario back to them, but still cites it: the
            # draft's scenario line leaves its text and keeps its marker on the sources line, answer/forms.py)
            scen = self.render("scenario", point=True) if not self.general else ""
            defn = self._cited(self.t.customer_cite)
            said = [*self._say(), *defn] if not self.general else [*defn, *self._say()]
            if self.words_follow and w.lang == "en" and defn:
                # under a blame's verdict and its card scenario, English words run long: the gap's definition alone
                # backs them, or the 900-character cap took the words with their last line (b38en-013)
                said = defn
            # a factor story's words are about its factor: the engineering-process closing span was the padding
            # graders named (blind 15 b15-050); a story with no factor of its own keeps it
            body = " ".join([*said, *(self._spans(close) if self.general else [])])
            # the words and the card scenario they rest on are the point; the card sentences behind them are
            # support, a paragraph of their own that competes for the length budget (round 19: an English reply
            # ran script + scenario + two card sentences, ~800 characters)
            scen = f"- {scen.lstrip('- ')}" if scen else ""
            if self.f.letter:  # a draft: its words, the card lines behind them, and the scenario it rests on
                return lines(w.ledger.frame(head), body, scen)
            point = lines(w.ledger.frame(head), scen)
            return f"{point}\n\n{body}" if scen and body else lines(point, body)
        if block == "one_line":
            # the gap sentence and, when the story names a factor, that factor's card clause: a one-liner
            # about a new IMU that never says "sensors" is no reply (blind 10 b10-006, b10en-004)
            if self.general:
                return " ".join(self._cited(self.t.one_line_cite))
            # one sentence that names the story's own factor (blind 12 b12-015: four sentences for "one line for
            # my boss", never saying "lighting"), then the one card sentence of that factor it rests on
            first = self.factors[0]
            refs = _evidence_for(self.w, first, first.say or first.evidence[:1])
            return lines(self._frame(self._text("one_line_point", names=re.sub(r"\s*\([^)]*\)", "", first.names[w.lang]))),
                         " ".join(self._cited(tuple(refs))))
        if block == "deeper":
            if not self.f.followup:
                return ""
            return lines(*self._fresh(w.bullet("why-hard", w.sentence("why-hard", "完美复制品")),
                                      w.bullet("physical-system", w.sentence("physical-system", "越不准确"))))
        raise ValueError(block)


def story_shape(f: "Focus", t: Table | None = None) -> tuple[str, ...]:
    """The blocks a story answer shows, in order, for the question's act (data: scenarios.json shapes);
    a verdict variant may bring its own shape (retrain), a blame ("是不是算法的问题") answers the blame
    first, and "one line for the customer" is one card sentence."""
    t = t or table()
    q = fold(f.question)  # a follow-up's carries the earlier question: "客户说是软件的问题" + "那怎么讲" is still a blame
    # what the turn asks in so many words (a follow-up: in its own words, "客户追问为啥…，怎么答" is a reply)
    act = t.asked_act(f.asked_text if f.followup else q) or f.act
    if t.one_line.search(q):  # "one line for the customer": one card sentence, whatever act was read
        return ("one_line",)
    if f.letter and "letter" in t.shapes:
        # an email to the customer: the reply and the card lines it rests on (blind 31-32: no email form)
        return t.shapes["letter"]
    if f.followup and t.followup_shape(act) is not None:
        # a follow-up in a story conversation answers its own act, not the diagnosis again (blind 11 b11-056)
        return t.followup_shape(act)
    v = t.verdict(q, f.verdict)
    if act == "verdict" and v.key == t.verdicts[-1].key and not f.followup and (
            t.asked_act(q) is None or (v.asks is not None and not v.asks.search(q))):
        # the reader's neighbours said yes/no, but the story asks none in words ("这种要往哪个方向想"), or one
        # that is not "is this the gap": an unasked 是的 is no answer (blind 11 b11-009); the cause, which says
        # it is the gap, comes first
        act = "why"
    shape = t.shape(act)
    if v.shape is not None and act in ("verdict", "how"):
        return v.shape
    if v.shape is not None and v.cues.search(q) and not f.followup:
        # the question asks that yes/no in so many words ("要不要重新训", "do we need to retrain?") but the act
        # read is another (check_first, a customer reply): the yes/no is still answered first (blind 12
        # b12-026, b12en-003 never said whether to retrain)
        return ("verdict", *shape) if act == "customer_reply" else v.shape
    if (act in ("check_first", "how") and shape[0] != "verdict" and not f.followup and v.asks is not None
            and v.asks.search(q) and t.asks(q, "verdict")):
        # "这算sim2real的问题吗 先查啥" asks both: the yes/no first, then the checks (blind 48 b48-037 had none)
        shape = ("verdict", *shape)
    elif v.key in ("blame", "fix", "hardware", "unchanged", "either", "retrain", "enough") and shape[0] != "verdict":
        # "是不是策略没训好" / "能搞定吗" asked inside a "how do I answer the customer": that yes/no first
        # (a fix verdict's methods follow in the act's own shape when it has a methods block)
        shape = ("verdict", *shape)
    return shape


def build_scenario(w: "Writer", f: "Focus") -> dict[str, str]:
    """A customer story answered in the shape its act asks for (scenarios.json "shapes"): the point
    first (the verdict, the cause, the check, the method, words for the customer), then only the
    blocks that act needs. A story no factor matches gets the card's general gap factors, said to be
    general. A question that tells no story gets the card's scenarios and when to think of Sim2Real."""
    factors = factors_for(f)
    if not factors and table().uncovered_line(f.story_text, w.lang):
        # no factor voted, but the story names a cause the card does not list (a cold store in winter): the
        # note and the card's general causes, not the four scenarios listed (blind 12 b12-010)
        factors = [table().general]
    elif not factors and (table().asked_act(f.asked_text) or f.act) == "check_first" \
            and table().gap_told.search(fold(f.story_text)):
        # "仿真里成功率 99%，现场七成，第一步看啥": a gap no factor names asks what to check all the same; the card's
        # general check (compare sim and site condition by condition) answers it, where the gap line and what to
        # judge answered nothing asked (blind 22 b22-030)
        factors = [table().general]
    if not factors:
        why = lines(w.bullet("reality-gap", w.sentence("reality-gap", "Reality Gap")),
                    w.bullet("solution-engineers", w.sentence("solution-engineers", "重点不是")))
        t = table()
        if shaped(f):
            # "the customer's CTO asks whether our simulation results count on his line; how do I answer": the
            # words for the customer (the gap, and that working in simulation and working
            # reliably on site are separated by a whole engineering process), not the four scenarios listed
            # (blind 12 b12-030, b12-064)
            b = _Blocks(w, f, [t.general])
            # the engineering-gap line first (what a CTO asking "do your simulation results count here" needs),
            # zh as the closing span (without 解决方案人员要知道); English aligns whole sentences only
            close = t.customer_close.get(w.lang, ())
            spans = b._spans(close) if close else b._cited((("solution-engineers", "工程化落地"),))
            # not "重点不是问客户…": it tells the reader what to judge, and in the words for the customer it read
            # as talking about the customer to the customer (blind 22 b22-014, b22-040; leads.json reader_only)
            said = b._cited(t.customer_cite)
            said, spans = spans, [*said, *b._cited(t.customer_general, together=True)]
            body = " ".join(x for x in [*said, *spans] if x)
            return {"body": lines(w.ledger.frame(f"**{t.text['customer_point'][w.lang]}**"), body)}
        listed = f.act == "overview" or re.search(r"场景|scenario", fold(f.question))
        if not listed and f.act not in ("how", "check_first"):
            # a question that tells no story and asks no list ("做方案得先问清客户用哪种算法吗"): the gap and what
            # to judge answer it; the four scenarios listed after were padding (blind 13 b13-044, b13-040)
            return {"body": why}
        # under a heading that counts them: the four are kept together (select.py), not traded one by one for the budget
        patterns = _section(w, "sc-cases", *[pattern_line(w, a) for a in SCENARIO_ANCHORS])
        # "when should I think of Sim2Real / what signals" (act how, or check_first): what to judge (the table's lead), then the
        # card's four customer scenarios are the signals, before the gap line (blind 27 b27-056 got the gap line only)
        return {"body": "\n\n".join(x for x in (patterns, why) if x)}
    blocks = _Blocks(w, f, factors)
    parts: list[str] = []
    # a story the card covers only in part (cold storage, a heating motor, a wifi dropout): what it does not
    # cover, said first, then what it does, rather than the general factors said as if they answered it
    asked = f.story_text
    gap_from = factors[0].key  # the factor the note was looked up for
    gap_note, gap_cite = table().uncovered_for(asked, w.lang, gap_from)
    if not gap_note and not factors[0].cues.search(fold(asked)):
        # the strongest factor is only the neighbours' guess, not in the story's words (a hot foundry read as
        # the floor, blind 12 b12en-011): the note for what the card does not list is said all the same
        gap_from = "general"
        gap_note, gap_cite = table().uncovered_for(asked, w.lang, gap_from)
    if gap_note and factors != [table().general]:
        # a story about a cause the card does not list keeps only the factors its own words name: the
        # neighbours vote some factor for every story (a wifi dropout read as precision, blind 11 b11-012)
        q = fold(asked)
        # (or that the uncovered cause names itself: worn joints are the body's, told in no factor's words)
        told = table().uncovered_names.get(table().uncovered_key(asked, w.lang, gap_from), frozenset())
        named = [x for x in factors if x.cues.search(q) or x.key in told]
        if not named:
            factors = [table().general]
            blocks = _Blocks(w, f, factors)
            gap_note, gap_cite = table().uncovered_for(asked, w.lang, "general")
        elif named != factors:
            # the named ones only: a hot foundry's sluggish motors, not the floor the neighbours guessed (b12en-011)
            factors = named
            blocks = _Blocks(w, f, factors)
    blocks.uncovered = bool(gap_note)
    shape = story_shape(f)
    if gap_note and gap_cite and table().uncovered_key(asked, w.lang, factors[0].key) in table().uncovered_lead:
        # a note whose card sentences are the answer's point (wear: the card's 关节间隙; deformed goods: 未覆盖的
        # 变化) says them under the note, before any factor (blind 12 b12en-018, b12-047)
        blocks.extra_cite = gap_cite
        shape = ("verdict", *[b for b in shape if b != "verdict"])
    if gap_note and factors[0].key == table().catch_all:
        # the catch-all's card scenario (lab to factory) is only a tag for "a new place": for a cold store it
        # reads as an ill-fitting scenario (blind 11 b11-007)
        shape = tuple(b for b in shape if b != "scenario")
    if gap_note and blocks.general and gap_cite:
        # a cause the card does not list and no factor of the card in the story (a wifi dropout): what the
        # card's gap covers, its definition and the sentence that says what to judge; not its general causes
        # presented as if they explained it (blind 11 b11-012)
        blocks.extra_cite = gap_cite
        # (a reply asked for keeps the words for the customer: blind 18 b18-014, rain, was a note and card
        # sentences with nothing one could say)
        shape = ("verdict", *(["customer"] if "customer" in shape else []))
    last = ""
    blocks.words_follow = "customer" in shape[1:2] and shape[0] == "verdict"
    for block in shape:
        text = blocks.render(block, point=not parts)
        if not text:
            continue
        if block == "customer" and last == "verdict" and len(parts) == 1:
            # "客户说是我们软件的问题，怎么接": the blame's answer and the words for the customer are one point
            parts[0] += "\n" + text
        else:
            parts.append(text)
        last = block
    if gap_note and shape and shape[0] == "verdict" and blocks.uncovered:
        v = table().verdict(fold(f.question), f.verdict)
        key = table().uncovered_key(asked, w.lang, factors[0].key)
        said = table().uncovered_verdict.get(key)
        if v.says_gap and said:
            # "is this the gap?" asked of a cause the card does not cover (a cold store): "partly", then what it
            # does not cover, rather than no verdict at all (blind 15 b15-009); also where the customer blames
            # the policy or the hardware, whose verdict lines call it the gap ("LTE cuts out… customer blames
            # sim2real, fair?" was "it looks like the reality gap")
            gap_note = said[w.lang]
    if gap_note and parts:
        # said inside the point's own bold line: a paragraph's second heading would take the first's place
        # when lines are ranked (select.assemble_ranked keeps one heading per line)
        head, _, rest = parts[0].partition("\n")
        sep = "" if w.lang == "zh" else " "
        if head.startswith("**"):
            # a note that leads into its card sentences ("…没有覆盖的变化：") is followed here by the verdict,
            # not by them: it ends as a sentence ("…变化：不一定要从头重训：" read as one run-on clause)
            note = re.sub(r"[：:]$", "。" if w.lang == "zh" else ".", gap_note)
            head = w.ledger.frame(f"**{note}{sep}{head[2:]}")
        else:
            # no verdict line to carry it (a quiet verdict, a cited first line): the note is its own framed line;
            # framed together with the cited line below it, it was no registered framing and the verifier dropped
            # it (blind 15 b15-009 said nothing of temperature)
            head = lines(w.ledger.frame(f"**{gap_note}**"), head)
        parts[0] = lines(head, rest)
    return {"body": "\n\n".join(parts)}
