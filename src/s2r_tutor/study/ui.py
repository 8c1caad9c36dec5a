"""Gradio tabs for study mode: Quiz, Flashcards, Notes. `build_study_tabs(tutor, settings)` adds
them to the caller's current `gr.Blocks` (the chat in web/chat.py). The reader id comes from the
page's `?reader=` query parameter or an `X-Reader-Id` header, else 'default'."""

from __future__ import annotations

import re
import tempfile
import threading
from pathlib import Path

import gradio as gr  # this module is only imported by the web chat, which has gradio loaded already

from ..errors import TutorError
from ..settings import Settings
from .bank import option_letter
from .notes import export_markdown, note_starters, notes_by_section, save_note
from .progress import clean_reader
from .session import Study

DEFAULT_READER = "default"


def reader_from_request(request) -> str:
    """`?reader=` on the page URL, else the `X-Reader-Id` header, else 'default' (invalid ids too)."""
    candidates = []
    if request is not None:
        try:
            candidates.append(dict(request.query_params).get("reader"))
        except Exception:  # noqa: BLE001 - a request without params (tests, API calls)
            pass
        try:
            headers = {k.lower(): v for k, v in dict(request.headers).items()}
            candidates.append(headers.get("x-reader-id"))
        except Exception:  # noqa: BLE001
            pass
    for c in candidates:
        if c:
            try:
                return clean_reader(c)
            except TutorError:
                continue
    return DEFAULT_READER


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#<>|])")


def md_escape(text: str) -> str:
    """Card text shown as Markdown literally (a '*' or '_' in a question is not emphasis)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _question_md(q) -> str:
    return f"**{md_escape(q.question)}**\n\n<sub>{q.kind} · 出处 [{q.chunk_id}] {md_escape(q.section)}</sub>"


def _flashcards_md(study: Study) -> str:
    groups = {"memory": "### 快速记忆 · Memory points", "term": "### 术语 · Glossary (zh ↔ en)"}
    lines = []
    for kind, title in groups.items():
        cards = [f for f in study.flashcards if f.kind == kind]
        if not cards:
            continue
        lines += [title, ""]
        for f in cards:
            lines.append(f"<details><summary><b>{f.front}</b></summary>\n\n{f.back}\n\n"
                         f"<sub>[{f.chunk_id}] {f.section} —「{f.quote}」</sub>\n\n</details>\n")
    return "\n".join(lines) or "（这张卡片没有可做成闪卡的内容）"


def _notes_md(study: Study, reader: str) -> str:
    by = notes_by_section(study.store, reader)
    if not by:
        return f"_读者 `{reader}` 还没有笔记。_"
    sections = {c.chunk_id: c.section for c in study.chunks}
    lines = []
    for cid in [c.chunk_id for c in study.chunks if c.chunk_id in by]:
        lines.append(f"**{sections[cid]}** <sub>[{cid}]</sub>")
        lines += ["- " + md_escape(t).replace("\n", "<br>") for t in by[cid]]
        lines.append("")
    return "\n".join(lines)


def build_study_tabs(tutor, settings: Settings | None = None, study: Study | None = None) -> Study:
    """Create the Quiz, Flashcards and Notes tabs inside the current gr.Blocks context."""
    settings = settings or tutor.settings
    study = study or Study(tutor.chunks, tutor.embedder, settings.study_db)
    # the first graded answer would otherwise wait for the bank's key points to be embedded
    threading.Thread(target=study.grader.warm, name="s2r-study-warm", daemon=True).start()
    section_choices = [(c.section.split(" > ", 1)[-1], c.chunk_id) for c in study.chunks]
    starters = note_starters(study.chunks)

    # ---- Quiz ---------------------------------------------------------------------------------
    with gr.Tab("测验 Quiz", elem_id="study-quiz-tab") as quiz_tab:
        status = gr.Markdown(elem_id="study-quiz-status")
        question_md = gr.Markdown("点击「下一题」开始。Press *Next question* to start.", elem_id="study-quiz-question")
        choices = gr.Radio(choices=[], label="选项 Options", visible=False, elem_id="study-quiz-choices")
        reply = gr.Textbox(label="你的回答 Your answer", lines=2, elem_id="study-quiz-answer",
                           placeholder="中文或英文均可；选择题可填字母。Chinese or English; a letter for options.")
        with gr.Row():
            submit = gr.Button("提交 Submit", variant="primary", elem_id="study-quiz-submit")
            nxt = gr.Button("下一题 Next question", elem_id="study-quiz-next")
        feedback_md = gr.Markdown(elem_id="study-quiz-feedback")
        current = gr.State(None)
        asked = gr.State([])  # ids asked in this sitting: 'next' moves on even past a missed one

        def next_question(seen, request: gr.Request):
            reader = reader_from_request(request)
            seen = list(seen or [])
            try:
                q = study.next_questions(reader, 1, exclude=set(seen))[0]
                s = study.store.summary(reader)
            except TutorError as exc:
                return (None, gr.update(), gr.update(visible=False), "", f"⚠ {exc}", "", seen)
            seen = [] if q.id in seen else seen  # every question asked once: start the round again
            opts = [f"{option_letter(i)}. {c}" for i, c in enumerate(q.choices)]
            info = (f"读者 reader: `{reader}` · 已答 {s['answered']} 题：✓ {s['correct']} · ◐ {s['partial']} · "
                    f"✗ {s['wrong']}（错题优先 missed first）")
            return (q.id, _question_md(q), gr.update(choices=opts, value=None, visible=bool(opts)), "", "", info,
                    [*seen, q.id])

        def submit_answer(qid, choice, text, request: gr.Request):
            reader = reader_from_request(request)
            if not qid:
                return "请先点击「下一题」。Press *Next question* first."
            reply_text = (text or "").strip() or (choice.split(". ", 1)[0] if choice else "")
            if not reply_text:
                return "请先作答。Type or pick an answer first."
            try:
                return study.answer(reader, qid, reply_text).feedback
            except TutorError as exc:
                return f"⚠ {exc}"

        outs = [current, question_md, choices, reply, feedback_md, status, asked]
        def first_question(qid, seen, request: gr.Request):
            """Opening the tab shows a question once; coming back keeps the one on screen."""
            return next_question(seen, request) if not qid else tuple(gr.update() for _ in outs)

        nxt.click(next_question, inputs=asked, outputs=outs)
        quiz_tab.select(first_question, inputs=[current, asked], outputs=outs)
        submit.click(submit_answer, inputs=[current, choices, reply], outputs=feedback_md)
        reply.submit(submit_answer, inputs=[current, choices, reply], outputs=feedback_md)

    # ---- Flashcards ---------------------------------------------------------------------------
    with gr.Tab("闪卡 Flashcards", elem_id="study-flashcards-tab"):
        gr.Markdown(_flashcards_md(study), elem_id="study-flashcards")

    # ---- Notes --------------------------------------------------------------------------------
    with gr.Tab("笔记 Notes", elem_id="study-notes-tab") as notes_tab:
        section = gr.Dropdown(choices=section_choices, value=section_choices[-1][1] if section_choices else None,
                              label="章节 Section", elem_id="study-notes-section")
        starter = gr.Dropdown(choices=starters, value=None, label="引导问题 Starter (from 我的笔记)",
                              elem_id="study-notes-starter", visible=bool(starters))
        note = gr.Textbox(label="笔记 Note", lines=4, elem_id="study-notes-text")
        with gr.Row():
            save = gr.Button("保存笔记 Save note", variant="primary", elem_id="study-notes-save")
            export = gr.Button("导出 Markdown Export", elem_id="study-notes-export")
        notes_md = gr.Markdown(elem_id="study-notes-list")
        export_file = gr.File(label="notes.md", visible=False, elem_id="study-notes-file")

        def use_starter(s, text):
            return f"{s}\n" + (text or "") if s else text

        def save_it(chunk_id, text, request: gr.Request):
            reader = reader_from_request(request)
            try:
                save_note(study.store, reader, chunk_id, text, study.chunks)
                return "", _notes_md(study, reader)
            except TutorError as exc:
                return text, f"⚠ {exc}\n\n" + _safe_notes(study, reader)

        def show(request: gr.Request):
            return _safe_notes(study, reader_from_request(request))

        def export_it(request: gr.Request):
            reader = reader_from_request(request)
            try:
                md = export_markdown(study.store, reader, study.chunks)
            except TutorError as exc:
                return gr.update(visible=False), f"⚠ {exc}"
            out = Path(tempfile.mkdtemp(prefix="s2r-notes-")) / f"notes-{reader}.md"
            out.write_text(md, encoding="utf-8")
            return gr.update(value=str(out), visible=True), _safe_notes(study, reader)

        starter.change(use_starter, inputs=[starter, note], outputs=note)
        save.click(save_it, inputs=[section, note], outputs=[note, notes_md])
        export.click(export_it, inputs=None, outputs=[export_file, notes_md])
        notes_tab.select(show, inputs=None, outputs=notes_md)
    return study


def _safe_notes(study: Study, reader: str) -> str:
    try:
        return _notes_md(study, reader)
    except TutorError as exc:
        return f"⚠ {exc}"
