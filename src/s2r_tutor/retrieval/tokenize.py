"""The tokenizer BM25 is given: jieba for Chinese with the domain user dictionary, lowercased
ASCII words, stop-words dropped. Built lazily: jieba's dictionary costs ~0.7 s on first use."""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Callable

Tokenizer = Callable[[str], list[str]]

_WORD = re.compile(r"[\w\u3400-\u9fff]")
_STOP = frozenset(
    "的 了 是 在 和 与 或 就 都 也 还 又 很 吗 呢 吧 啊 呀 么 什么 怎么 怎样 如何 为什么 哪些 哪个 一个 这个 那个 "
    "这些 那些 我 你 他 她 它 我们 你们 他们 它们 会 能 可以 可能 要 让 把 被 给 对 从 到 之间 以及 而 "
    "请 一下 说说 讲讲 介绍 解释 有 没有 不 吗 啥 呢 个 些 时候 "
    "a an the is are was were be been of to in on for and or with what why how which who does do "
    "did can could should would it its this that these those i you we they me my your our please "
    "tell explain about vs versus between there their than then so as at by from".split()
)


def user_dict_terms(extra: Path | None = None) -> list[str]:
    lines = resources.files("s2r_tutor").joinpath("data/user_dict.txt").read_text("utf-8").splitlines()
    if extra is not None and extra.is_file():
        lines += extra.read_text("utf-8").splitlines()
    return [ln for ln in lines if ln.strip()]


# Bump when tokenize() changes how it cuts text: BM25's stored term statistics follow the tokenizer.
TOKENIZER_VERSION = 1


def tokenizer_fingerprint(extra: Path | None = None) -> str:
    """Changes whenever the words BM25 stores could change: the dictionaries, stop-words or code."""
    import hashlib

    h = hashlib.sha256(f"{TOKENIZER_VERSION}\0".encode())
    for part in (*user_dict_terms(extra), "\0", *sorted(_STOP)):
        h.update(part.encode() + b"\n")
    return h.hexdigest()[:16]


_lock = threading.Lock()


@lru_cache(maxsize=4)
def _jieba(extra: Path | None):
    import logging

    import jieba  # imported here: the dictionary load is the expensive part

    jieba.setLogLevel(logging.WARNING)  # its INFO lines would land in every CLI run's stderr
    tok = jieba.Tokenizer()
    with _lock:
        tok.initialize()
    for line in user_dict_terms(extra):
        # Terms with spaces ("Reality Gap") cannot be jieba words; the ASCII splitter handles them.
        parts = line.rsplit(maxsplit=2)
        weighted = len(parts) == 3 and parts[1].isdigit()  # 'word freq tag'; 'Sim to Real' is a term
        word = parts[0] if weighted else line.strip()
        if " " not in word:
            tok.add_word(word, int(parts[1]) if weighted else None)
    return tok


def make_tokenizer(extra_dict: Path | None = None) -> Tokenizer:
    seg = _jieba(extra_dict)

    def tokenize(text: str) -> list[str]:
        out = []
        # Search mode also emits the words inside compounds (仿真环境 -> 仿真, 环境, 仿真环境), so a
        # colloquial question still meets the card's longer terms.
        for tok in seg.lcut_for_search(text.lower()):
            tok = tok.strip()
            if tok and _WORD.search(tok) and tok not in _STOP:
                out.append(tok)
        return out

    return tokenize
