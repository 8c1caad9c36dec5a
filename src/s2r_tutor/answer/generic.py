"""The card-agnostic answer: the retrieved sections' own sentences, cited, under a short frame.

Used when no card-specific builder applies: the best hit is on a card the builders in compose.py do
not know (any card dropped into corpus/), or the intent is a guess (no rule fired and the top
section maps to no intent). It reads only what retrieval returned, so it needs no code per card:

- the sections come from the top hit's card, best first (at most MAX_SECTIONS);
- the MAX_SENTENCES sentences of those sections closest to the question (the embedder's cosine,
  which reads an English question against a Chinese card; shared words break near-ties), always
  including the best sentence of the best section, shown per section in card order;
- every sentence goes through Ledger.cite, so it is an exact span with its [n]; section headings
  are labels (framing), like the builders' labels.
"""

from __future__ import annotations

import re
from typing import Callable

from ..retrieval.glossary import zh_terms_for
from ..models import Chunk
from ..text import sentences
from .card import as_label, terms, unnumber
from .grounding import Ledger

MAX_SECTIONS = 3
MAX_SENTENCES = 4
TIE_BREAK = 0.005  # lexical overlap only breaks near-ties between cosines
_WORD = re.compile(r"[a-z0-9]{2,}|[\u4e00-\u9fff]")
_STOP = frozenset("的 了 是 在 和 与 或 就 都 也 还 吗 呢 吧 啊 么 什 怎 为 这 那 个 有 不 我 你 他 它 们 会 能 要 让 把 被 给 对 "
                  "the is are was of to in on for and or with what why how which who does do can it this that a an".split())


def _words(text: str) -> set[str]:
    """Latin words and single Chinese characters (bigram-free overlap is robust to jieba's cuts)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _bigrams(text: str) -> set[str]:
    zh = "".join(re.findall(r"[\u4e00-\u9fff]+", text))
    return {zh[i:i + 2] for i in range(len(zh) - 1)}


def _overlap(question: str, sentence: str) -> float:
    """Shared Chinese bigrams count double, shared words/characters once."""
    return 2 * len(_bigrams(question) & _bigrams(sentence)) + len(_words(question) & _words(sentence))


def pick_sections(ranked_chunks: list[Chunk]) -> list[Chunk]:
    """The top hit's card's sections among the ranked chunks, best first."""
    if not ranked_chunks:
        return []
    doc = ranked_chunks[0].doc_id
    return [c for c in ranked_chunks if c.doc_id == doc][:MAX_SECTIONS]


Scorer = Callable[[str, list[str]], list[float]]


def lexical_scores(question: str, sents: list[str]) -> list[float]:
    probe = question + " " + " ".join(zh_terms_for(question))  # English questions meet the Chinese card
    return [_overlap(probe, s) for s in sents]


def build_generic(ledger: Ledger, ranked_chunks: list[Chunk], question: str, lang: str,
                  scorer: Scorer | None = None, max_sentences: int = MAX_SENTENCES,
                  skip: frozenset[str] = frozenset()) -> dict[str, str]:
    """Template variables for prompts/generic.<lang>.md: `title` (framing) and `points` (cited).
    `scorer(question, sentences)` rates each sentence (the answerer passes the embedder's cosine,
    which reads an English question against a Chinese card); lexical overlap when None. `skip`: sentences
    that never stand alone here (list items that name no subject of their own)."""
    sections = pick_sections(ranked_chunks)
    # (a term of the card's short lists, "摔倒", "仿真验证", is no statement: two of them quoted as one line,
    # "摔倒 极限姿态", were no span of the card, and the check dropped the line, dev b34-009)
    listed = [terms(chunk.text) for chunk in sections]
    pool = [(i, k, s) for i, chunk in enumerate(sections)
            for k, s in enumerate(x for x in sentences(chunk.text)
                                  if x in chunk.text and len(_WORD.findall(x)) >= 2 and x not in skip
                                  and x not in listed[i] and unnumber(x) not in listed[i])]
    if not pool:
        return {"title": "", "points": ""}
    texts = [s for _, _, s in pool]
    scores = (scorer or lexical_scores)(question, texts)
    lex = lexical_scores(question, texts)
    order = sorted(range(len(pool)), key=lambda j: (-(scores[j] + TIE_BREAK * lex[j]), j))
    keep = set(order[:max_sentences])
    first = [j for j in order if pool[j][0] == 0][:1]  # the best section always speaks
    if first and first[0] not in keep:
        keep.discard(order[max_sentences - 1])
        keep.add(first[0])
    points = []
    for i, chunk in enumerate(sections):
        # card order within a section; a list item without its number ("02 本体参数存在误差" quoted alone)
        spans = [unnumber(pool[j][2]) for j in sorted(keep) if pool[j][0] == i]
        if not spans:
            continue
        for sp in spans[:-1]:
            ledger.cite(chunk, sp)
        tail = ledger.cite(chunk, spans[-1])
        body = " ".join(spans[:-1] + [tail])
        heading = as_label(chunk.section.split(" > ")[-1])
        if heading:
            ledger.frame(f"**{heading}**")
            points.append(f"- **{heading}**{'：' if lang == 'zh' else ': '}{body}")
        else:
            points.append(f"- {body}")
    return {"title": sections[0].title.strip(), "points": "\n".join(points)}


MAX_FOLLOWUPS = 3


def generic_followups(card_chunks: list[Chunk], cited: set[str], lang: str) -> list[str]:
    """Next questions for a card no builder knows: its other sections' headings, in card order after
    the last cited one (then from the top), so every suggestion names a section that answers it. A
    heading that is already a question is used as it is (it came from the card; search finds it)."""
    seen: dict[str, Chunk] = {}
    for c in card_chunks:
        seen.setdefault(c.anchor, c)  # a split section is one suggestion
    order = list(seen.values())
    last = max((i for i, c in enumerate(order) if c.anchor in cited), default=-1)
    out = []
    for c in order[last + 1:] + order[:last + 1]:
        heading = c.section.split(" > ")[-1].strip()
        if c.anchor in cited or not heading or c.section.count(" > ") == 0:  # the title section is the card itself
            continue
        if heading.endswith(("？", "?")):
            out.append(heading)
        else:
            # the card's title keeps a suggestion on its card when another card has a similar section
            title = c.title.strip()
            out.append(f"「{title}」里的「{heading}」是怎么讲的？" if lang == "zh"
                       else f'What does "{title}" say about "{heading}"?')
        if len(out) == MAX_FOLLOWUPS:
            break
    return out

