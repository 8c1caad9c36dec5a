"""Lazy re-exports for a package `__init__`: its public names live in submodules, and a name's
module is imported on first use only, so importing the package (or one light submodule of it) never
pays for the heavy ones (`s2r-tutor --help`, search without the answerer's httpx)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module


def lazy_exports(package: str, exports: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`(__getattr__, __dir__)` for `package`, whose public name N is defined in the submodule
    `exports[N]`. A name is cached in the package once loaded; an unknown one is an AttributeError."""

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
