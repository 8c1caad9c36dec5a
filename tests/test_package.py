"""Where data is read and state is written: a checkout uses the repo's folders, an installed package
its shipped data plus a data folder outside site-packages; `s2r-tutor info` says which. The wheel
itself is built, installed and run by scripts/wheel-check (its own tier in scripts/test)."""

from __future__ import annotations

import ast
import json
import os
import tomllib
from pathlib import Path

import pytest

from s2r_tutor import paths
from s2r_tutor.settings import PROJECT_ROOT, Settings



@pytest.fixture()
def installed(monkeypatch, tmp_path):
    """Pretend the package is installed: no checkout above it, a user data folder in tmp."""
    monkeypatch.delenv("S2R_HOME", raising=False)
    monkeypatch.setattr(paths, "_SOURCE_ROOT", tmp_path / "lib" / "python3.11")
    user = tmp_path / "user-data"
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_data_dir", lambda *a, **k: str(user))
    return user


def test_checkout_uses_the_repo_folders(monkeypatch):
    monkeypatch.delenv("S2R_HOME", raising=False)
    s = Settings()
    assert paths.checkout_root() == PROJECT_ROOT
    assert (s.home, s.corpus_dir, s.prompts_dir) == (PROJECT_ROOT, PROJECT_ROOT / "corpus", PROJECT_ROOT / "prompts")
    assert (s.index_dir, s.study_db.parent, s.feedback_file.parent) == (
        PROJECT_ROOT / "index", PROJECT_ROOT / "var", PROJECT_ROOT / "var")


def test_s2r_home_holds_the_writable_state(monkeypatch, tmp_path):
    monkeypatch.setenv("S2R_HOME", str(tmp_path))
    s = Settings()
    assert s.home == tmp_path and s.index_dir == tmp_path / "index"
    assert s.study_db == tmp_path / "var" / "study.sqlite3" and s.feedback_file == tmp_path / "var" / "feedback.jsonl"
    assert s.corpus_dir == PROJECT_ROOT / "corpus"  # shipped data does not move with the data folder
    assert paths.data_home() == (tmp_path, "S2R_HOME")


def test_installed_reads_package_data_and_writes_to_the_user_data_folder(installed):
    s = Settings()
    assert paths.checkout_root() is None
    assert s.corpus_dir == paths.package_data() / "corpus" and s.prompts_dir == paths.package_data() / "prompts"
    assert s.home == installed and s.index_dir == installed / "index" and s.study_db.parent == installed / "var"
    site = Path(paths.__file__).resolve().parent
    for writable in (s.index_dir, s.study_db, s.feedback_file):
        assert not writable.resolve().is_relative_to(site)


def test_package_data_is_the_repo_data():
    """data/corpus and data/prompts are links to the repo's folders: one copy, not two that drift."""
    data = paths.package_data()
    for name in ("corpus/04-08-sim2real.md", "corpus/04-08-sim2real.questions.jsonl", "prompts/llm.md"):
        assert (data / name).read_bytes() == (PROJECT_ROOT / name).read_bytes()


def test_package_data_globs_ship_the_default_card_and_every_prompt():
    """What pyproject's package-data globs select (what the wheel holds: scripts/wheel-check installs it)."""
    globs = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-data"]
    package = Path(paths.__file__).resolve().parent
    shipped = {p.relative_to(package).as_posix() for g in globs["s2r_tutor"] for p in package.glob(g)}
    assert {"data/corpus/04-08-sim2real.md", "data/corpus/04-08-sim2real.questions.jsonl"} <= shipped
    assert {f"data/prompts/{p.name}" for p in (PROJECT_ROOT / "prompts").glob("*.md")} <= shipped
    assert {f"data/corpus/{p.name}" for p in (PROJECT_ROOT / "corpus").glob("*.en.md")} <= shipped


def test_info_names_the_folders_in_use(cli, tmp_path):
    code, out, err = cli("--index-dir", str(tmp_path / "ix"), "info", "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["checkout"] == str(PROJECT_ROOT) and info["home_from"] == "checkout"
    assert info["folders"]["index_dir"] == str(tmp_path / "ix")
    assert info["folders"]["corpus_dir"] == str(PROJECT_ROOT / "corpus")
    code, out, _ = cli("info")
    assert code == 0 and "data folder" in out and str(PROJECT_ROOT / "prompts") in out


def test_info_when_installed(cli, installed):
    code, out, _ = cli("info", "--json")
    info = json.loads(out)
    assert code == 0 and info["checkout"] is None and info["home_from"] == "platformdirs"
    assert info["folders"]["home"] == str(installed)


def test_serve_honours_the_global_flags(cli, tmp_path):
    """`--corpus /nonexistent serve` used to serve the default card; now it fails in one line."""
    code, out, err = cli("--corpus", str(tmp_path / "nonexistent"), "serve", "--port", "0")
    assert code == 1 and out == ""
    assert err.strip() == f"s2r-tutor: corpus folder not found: {tmp_path / 'nonexistent'}"


def test_search_side_imports_load_no_answerer_or_llm_client():
    """`from s2r_tutor import Tutor` and the search prior (routing -> answer.intents) load neither the
    answerer, its templates, the LLM client nor httpx: they come with the first `ask`."""
    import subprocess
    import sys

    code = ("import sys\nfrom s2r_tutor import Tutor, tutor\nfrom s2r_tutor.answer import routing\n"
            "routing.section_prior('什么是 Sim2Real？', 0.15)\n"
            "print(sorted(m for m in sys.modules if m.startswith(('httpx', 's2r_tutor.answer'))))")
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT / "src")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    loaded = set(ast.literal_eval(r.stdout.strip()))
    heavy = {"httpx", "s2r_tutor.answer.answerer", "s2r_tutor.answer.templates", "s2r_tutor.answer.llm",
             "s2r_tutor.answer.llm_answer", "s2r_tutor.answer.render"}
    assert not loaded & heavy, sorted(loaded & heavy)
    assert len(loaded) <= 5, sorted(loaded)  # the package, the prior (routing), the phrase rules and what they need
