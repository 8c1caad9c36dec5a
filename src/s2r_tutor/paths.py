"""Where the tutor reads shipped data and writes its state.

Two kinds of folder, kept apart so an installed package never writes into site-packages:

* Shipped data (the default card, its reader questions, the prompts): in a repo checkout the repo's
  own `corpus/` and `prompts/`, so an edit there is seen at once; once installed, the copies shipped
  as package data (`s2r_tutor/data/`, read through importlib.resources).
* The data folder, for writable state (`index/`, `var/`): `S2R_HOME` when set, else the repo folder
  in a checkout (so `index/` and `var/` stay where the README says), else the platform's user data
  folder (platformdirs), e.g. ~/.local/share/s2r-tutor.

Nothing here runs at import: each function looks when it is called, so a test that sets `S2R_HOME`
sees it.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

APP_NAME = "s2r-tutor"
HOME_ENV = "S2R_HOME"

# src/s2r_tutor/paths.py -> the repo root in a checkout; in an installed package this is
# lib/pythonX.Y (or similar), which `checkout_root` tells apart by the files a checkout has.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def checkout_root() -> Path | None:
    """The repo folder when running from a checkout (editable install or PYTHONPATH=src), else None."""
    root = _SOURCE_ROOT
    if (root / "pyproject.toml").is_file() and (root / "src" / "s2r_tutor").is_dir() and (root / "corpus").is_dir():
        return root
    return None


def package_data() -> Path:
    """`s2r_tutor/data` as a real folder. The package is always installed as files (a wheel, an
    editable install or a checkout), never imported from a zip, so the Traversable is a Path."""
    folder = resources.files("s2r_tutor").joinpath("data")
    if not isinstance(folder, Path):  # pragma: no cover - zip imports are not supported
        raise RuntimeError(f"s2r_tutor's package data is not on the file system: {folder}")
    return folder


def shipped_corpus_dir() -> Path:
    """The default card's folder: the repo's `corpus/` in a checkout, else the packaged copy."""
    root = checkout_root()
    return root / "corpus" if root else package_data() / "corpus"


def shipped_prompts_dir() -> Path:
    """The answer templates and LLM prompts: the repo's `prompts/` in a checkout, else the packaged copy."""
    root = checkout_root()
    return root / "prompts" if root else package_data() / "prompts"


def data_home() -> tuple[Path, str]:
    """(folder for writable state, why that one): `S2R_HOME`, else the checkout, else the user data folder."""
    env = os.environ.get(HOME_ENV, "").strip()
    if env:
        return Path(env).expanduser(), HOME_ENV
    root = checkout_root()
    if root:
        return root, "checkout"
    import platformdirs  # only installed users get here

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)), "platformdirs"


def default_eval_cases() -> Path:
    """The eval set ships with the tests, not the wheel: the checkout's, else `tests/eval/cases.jsonl`
    relative to the working folder (a clone of the evaluation data)."""
    root = checkout_root()
    return (root / "tests" / "eval" / "cases.jsonl") if root else Path("tests/eval/cases.jsonl")
