"""The phrase rules that survived ablation (docs/answering.md, "Rule data files"), read from
`data/rules/*.json` and checked when first read: a malformed file or entry is an AnswerDataError
naming the file and the entry, never a silently missing rule.

Rules are light features now (intent votes, scope words, follow-up cues, scenario cue words); the
decision itself is the labelled neighbours' (answer/acts.py) and search's. Nothing is read at import:
each file is parsed once, on first use, and cached.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import AnswerDataError

# Python's \b treats Chinese characters as word characters, so "先RL再" has no \b around "rl".
# A \b in a rule means an ASCII word boundary: a letter/digit on one side and none on the other.
_ASCII_B = r"(?:(?<![a-z0-9])(?=[a-z0-9])|(?<=[a-z0-9])(?![a-z0-9]))"
NEVER = re.compile(r"(?!x)x")  # an empty family: matches nothing


def any_of(*alternatives: str) -> re.Pattern[str]:
    if not alternatives:
        return NEVER
    return re.compile("|".join(f"(?:{a})" for a in alternatives).replace(r"\b", _ASCII_B))


def source(name: str) -> str:
    return f"data/rules/{name}"


def read_text(name: str) -> str:
    try:
        return resources.files("s2r_tutor").joinpath(source(name)).read_text("utf-8")
    except OSError as exc:
        raise AnswerDataError(f"{source(name)}: cannot be read ({exc.__class__.__name__})") from None


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    """The parsed JSON object of data/rules/`name` (keys starting with '_' are comments)."""
    try:
        data = json.loads(read_text(name))
    except json.JSONDecodeError as exc:
        raise AnswerDataError(f"{source(name)}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise AnswerDataError(f"{source(name)}: the top level must be an object")
    return {k: v for k, v in data.items() if not k.startswith("_")}


def compile_list(name: str, entry: str, alternatives: object) -> re.Pattern[str]:
    """One family: a list of regex alternatives, compiled; a bad one names file, entry and pattern."""
    if not isinstance(alternatives, list) or not all(isinstance(a, str) and a for a in alternatives):
        raise AnswerDataError(f"{source(name)}: {entry}: must be a list of non-empty patterns")
    for a in alternatives:
        try:
            re.compile(a)
        except re.error as exc:
            raise AnswerDataError(f"{source(name)}: {entry}: bad pattern {a!r} ({exc})") from None
    return any_of(*alternatives)


def family(name: str, key: str) -> re.Pattern[str]:
    """The family `key` of data/rules/`name` (a missing key is an error, not an empty family)."""
    data = load(name)
    if key not in data:
        raise AnswerDataError(f"{source(name)}: no entry {key!r}")
    return compile_list(name, key, data[key])


def keyed(name: str, what: str, rows: object, key: str):
    """(entry, row) for each object of a list whose `key` must be a unique string; `entry` names it in
    errors ("factors[3] (floor)"), and a malformed or repeated one is an AnswerDataError naming it."""
    seen: set[str] = set()
    for i, row in enumerate(rows or []):
        entry = f"{what}[{i}]" + (f" ({row.get(key)})" if isinstance(row, dict) else "")
        if not isinstance(row, dict) or not isinstance(row.get(key), str) or row[key] in seen:
            raise AnswerDataError(f"{source(name)}: {entry}: needs a unique {key!r}")
        seen.add(row[key])
        yield entry, row


def number(name: str, key: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AnswerDataError(f"{source(name)}: {key}: must be a number, got {value!r}")
    return float(value)


def flag(name: str, key: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise AnswerDataError(f"{source(name)}: {key}: must be true or false, got {value!r}")
    return value


def lang_text(name: str, entry: str, value: object) -> dict[str, str]:
    """A {'zh': ..., 'en': ...} framing text."""
    if not isinstance(value, dict) or not all(isinstance(value.get(k), str) and value.get(k) for k in ("zh", "en")):
        raise AnswerDataError(f"{source(name)}: {entry}: needs non-empty 'zh' and 'en' texts")
    return {"zh": value["zh"], "en": value["en"]}


def jsonl_rows(text: str, where: str):
    """(line number, object) for each non-blank, non-comment line of a JSON-lines text; a line that is
    not JSON is an AnswerDataError naming `where:line`."""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError as exc:
            raise AnswerDataError(f"{where}:{n}: not valid JSON ({exc.msg})") from None
