"""Property tests for the text path: input cleaning, sentences, card parsing, chunking, the tokenizer.

Arbitrary Unicode here means CJK, emoji (with ZWJ sequences), right-to-left text and overrides,
control characters, lone surrogates, combining marks and very long input. The cases are numbered
in docs/reliability.md (R-ids in the test docstrings).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from s2r_tutor.retrieval.chunking import chunk_card, chunk_corpus
from s2r_tutor.retrieval.corpus import parse_card
from s2r_tutor.errors import CorpusError
from s2r_tutor.text import clean_input, detect_language, normalize, sentences, strip_comments
from s2r_tutor.retrieval.tokenize import make_tokenizer

# -- strategies -------------------------------------------------------------------------------

#: pieces that exercise the awkward corners of Unicode, mixed into any text
NASTY = [
    "\ud800", "\udfff", "\ud83d",            # lone surrogates (not encodable as UTF-8)
    "\x00", "\x07", "\x1b[31m", "\x7f", "\x85", "\u2028", "\u2029",   # controls, odd line breaks
    "\u202e", "\u200f", "\u2066", "مرحبا", "שלום",                  # RTL override/marks, Arabic, Hebrew
    "👩‍👩‍👧‍👦", "🇨🇳", "🤖", "\ufe0f", "\u200d",                  # emoji, flags, ZWJ, variation selector
    "e\u0301\u0301\u0301", "\u0300" * 20,                           # combining marks
    "\ufeff", "\uffff", "\U0010ffff", "\ue000",                     # BOM, noncharacters, private use
    "Ａｂｃ１２３", "ﾊﾝｶｸ", "𠀀𪚥",                                   # full-width, half-width, CJK ext B
    "Sim2Real", "域随机化", "Reality Gap", "系统辨识", "什么是", "？", "。",
    "```", "# ", "## x {#a}", "<!--", "-->", "{#", "}", "---", "- ", "\n", "\n\n", "\r\n", "\t",
]

any_char = st.characters(exclude_categories=())  # every code point, lone surrogates included
nasty_text = st.lists(st.one_of(st.sampled_from(NASTY), st.text(any_char, max_size=8)), max_size=30).map("".join)
utf8_text = nasty_text.map(lambda s: s.encode("utf-8", "replace").decode("utf-8"))  # what a file can hold

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- text helpers ----------------------------------------------------------------------------

@FAST
@given(nasty_text)
def test_clean_input_never_crashes_and_is_clean(s):
    """R01 R02 R03 R04 P1: control characters, lone surrogates, RTL overrides, emoji are cleaned, never crash."""
    out = clean_input(s)
    out.encode("utf-8")  # no lone surrogate survives
    assert out == out.strip()
    assert not re.search(r"\s\s", out)
    assert all(ch in " " or not ch.isspace() for ch in out)
    assert clean_input(out) == out  # idempotent: cleaning twice changes nothing


def test_clean_input_very_long():
    """R05: a 1 MB question is cleaned in bounded time (truncation happens in Tutor.clean_query)."""
    s = ("域随机化 Sim2Real 🤖\u202e\x00" * 60_000)[:1_000_000]
    out = clean_input(s)
    assert "\x00" not in out and len(out) <= len(s)


@FAST
@given(nasty_text)
def test_sentences_are_exact_spans(s):
    """P1: every sentence `sentences()` returns is an exact substring of its input (citations rely on it)."""
    for sent in sentences(s):
        assert sent and sent in s


@FAST
@given(nasty_text)
def test_normalize_and_language_total(s):
    """P1: total on any text."""
    assert isinstance(normalize(s), str)
    assert detect_language(s) in ("zh", "en")


# -- tokenizer -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tokenizer():
    return make_tokenizer()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(nasty_text)
def test_tokenizer_total_and_deterministic(tokenizer, s):
    """P1: the jieba path takes any text (surrogates and controls included) and gives clean tokens."""
    toks = tokenizer(s)
    assert toks == tokenizer(s)
    for t in toks:
        assert t and t == t.strip() and t == t.lower()


def test_tokenizer_very_long(tokenizer):
    """R05: 200 kB of mixed text tokenizes without error."""
    toks = tokenizer("Sim2Real 的域随机化与系统辨识。" * 10_000)
    assert "域随机化" in toks


# -- card parsing and chunking -----------------------------------------------------------------

heading = st.builds(lambda lvl, txt, anchor: f"{'#' * lvl} {txt}" + (f" {{#{anchor}}}" if anchor is not None else ""),
                    st.integers(1, 6), utf8_text.map(lambda s: s.replace("\n", " ").replace("\r", " ")),
                    st.one_of(st.none(), st.sampled_from(["a", "a-2", "b", "", "x y", "a-3"])))
para = st.one_of(utf8_text, st.text("-* 甲乙丙丁。.\n", min_size=50, max_size=900),
                 st.lists(st.text("abc 域随机化", min_size=1, max_size=80), min_size=2, max_size=30)
                 .map(lambda xs: "\n".join("- " + x for x in xs)))
card_body = st.lists(st.one_of(heading, para), min_size=1, max_size=14).map("\n\n".join)


def card_text(body: str, cid: str = "t-01") -> str:
    return f"---\nid: \"{cid}\"\ntitle: 测试卡片\n---\n{body}\n"


@settings(max_examples=150, deadline=None)
@given(card_body, st.integers(60, 800))
def test_parse_and_chunk_arbitrary_cards(body, max_chars):
    """P4: random card bodies either parse or raise CorpusError; chunks have unique ids and real text."""
    text = card_text(body)
    try:
        card = parse_card(text, "t.md")
    except CorpusError:
        return
    anchors = [s.anchor for s in card.sections]
    assert len(anchors) == len(set(anchors))
    n_lines = len(text.split("\n"))
    for s in card.sections:
        assert 1 <= s.line_start <= s.line_end <= n_lines
    chunks = chunk_card(card, max_chars)
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids)), f"duplicate chunk ids: {ids}"
    for c in chunks:
        assert c.text.strip() and c.chunk_id.startswith("t-01#")
        # every line of a chunk comes from its section, comments removed (splitting never invents text)
        section_body = strip_comments(next(s.body for s in card.sections if s.anchor == c.anchor))
        for line in c.text.split("\n"):
            assert line in section_body


def test_split_suffix_cannot_collide_with_a_real_anchor():
    """R06: a long section 'foo' split in two must not reuse the id of a section anchored 'foo-2'."""
    body = "# A {#foo}\n\n" + "甲" * 400 + "\n\n" + "乙" * 400 + "\n\n# B {#foo-2}\n\nzzz"
    chunks = chunk_card(parse_card(card_text(body), "t.md"), 600)
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == 3 and len(set(ids)) == 3, ids
    assert chunk_corpus([parse_card(card_text(body), "t.md")], 600) == chunks


def test_huge_single_paragraph_stays_whole():
    """R07: a 50 kB paragraph with no break is one chunk (never cut mid-sentence), no crash."""
    body = "# A {#a}\n\n" + "仿真到现实的迁移。" * 5_000
    chunks = chunk_card(parse_card(card_text(body), "t.md"), 600)
    assert len(chunks) == 1 and len(chunks[0].text) == 45_000


def test_user_dictionary_with_odd_lines(tmp_path):
    """R27: a user dictionary with a three-word term ('Sim to Real', which once crashed the load
    with ValueError), a bare word, a weighted word, blank and odd lines: loads; the words count."""
    extra = tmp_path / "dict.txt"
    extra.write_text("Sim to Real\n仿真平台\n策略迁移 200 n\n\n   \n1 2 3\nx y z w\n", "utf-8")
    tok = make_tokenizer(extra)
    assert "仿真平台" in tok("我们的仿真平台很好") and "策略迁移" in tok("做策略迁移")
