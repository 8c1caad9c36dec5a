"""Text the databases cannot hold, made storable the same way on every backend."""

from __future__ import annotations

import re

# Lone surrogates (any JSON client can send "\ud800") cannot be encoded as UTF-8; PostgreSQL's text
# type cannot hold NUL. Both become U+FFFD, on SQLite too, so a value reads back the same whichever
# backend stored it.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable(text: str) -> str:
    return _UNSTORABLE.sub("\ufffd", text)


def storable_json(value):
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, list):
        return [storable_json(v) for v in value]
    if isinstance(value, dict):
        return {storable(str(k)): storable_json(v) for k, v in value.items()}
    return value
