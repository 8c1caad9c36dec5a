"""One table of interface labels (s2r_tutor/i18n.py) for the chat, the /embed widget and the CLI, and
English refusal suggestions that an English reader can read and ask (issue 17)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from s2r_tutor.answer.refusal import REFUSAL, TRY_INSTEAD
from s2r_tutor.answer.render import render_text
from s2r_tutor.i18n import UI, ui
from s2r_tutor.models import Answer, Citation
from s2r_tutor.web.embed import STATIC, install_embed
from s2r_tutor.web.render import sources_markdown, sources_title

_CJK = re.compile(r"[\u3400-\u9fff]")
EMBED_JS = STATIC / "embed.js"


def test_both_languages_name_the_same_labels_and_english_has_no_chinese():
    assert set(UI["zh"]) == set(UI["en"])
    for key, value in UI["en"].items():
        assert not _CJK.search(json.dumps(value, ensure_ascii=False)), key


def test_the_widget_page_carries_the_one_table(settings):
    app = FastAPI()
    install_embed(app, settings)
    page = TestClient(app).get("/embed").text
    block = re.search(r'<script type="application/json" id="s2r-labels">(.*?)</script>', page, re.S)
    assert block and json.loads(block.group(1)) == UI
    assert page.index('id="s2r-labels"') < page.index("embed/static/embed.js")  # read by the script


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_widget_script_fallback_equals_the_table(tmp_path: Path):
    """embed.js keeps its own table for a page without the block: it must say the same."""
    src = EMBED_JS.read_text(encoding="utf-8")
    literal = re.search(r"var TEXT = (\{.*?\n  \});", src, re.S).group(1)
    probe = tmp_path / "probe.js"
    probe.write_text(f"process.stdout.write(JSON.stringify({literal}));", encoding="utf-8")
    out = subprocess.run(["node", str(probe)], capture_output=True, text=True, timeout=30, check=True).stdout
    assert json.loads(out) == UI


def _citation() -> Citation:
    return Citation(marker=1, chunk_id="04-08#summary", section="什么是 Sim2Real？ > 一句话总结", source="x.md",
                    quote="仿真", quote_en="simulation", text="仿真")


def test_the_chat_and_the_cli_use_the_same_labels():
    c = _citation()
    assert sources_title([c], "en") == f"{ui('en', 'sources')} (1)"
    assert sources_title([c], "zh") == f"{ui('zh', 'sources')} (1)"
    assert f"({ui('en', 'original')}仿真)" in sources_markdown([c], "en")
    text = render_text(Answer(question="q", answer="a [1]", citations=[c], language="en", intent="definition",
                              backend="template"))
    assert f"**{ui('en', 'sources')}**" in text and f"{ui('en', 'original')}“仿真”" in text


def test_an_english_refusal_suggests_english_questions_the_tutor_answers(tutor):
    refused = tutor.ask("What's a good recipe for dumplings?")
    assert refused.refused and refused.language == "en"
    assert refused.answer.startswith(REFUSAL["en"][:40]) and not _CJK.search(refused.answer)
    assert refused.followups == TRY_INSTEAD["en"]
    for question in refused.followups:
        assert not _CJK.search(question)
        answer = tutor.ask(question)
        assert not answer.refused and answer.language == "en", question
    # the widget's English examples are questions the tutor answers too
    for question in UI["en"]["examples"]:
        assert not tutor.ask(question).refused, question
