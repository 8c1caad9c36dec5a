"""The question bank: templates over a card's structure, so a new card gets questions with no code
change. Every question cites its chunk, and every quote is an exact span of that chunk's text.

Templates (see docs/study.md): example lines (`示例：“…”`) under term headings -> multiple choice,
fill-in term and an attribution true/false; quoted customer lines with `→ tags` -> scenario
matching; `**bold label**` lists -> 'which side' choice; `Label：description` items -> fill-in term;
plain bullet lists -> 'which is listed' choice (distractors from other sections) and free recall;
question headings -> free recall against the section's key points; `X 不是 A，而是 B` and `A ≠ B`
sentences and yes/no headings answered '不是。' -> true/false probes; bottom-line sentences naming
a glossary or card term -> fill in the blank. Nothing is invented: a false statement is a
sentence of the card with its claim reversed or two sections' examples swapped, and it is graded
with the correct passage quoted.

Every template words its question and explanation in Chinese and in English in one place. The
English wording quotes the card's Chinese text as it is (never translated) and names headings and
terms by the English the card's bilingual headings or the glossary give them.
"""

from __future__ import annotations

import hashlib
import random
import re
from contextvars import ContextVar
from typing import Literal

from pydantic import BaseModel, Field

from ..models import Chunk
from ..text import normalize
from . import structure as S
from .english import CardEnglish, blank_term, term_in_english
from .terms import TermForms, forms_of, glossary_terms, term_for

Kind = Literal["term", "choice", "truefalse", "scenario", "recall"]
KINDS: tuple[str, ...] = ("term", "choice", "truefalse", "scenario", "recall")
Language = Literal["zh", "en"]
LANGUAGES: tuple[str, ...] = ("zh", "en")
TRUE, FALSE = "对", "错"  # the stored answer of a true/false question, whatever the language
TRUTH_EN = {TRUE: "True", FALSE: "False"}  # how English wording shows them
BLANK = "＿＿＿"  # full-width: never read as Markdown emphasis
_CJK = re.compile(r"[\u3400-\u9fff]")
Wording = tuple[str, str]  # (Chinese, English): every template writes both together


def check_language(language: str) -> Language:
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    return language  # type: ignore[return-value]


class Question(BaseModel):
    id: str = Field(description="stable hash of kind, chunk, template and text: progress keys on it")
    kind: Kind
    template: str = Field(description="the template that produced it (for debugging and docs)")
    question: str = Field(description="the prompt in Chinese (the id is keyed on it)")
    question_en: str = Field("", description="the prompt in English; quoted card text is the card's aligned "
                             "English where the card has an English rendering, else stays Chinese")
    answer: str = Field(description="the expected answer; for truefalse '对' or '错'")
    answer_en: str = Field("", description="the expected answer as English wording shows it (a cloze's blank "
                           "in the card's English sentence); graded like `answer`, which stays accepted")
    accept: list[str] = Field(default_factory=list, description="other spellings graded as correct")
    choices: list[str] = Field(default_factory=list, description="options, for choice/scenario/truefalse")
    choices_en: list[str] = Field(default_factory=list, description="each option's aligned English ('' when "
                                  "it has none); shown to English readers, graded as the Chinese option")
    chunk_id: str
    section: str = Field(description="heading path of the cited section")
    key_points: list[str] = Field(default_factory=list, description="what a free-text answer should cover")
    key_points_en: list[str] = Field(default_factory=list, description="each key point as English feedback names "
                                     "it ('' when the card has no English for it); grading stays on key_points")
    quote: str = Field(description="the supporting passage: an exact span of the chunk text")
    quote_en: str = Field("", description="the quote's aligned English ('' when the card has none)")
    section_en: str = Field("", description="the cited section's English heading path ('' when none)")
    explanation: str = ""
    explanation_en: str = Field("", description="the explanation in English; quoted card text stays Chinese")

    def prompt(self, language: str = "zh") -> str:
        return self.question_en if check_language(language) == "en" and self.question_en else self.question

    def explain(self, language: str = "zh") -> str:
        return self.explanation_en if check_language(language) == "en" and self.explanation_en else self.explanation

    def point(self, key_point: str, language: str = "zh") -> str:
        """A key point as feedback names it: its English in English where the card has one."""
        if check_language(language) == "en" and key_point in self.key_points:
            i = self.key_points.index(key_point)
            if i < len(self.key_points_en) and self.key_points_en[i]:
                return self.key_points_en[i]
        return key_point

    def options(self, language: str = "zh") -> list[str]:
        """The choices as shown: a true/false question reads True / False in English (same order)."""
        return [self.shown(c, language) for c in self.choices]

    def shown(self, value: str, language: str = "zh") -> str:
        """An answer or option as shown: 对/错 become True/False in English; card text is shown in
        its aligned English when there is one (the card's .en.md), else as it is."""
        if self.kind == "truefalse" and check_language(language) == "en":
            return TRUTH_EN.get(value, value)
        if check_language(language) == "en" and value == self.answer and self.answer_en:
            return self.answer_en
        if check_language(language) == "en" and value in self.choices:
            i = self.choices.index(value)
            if i < len(self.choices_en) and self.choices_en[i]:
                return self.choices_en[i]
        return value


def option_letter(i: int) -> str:
    """0 -> 'A': how options are labelled in the CLI and the chat (the grader reads them back)."""
    return chr(ord("A") + i)


def option_labels(q: Question, language: str = "zh") -> list[str]:
    """The options as the CLI and the tabs list them, 'A. …' (the grader reads the letter back)."""
    return [f"{option_letter(i)}. {c}" for i, c in enumerate(q.options(language))]


def _qid(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:12]


def _mk(kind: str, template: str, chunk: Chunk, question: Wording, answer: str, quote: str,
        explanation: Wording, id_wording: str | None = None, **kw) -> Question:
    """One question; the id is keyed on the Chinese wording only (progress is stored by id), or on
    `id_wording` where a question's wording changed after readers' progress was stored under it."""
    if not quote or quote not in chunk.text:  # a template bug, not bad input: fail loudly
        raise ValueError(f"{template}: quote is not a span of {chunk.chunk_id}: {quote!r}")
    if not all(question) or not all(explanation):
        raise ValueError(f"{template}: a question and its explanation need both wordings (zh, en)")
    return Question(id=_qid(kind, template, chunk.chunk_id, id_wording or question[0], answer), kind=kind,
                    template=template,
                    question=question[0], question_en=question[1], answer=answer, chunk_id=chunk.chunk_id,
                    section=chunk.section, quote=quote, explanation=explanation[0],
                    explanation_en=explanation[1], **kw)


# Card text -> its aligned English (study/english.py), while a bank is built.
_ENGLISH: ContextVar[CardEnglish | dict[str, str]] = ContextVar("s2r_bank_english", default={})


def _q(text: str) -> str:
    """Card text inside English wording: the card's aligned English of that sentence when the card
    has an English rendering, else quoted as it is; never translated here."""
    return f"“{_ENGLISH.get().get(text, text)}”"


def _q_list(items: list[str], card: "_Card | None" = None) -> str:
    """Key points or list items inside English wording: each by the card's English of it (a term by
    its English name, a clause by its English clause or sentence, study/english.py), each English
    shown once; the Chinese, quoted, where there is none."""
    english = _ENGLISH.get()
    part = english.part if isinstance(english, CardEnglish) else (lambda _: None)
    name = (lambda i: card.english(i) if _CJK.search(i) else None) if card is not None else (lambda _: None)
    shown = [english.get(i) or name(i) or part(i) or i for i in items]
    return ", ".join(f"“{e}”" for e in dict.fromkeys(shown))


def _shuffled(correct: str, distractors: list[str], seed: str, k: int = 3) -> list[str]:
    opts = [correct, *distractors[:k]]
    random.Random(seed).shuffle(opts)
    return opts


def _clauses(text: str) -> list[str]:
    """Sentence parts split at ，；：。 (exact substrings); very short ones ('不是') are dropped."""
    parts = re.split(r"[，；。！？,;]", text)
    return [p.strip() for p in parts if len(normalize(p)) >= 4]


class _Card:
    """What the templates need to know about the other sections of the corpus."""

    def __init__(self, chunks: list[Chunk]):
        self.chunks = chunks
        self.st = {c.chunk_id: S.parse(c.text) for c in chunks}
        self.term = {c.chunk_id: S.heading_term(S.heading(c)) for c in chunks}
        self.card_terms = self._card_terms()

    def _card_terms(self) -> list[TermForms]:
        """Terms the card itself names: bilingual headings, bold labels, 'Label：' items."""
        out: list[TermForms] = []
        for c in self.chunks:
            t = self.term[c.chunk_id]
            if t and t[1]:
                out.append(TermForms(t[0], t[1], tuple(forms_of(t[0]) + forms_of(t[1]))))
            st = self.st[c.chunk_id]
            for lst in st.lists:
                names = [lst.label] if lst.label else []
                names += [label for label, _, _ in S.labelled_items(lst.items)]
                out.extend(TermForms(n, None, tuple(forms_of(n))) for n in names if len(n) <= 20)
        return out

    def siblings(self, chunk: Chunk) -> list[Chunk]:
        par = S.parent(chunk)
        return [c for c in self.chunks if c.section != chunk.section and S.parent(c) == par
                and c.doc_id == chunk.doc_id]

    def children_terms(self, chunk: Chunk) -> list[str]:
        """The zh names of the subsections when every subsection heading names a bilingual term."""
        pre = chunk.section + " > "
        kids = [c for c in self.chunks
                if c.section.startswith(pre) and c.section.count(" > ") == chunk.section.count(" > ") + 1]
        terms = [self.term[c.chunk_id] for c in kids]
        if len(kids) < 2 or not all(t and t[1] for t in terms):
            return []
        return list(dict.fromkeys(t[0] for t in terms))

    def section_text(self, chunk: Chunk) -> str:
        return "\n".join(c.text for c in self.chunks if c.section == chunk.section)

    def english(self, name: str) -> str | None:
        """The English name of a heading, label or term: the English half of a bilingual heading,
        a card term's or the glossary's English, a Latin name itself; None when none is known."""
        ht = S.heading_term(name)
        if ht and ht[1]:
            return ht[1]
        if not _CJK.search(name):
            return name.strip()
        t = term_for(S.strip_enum(name), [t for t in self.card_terms if t.en])
        return t.en if t and t.en else None

    def en(self, name: str, keep_zh: bool = True) -> str:
        """How English wording names a heading, option label or term: its English name, after the
        Chinese as printed (quoted, so the reader finds it in the card) unless `keep_zh` is off or
        the card already prints the English; the quoted Chinese when no English is known."""
        en = self.english(name)
        if en is None:
            return _q(name)
        if not keep_zh or en in name:
            return en
        if name in _ENGLISH.get():  # quoted in the card's own English rendering: no gloss needed
            return _q(name)
        return f"{_q(name)} ({en})"


# --- templates ------------------------------------------------------------------------------


def _examples(card: _Card, c: Chunk) -> list[Question]:
    st, term = card.st[c.chunk_id], card.term[c.chunk_id]
    if not st.examples or not term:
        return []
    name = f"{term[0]} {term[1]}" if term[1] else term[0]
    accept = forms_of(term[0]) + (forms_of(term[1]) if term[1] else [])
    out = []
    others = [(o, card.term[o.chunk_id], card.st[o.chunk_id].examples) for o in card.siblings(c)]
    others = [(o, t, ex) for o, t, ex in others if t]
    name_en = card.en(name)
    for ex in st.examples:
        explanation = (f"卡片中「{name}」的示例是：“{ex}”。", f"The card's example for {name_en} is {_q(ex)}.")
        if others:
            distract = [f"{t[0]} {t[1]}" if t[1] else t[0] for _, t, _ in others]
            out.append(_mk("choice", "example-choice", c,
                           (f"「{ex}」是下面哪一项的示例？", f"Which of these is {_q(ex)} an example of?"), name, ex,
                           choices=_shuffled(name, distract, ex), accept=accept, key_points=[term[0]],
                           explanation=explanation))
        out.append(_mk("term", "example-term", c,
                       (f"填写关键术语：示例「{ex}」说的是哪一种思路？（中文或英文名称）",
                        f"Name the key term: which approach is the example {_q(ex)} about? (Chinese or English name)"),
                       name, ex, accept=accept, key_points=[term[0]], explanation=explanation))
        swap = next(((o, t, oex[0]) for o, t, oex in _rotate(others) if oex), None)
        if swap:  # attribution probe: a sibling's example put under this heading is false per the card
            out.append(_mk("truefalse", "example-swap", c,
                           (f"判断对错：卡片中「{name}」的示例是“{swap[2]}”。",
                            f"True or false: the card's example for {name_en} is {_q(swap[2])}."),
                           FALSE, ex, choices=[TRUE, FALSE],
                           explanation=(f"错。{explanation[0]}“{swap[2]}”是「{swap[1][0]}」的示例。",
                                        f"False. {explanation[1]} {_q(swap[2])} is the example for "
                                        f"{card.en(swap[1][0], keep_zh=False)}.")))
    return out


def _rotate(items: list) -> list:
    """Siblings after `key` first, so each section swaps with the next one (deterministic)."""
    return items[len(items) // 2:] + items[: len(items) // 2] if items else items


def _scenarios(card: _Card, c: Chunk) -> list[Question]:
    out = []
    pool = [s.arrow_line for o in card.chunks if o.chunk_id != c.chunk_id for s in card.st[o.chunk_id].scenarios]
    tags_en = _scenario_tags_english(card)
    for sc in card.st[c.chunk_id].scenarios:
        answer = " / ".join(sc.tags)
        arrow_en = _ENGLISH.get().get(f"→ {sc.arrow_line}")
        expl = (f"卡片把这个场景对应到：{sc.arrow_line}",
                "The card links this scenario to: " + (f"“{arrow_en.lstrip('→ ')}”" if arrow_en else _q(sc.arrow_line)))
        out.append(_mk("scenario", "scenario-tags", c,
                       (f"{sc.speaker}说：“{sc.speech}” —— 应该联想到哪些因素？（可选一项，或用自己的话列出）",
                        f"{card.en(sc.speaker, keep_zh=False)} says: {_q(sc.speech)} — which factors should this "
                        "bring to mind? (pick an option, or list them in your own words)"),
                       answer, sc.arrow_line,
                       choices=(opts := _shuffled(answer, [p.split("，")[0] for p in pool], sc.speech) if pool else []),
                       choices_en=[tags_en.get(o, "") for o in opts],
                       key_points_en=(tags_en[answer].split(" / ") if answer in tags_en else []),
                       accept=[sc.arrow_line], key_points=sc.tags, explanation=expl))
    return out


def _scenario_tags_english(card: _Card) -> dict[str, str]:
    """Every scenario's tags as an option shows them ('模型误差 / 本体 / 控制 / Sim2Real') -> the same
    tags in the card's English of the arrow line, when it lists as many."""
    out: dict[str, str] = {}
    english = _ENGLISH.get()
    for c in card.chunks:
        for sc in card.st[c.chunk_id].scenarios:
            en = english.get(f"→ {sc.arrow_line}") or english.get(sc.arrow_line)
            if not en:
                continue
            tags_text = re.split(r"[:：]\s", en.lstrip("→ ").strip(), maxsplit=1)[0]
            tags = [t.strip() for t in re.split(r"\s*/\s*", tags_text) if t.strip()]
            if len(tags) == len(sc.tags):
                out[" / ".join(sc.tags)] = " / ".join(tags)
                out.setdefault(sc.arrow_line.split("，")[0], " / ".join(tags))
    return out


def _bold_sides(card: _Card, c: Chunk) -> list[Question]:
    lists = [lst for lst in card.st[c.chunk_id].lists if lst.label]
    labels = list(dict.fromkeys(lst.label for lst in lists))
    if len(labels) < 2:
        return []
    h = S.heading(c)
    out = []
    for lst in lists:
        for item in lst.items:
            if sum(normalize(item) == normalize(i) for other in lists for i in other.items) > 1:
                continue  # the same point under two labels cannot be asked as 'which side'
            out.append(_mk("choice", "bold-side", c,
                           (f"在「{h}」的对比中，“{item}”列在哪一方之下？",
                            f"In the comparison under {card.en(h)}, which side lists {_q(item)}?"),
                           lst.label, item, choices=labels, accept=forms_of(lst.label), key_points=[lst.label],
                           explanation=(f"卡片把“{item}”列在「{lst.label}」之下。",
                                        f"The card lists {_q(item)} under {card.en(lst.label)}.")))
    return out


def _labelled(card: _Card, c: Chunk) -> list[Question]:
    out = []
    for lst in card.st[c.chunk_id].lists:
        items = S.labelled_items(lst.items)
        if len(items) < 2:
            continue
        for label, desc, item in items:
            out.append(_mk("term", "label-term", c,
                           (f"填写关键词：在「{S.heading(c)}」中，“{desc}”对应的是哪个词？",
                            f"Name the keyword: under {card.en(S.heading(c))}, which word goes with {_q(desc)}?"),
                           label, item, accept=forms_of(label), key_points=[label],
                           explanation=(f"卡片原文：{item}", f"The card says: {_q(item)}")))
    return out


def _is_prompt_list(lst: S.BulletList) -> bool:
    return all(i.rstrip().endswith(("？", "?")) for i in lst.items)


_CARD_LINK = re.compile(r"^\d{2}-[0-9A-Za-z-]+\s")


def _is_link_list(lst: S.BulletList) -> bool:
    """'- 04-04 什么是机器人本体？已完成 →': a list of links to other cards, not points of this one."""
    return sum(bool(_CARD_LINK.match(i)) for i in lst.items) * 2 > len(lst.items)


def _plain_lists(card: _Card, c: Chunk) -> list[Question]:
    out = []
    own = normalize(card.section_text(c))
    for n, lst in enumerate(card.st[c.chunk_id].lists):
        if S.labelled_items(lst.items) or _is_prompt_list(lst) or len(lst.items) < 2:
            continue
        items = [S.strip_enum(i).rstrip(" →").strip() for i in lst.items]
        where = f"「{S.heading(c)}」" + (f"中「{lst.label}」" if lst.label else "")
        where_en = (f"{card.en(lst.label)} in " if lst.label else "") + card.en(S.heading(c))
        listed = (f"{where}列出：" + "；".join(items) + "。", f"{where_en} lists: {_q_list(items)}.")
        # 'which one is listed': distractors are items listed in *other* sections, never invented,
        # and never a phrase that this section's text also contains
        pool = []
        for o in sorted(card.chunks, key=lambda o: (S.parent(o) != S.parent(c), o.chunk_id)):
            if o.section == c.section:
                continue
            for ol in card.st[o.chunk_id].lists:
                if S.labelled_items(ol.items) or _is_prompt_list(ol) or _is_link_list(ol):
                    continue
                for i in ol.items:
                    i = S.strip_enum(i).rstrip(" →").strip()
                    ni = normalize(i)
                    if ni and ni not in own and not any(ni in normalize(x) or normalize(x) in ni for x in pool):
                        pool.append(i)
        if len(pool) >= 2:
            pick = random.Random(c.chunk_id + str(n)).randrange(len(items))
            correct, raw = items[pick], lst.items[pick]
            distract = random.Random(correct).sample(pool[: max(6, len(pool) // 3)], k=min(3, len(pool)))
            out.append(_mk("choice", "list-choice", c,
                           (f"下面哪一项列在{where}之下？", f"Which of these is listed under {where_en}?"), correct, raw,
                           choices=_shuffled(correct, distract, correct + c.chunk_id), key_points=[correct],
                           explanation=listed))
        if len(items) >= 3:
            out.append(_mk("recall", "list-recall", c,
                           (f"{where}列出了哪些要点？尽量说全（中文或英文）。",
                            f"Which points are listed under {where_en}? Name as many as you can (Chinese or English)."),
                           "；".join(items), lst.items[0], key_points=items, explanation=listed))
    return out


def _heading_recall(card: _Card, c: Chunk) -> list[Question]:
    h = S.heading(c)
    if not h.rstrip().endswith(("？", "?")):
        return []
    st = card.st[c.chunk_id]
    children = card.children_terms(c)
    sents = st.sentences()
    if children:  # a parent whose subsections each name a bilingual term ('01 · 域随机化 Domain …')
        kps = children + ([sents[-1]] if sents else [])
    else:
        kps = []
        for sent in sents:  # 'X 不是 A，而是 B' contributes its claim 'X 是 B', never the negated part
            m = _NOT_BUT.match(sent)
            kps += [m.group("y").strip()] if m else _clauses(sent)
            english = _ENGLISH.get()
            if m and isinstance(english, CardEnglish) and (me := _NOT_BUT_EN.match(english.get(sent) or "")):
                english.learn(m.group("y").strip(), me.group("y").strip())  # the claim's English: 'but B' -> B
        for lst in st.lists:
            if not _is_prompt_list(lst):
                kps += [S.strip_enum(i) for i in lst.items]
        kps += st.examples
    kps = list(dict.fromkeys(kps))
    # a clause that merely strings together other key points ('重量、关节结构、电机性能…的差异'
    # beside the list items) is dropped: each point is asked for once
    kps = [k for k in kps if not any(o != k and normalize(o) in normalize(k) for o in kps)]
    if not kps:
        return []
    quote = st.paragraphs[-1] if st.paragraphs else c.text.strip().splitlines()[0]
    return [_mk("recall", "heading-recall", c, (f"请用自己的话回答：{h}", f"Answer in your own words: {card.en(h)}"),
                "；".join(kps), quote, key_points=kps,
                explanation=(f"要点见「{h}」：" + "；".join(kps) + "。",
                             f"The key points under {card.en(h)}: {_q_list(kps, card)}."))]


_NOT_BUT = re.compile(r"^(?P<subj>[^，；。]*?\S)\s*不是(?P<x>[^，；。]+?)，\s*而是(?P<y>[^；。]+)[。！]?$")
_NEQ = re.compile(r"([\u3400-\u9fffA-Za-z0-9]+)\s*≠\s*([\u3400-\u9fffA-Za-z0-9]+)")
_CONJ = re.compile(r"^(?:但是|但|而且|而|可是|不过|所以|因此)")


def _probes(card: _Card, c: Chunk) -> list[Question]:
    out = []
    h = S.heading(c)
    st = card.st[c.chunk_id]

    def says(verdict: str, sent: str) -> Wording:
        return f"{verdict}。卡片原文：{sent}", f"{TRUTH_EN[verdict]}. The card says: {_q(sent)}"

    for sent in st.sentences():
        if m := _NOT_BUT.match(sent):
            subj = m.group("subj")
            false = f"{subj}是{m.group('x').strip()}。"
            true = f"{subj}是{m.group('y').strip()}。"
            # the English statements come from the card's English of the same sentence ('X is not A,
            # but B'), so English wording never quotes a Chinese statement built here
            en = _not_but_english(_ENGLISH.get().get(sent) or "")
            for tpl, stmt, stmt_en, verdict in (("not-but-false", false, en and en[0], FALSE),
                                                ("not-but-true", true, en and en[1], TRUE)):
                out.append(_mk("truefalse", tpl, c,
                               (f"判断对错（「{h}」）：{stmt}",
                                f"True or false (under {card.en(h)}): " + (f"“{_inner(stmt_en)}”" if stmt_en else _q(stmt))),
                               verdict, sent, choices=[TRUE, FALSE], explanation=says(verdict, sent)))
        for m in _NEQ.finditer(sent):
            a, b = _CONJ.sub("", m.group(1)), m.group(2)
            out.append(_mk("truefalse", "neq-false", c,
                           (f"判断对错：{a}就是 {b}。",
                            f"True or false: {card.en(a, keep_zh=False)} is the same thing as "
                            f"{card.en(b, keep_zh=False)}."),
                           FALSE, sent, choices=[TRUE, FALSE], explanation=says(FALSE, sent)))
    # a yes/no heading answered directly ('Sim2Real 只是一个软件问题吗？' / '不是。')
    if re.search(r"吗\s*[？?]$", h) and st.paragraphs:
        first = st.paragraphs[0]
        short = len(normalize(first)) <= 4  # a direct answer ('不是。', '是的。'), not '不仅……'
        verdict = None
        if short and re.match(r"^(不是|不对|不一定|不会|不能|否|没有)", first):
            verdict = FALSE
        elif short and re.match(r"^(是|对|会|能|可以)", first):
            verdict = TRUE
        if verdict:
            stmt = re.sub(r"吗\s*[？?]$", "", h).strip() + "。"
            more = st.paragraphs[1] if len(st.paragraphs) > 1 else ""
            # English: the card's own English heading, asked as 'does the card answer yes?' (the same
            # truth value as the Chinese statement), rather than a Chinese statement quoted
            stmt_en = (f"True or false: to the question {_q(h)}, the card answers “yes”." if h in _ENGLISH.get()
                       else f"True or false: {_q(stmt)}")
            out.append(_mk("truefalse", "yes-no-heading", c, (f"判断对错：{stmt}", stmt_en),
                           verdict, first, choices=[TRUE, FALSE],
                           explanation=(f"{verdict}。卡片回答：{first}{more}",
                                        f"{TRUTH_EN[verdict]}. The card answers: {_q(first)}"
                                        + (f" {_q(more)}" if more else ""))))
    return out


_NOT_BUT_EN = re.compile(r"^(?P<subj>.+?\S)\s+not\s+(?P<x>.+?),\s*but\s+(?P<y>.+?)[.!;]?$")


def _inner(text: str) -> str:
    """Quotes inside a quoted statement become single quotes (“X is ‘A’.”)."""
    return text.replace("“", "‘").replace("”", "’")


def _not_but_english(sentence: str) -> tuple[str, str] | None:
    """'X is not A, but B.' -> ('X is A.', 'X is B.'); a word B drops that A shares ('is not here to
    learn…, but to help…') is carried over ('X is here to help…'). None for any other shape."""
    m = _NOT_BUT_EN.match(sentence.strip())
    if not m:
        return None
    subj, x, y = m.group("subj"), m.group("x").strip(), m.group("y").strip()
    xw, first = x.split(), y.split()[0] if y.split() else ""
    if first in xw[1:]:
        y = " ".join(xw[: xw.index(first)]) + " " + y
    return f"{subj} {x}.", f"{subj} {y}."


# Two names of one term, both blanked: '＿＿＿（＿＿＿）', '＿＿＿——＿＿＿', '＿＿＿ / ＿＿＿'
_TWO_BLANKS = re.compile(rf"{BLANK}\s*(?:[（(]\s*{BLANK}\s*[)）]|(?:——|—|/|、)\s*{BLANK})")


def _cloze(card: _Card, c: Chunk) -> list[Question]:
    """Fill in the blank: the section's last sentence naming a card or core glossary term."""
    terms = card.card_terms + [t for t in glossary_terms() if t.core]
    for sent in reversed(card.st[c.chunk_id].sentences()):
        found = []
        for t in terms:
            forms = [f for f in t.forms if normalize(f) and _contains(sent, f)]
            if forms:  # the card's own title term ('Sim2Real') only when nothing else is named
                in_title = any(_contains(c.title, f) for f in forms)
                found.append(((not in_title, max(len(f) for f in forms)), t, forms))
        if not found:
            continue
        _, t, forms = max(found, key=lambda x: x[0])
        blanked = sent
        for f in sorted(set(forms) | set(forms_of(t.zh)) | set(t.forms), key=len, reverse=True):
            if _contains(blanked, f):
                blanked = re.sub(re.escape(f), BLANK, blanked, flags=re.I)
        if len(normalize(blanked)) < 8 or BLANK not in blanked:
            continue
        # '域随机化（Domain Randomization）' blanks both names: show one blank, since one answer is
        # asked for (#15); the id stays keyed on the earlier wording, so stored progress still counts.
        id_wording = f"填空：{blanked}"
        blanked = _TWO_BLANKS.sub(BLANK, blanked)
        shown = next((n for n in (t.zh, t.en) if n and n in sent), None)
        if shown is None:
            f = max(forms, key=len)
            shown = sent[sent.lower().index(f.lower()):][: len(f)]
        # English wording blanks the term in the card's aligned English sentence, so the blank is a
        # word the English reader sees there ('deploy' for 部署); without one it quotes the Chinese
        extra = tuple(forms_of(t.zh))
        sent_en = _ENGLISH.get().get(sent)
        said = term_in_english(t, sent_en, extra, prefer=shown) if sent_en else None
        wording_en = f"Fill in the blank: {_q(blanked)}"
        if said:
            wording_en = f"Fill in the blank: “{_TWO_BLANKS.sub(BLANK, blank_term(t, sent_en, BLANK, extra))}”"
        return [_mk("term", "cloze", c, (f"填空：{blanked}", wording_en), shown, sent,
                    id_wording=id_wording, answer_en=said or "",
                    accept=list(dict.fromkeys([*t.forms, *([said] if said else [])])), key_points=[shown],
                    explanation=(f"卡片原文：{sent}", f"The card says: {_q(sent)}"))]
    return []


def _contains(text: str, form: str) -> bool:
    return form.lower() in text.lower()


def _source(card: _Card, c: Chunk) -> list[Question]:
    """Fallback so that every section yields a question: 'which section says this?'."""
    sents = card.st[c.chunk_id].sentences() or [ln.strip() for ln in c.text.splitlines() if ln.strip()]
    quote = max(sents, key=len)
    quote = S.parse(quote).paragraphs[0] if S.parse(quote).paragraphs else quote
    quote = quote if quote in c.text else c.text.strip().splitlines()[0]
    headings = list(dict.fromkeys(S.heading(o) for o in card.chunks if o.section != c.section))
    correct = S.heading(c)
    return [_mk("choice", "source-section", c, (f"“{quote}”出自哪一节？", f"Which section says {_q(quote)}?"),
                correct, quote,
                choices=_shuffled(correct, random.Random(c.chunk_id).sample(headings, k=min(3, len(headings))),
                                  c.chunk_id), key_points=[correct],
                explanation=(f"出自「{c.section}」。", f"From the section {_q(c.section)}."))]


def _choices_en(card: _Card, q: Question) -> list[str]:
    """Each option's English: what the template gave, else the card's English of that text, else
    the English name of a heading or term ('系统辨识 System Identification' -> 'System Identification');
    '' when there is none (the option is shown as it is)."""
    given = list(q.choices_en) + [""] * (len(q.choices) - len(q.choices_en))
    english = _ENGLISH.get()
    return [g or english.get(x) or (card.english(x) if _CJK.search(x) else "") or "" for g, x in zip(given, q.choices)]


TEMPLATES = (_examples, _scenarios, _bold_sides, _labelled, _plain_lists, _heading_recall, _probes, _cloze)


def generate_bank(chunks: list[Chunk]) -> list[Question]:
    """Every question the templates produce, in corpus order; each chunk yields at least one."""
    card = _Card(list(chunks))
    bank: list[Question] = []
    seen: set[str] = set()
    english = CardEnglish(card.chunks)
    token = _ENGLISH.set(english)
    try:
        for c in card.chunks:
            qs = [q for tpl in TEMPLATES for q in tpl(card, c)]
            if not qs:
                qs = _source(card, c)
            for q in qs:
                if q.id not in seen:
                    seen.add(q.id)
                    if q.choices and q.kind != "truefalse":
                        q = q.model_copy(update={"choices_en": _choices_en(card, q)})
                    if q.kind == "term" and not q.answer_en and _CJK.search(q.answer):
                        # a term asked for is shown to English readers by its English name
                        if en := english.get(q.answer) or card.english(q.answer):
                            q = q.model_copy(update={"answer_en": en, "accept": list(dict.fromkeys([*q.accept, en]))})
                    if english and q.key_points and not q.key_points_en:
                        q = q.model_copy(update={"key_points_en": [
                            k if not _CJK.search(k) else english.of(k) or card.english(k) or english.part(k) or ""
                            for k in q.key_points]})
                    if english:
                        q = q.model_copy(update={"quote_en": english.quote(q.chunk_id, q.quote) or "",
                                                 "section_en": english.section(q.section) or ""})
                    bank.append(q)
    finally:
        _ENGLISH.reset(token)
    return bank
