"""Gradio tabs for study mode: Quiz, Flashcards, Notes. `build_study_tabs(tutor, settings)` adds
them to the caller's current `gr.Blocks` (the chat in web/chat.py). The reader comes from
`web/identity.py`: a signed `?reader_token=` on the page, else the browser's own anonymous id (never
an unsigned `?reader=`, never a shared 'default'). A language choice
(中文 / English, mirrored on the Quiz and Flashcards tabs) switches prompts, options, feedback and
labels; the card's own text stays Chinese."""

from __future__ import annotations

import re
import threading

import gradio as gr  # this module is only imported by the web chat, which has gradio loaded already

from ..errors import TutorError, public_message
from ..settings import Settings
from ..store import open_store
from ..web.identity import Reader, Readers
from .bank import option_labels
from .exports import ExportFolder
from .notes import export_markdown, note_starters, notes_by_section, save_note
from .session import Study, feedback_language

LANGUAGE_CHOICES = [("中文", "zh"), ("English", "en")]
DEFAULT_LANGUAGE = "zh"
TEXT = {
    "zh": {"source": "出处",
           "status": "读者 reader: `{reader}` · 已答 {answered} 题：✓ {correct} · ◐ {partial} · ✗ {wrong}"
                     "（错题优先 missed first）",
           "memory": "### 快速记忆 · Memory points", "term": "### 术语 · Glossary (zh ↔ en)",
           "card_source": "[{chunk_id}] {section} —「{quote}」", "no_cards": "（这张卡片没有可做成闪卡的内容）"},
    "en": {"source": "Source",
           "status": "Reader `{reader}` · {answered} answered: ✓ {correct} · ◐ {partial} · ✗ {wrong} "
                     "(missed questions first)",
           "memory": "### Memory points", "term": "### Glossary (en ↔ zh)",
           "card_source": "Source [{chunk_id}] {section} — “{quote}”",
           "no_cards": "(this card has nothing to make flashcards from)"},
}


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#<>|])")


def md_escape(text: str) -> str:
    """Card text shown as Markdown literally (a '*' or '_' in a question is not emphasis)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _question_md(q, lang: str = DEFAULT_LANGUAGE) -> str:
    return (f"**{md_escape(q.prompt(lang))}**\n\n"
            f"<sub>{q.kind} · {TEXT[lang]['source']} [{q.chunk_id}] {md_escape(q.section)}</sub>")


def _lang(value) -> str:
    """The radio's value as sent by the client: anything but a known language (a crafted queue
    request can send null) reads as the default rather than failing the handler."""
    return value if isinstance(value, str) and value in TEXT else DEFAULT_LANGUAGE


def _flashcards_md(study: Study, lang: str = DEFAULT_LANGUAGE) -> str:
    """Memory points, then the glossary; in English a term card shows the English name in front."""
    t = TEXT[lang]
    lines = []
    for kind in ("memory", "term"):
        cards = [f for f in study.flashcards if f.kind == kind]
        if not cards:
            continue
        lines += [t[kind], ""]
        for f in cards:
            front, back = f.shown("front", lang), f.shown("back", lang)
            source = t["card_source"].format(chunk_id=f.chunk_id, section=f.shown("section", lang),
                                             quote=f.shown("quote", lang))
            lines.append(f"<details><summary><b>{front}</b></summary>\n\n{back}\n\n"
                         f"<sub>{source}</sub>\n\n</details>\n")
    return "\n".join(lines) or t["no_cards"]


def _notes_md(study: Study, reader: Reader) -> str:
    by = notes_by_section(study.store, reader.id)
    if not by:
        return f"_读者 `{reader.label}` 还没有笔记。_"
    sections = {c.chunk_id: c.section for c in study.chunks}
    lines = []
    for cid in [c.chunk_id for c in study.chunks if c.chunk_id in by]:
        lines.append(f"**{sections[cid]}** <sub>[{cid}]</sub>")
        lines += ["- " + md_escape(t).replace("\n", "<br>") for t in by[cid]]
        lines.append("")
    return "\n".join(lines)


def build_study_tabs(tutor, settings: Settings | None = None, study: Study | None = None,
                     readers: Readers | None = None) -> Study:
    """Create the Quiz, Flashcards and Notes tabs inside the current gr.Blocks context."""
    settings = settings or tutor.settings
    readers = readers or Readers(settings)
    exports = ExportFolder(keep=settings.notes_exports_kept, ttl_s=settings.notes_export_ttl_s)
    study = study or Study(tutor.chunks, tutor.embedder, open_store(settings))
    # the first graded answer would otherwise wait for the bank's key points to be embedded
    threading.Thread(target=study.grader.warm, name="s2r-study-warm", daemon=True).start()
    section_choices = [(c.section.split(" > ", 1)[-1], c.chunk_id) for c in study.chunks]
    starters = note_starters(study.chunks)

    # ---- Quiz ---------------------------------------------------------------------------------
    with gr.Tab("测验 Quiz", elem_id="study-quiz-tab") as quiz_tab:
        quiz_lang = gr.Radio(choices=LANGUAGE_CHOICES, value=DEFAULT_LANGUAGE, label="语言 Language",
                             elem_id="study-quiz-lang")
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

        def status_line(reader: Reader, lang: str) -> str:
            return TEXT[lang]["status"].format(reader=reader.label, **study.store.summary(reader.id))

        def next_question(seen, lang, request: gr.Request):
            lang = _lang(lang)
            reader = readers.page(request)
            seen = list(seen or [])
            try:
                q = study.next_questions(reader.id, 1, exclude=set(seen))[0]
                info = status_line(reader, lang)
            except TutorError as exc:
                return (None, gr.update(), gr.update(visible=False), "", f"⚠ {public_message(exc)}", "", seen)
            seen = [] if q.id in seen else seen  # every question asked once: start the round again
            opts = option_labels(q, lang)
            return (q.id, _question_md(q, lang), gr.update(choices=opts, value=None, visible=bool(opts)), "", "",
                    info, [*seen, q.id])

        def submit_answer(qid, choice, text, lang, request: gr.Request):
            """The graded feedback, and the status line with this answer counted (#15)."""
            lang = _lang(lang)
            reader = readers.page(request)
            if not qid:
                return "请先点击「下一题」。Press *Next question* first.", gr.update()
            reply_text = (text or "").strip() or (choice.split(". ", 1)[0] if choice else "")
            if not reply_text:
                return "请先作答。Type or pick an answer first.", gr.update()
            try:
                feedback = study.answer(reader.id, qid, reply_text, feedback_language(lang)).feedback
                return feedback, status_line(reader, lang)
            except TutorError as exc:
                return f"⚠ {public_message(exc)}", gr.update()

        outs = [current, question_md, choices, reply, feedback_md, status, asked]
        def first_question(qid, seen, lang, request: gr.Request):
            """Opening the tab shows a question once; coming back keeps the one on screen."""
            return next_question(seen, lang, request) if not qid else tuple(gr.update() for _ in outs)

        nxt.click(next_question, inputs=[asked, quiz_lang], outputs=outs)
        quiz_tab.select(first_question, inputs=[current, asked, quiz_lang], outputs=outs)
        submit.click(submit_answer, inputs=[current, choices, reply, quiz_lang], outputs=[feedback_md, status])
        reply.submit(submit_answer, inputs=[current, choices, reply, quiz_lang], outputs=[feedback_md, status])

    # ---- Flashcards ---------------------------------------------------------------------------
    with gr.Tab("闪卡 Flashcards", elem_id="study-flashcards-tab"):
        cards_lang = gr.Radio(choices=LANGUAGE_CHOICES, value=DEFAULT_LANGUAGE, label="语言 Language",
                              elem_id="study-flashcards-lang")
        cards_md = gr.Markdown(_flashcards_md(study), elem_id="study-flashcards")

    def switch_language(lang, qid, choice, request: gr.Request):
        """Either tab's language choice: both radios, the question on screen (the picked option
        kept by its letter), the status line and the flashcards follow it."""
        lang = _lang(lang)
        q = study.by_id.get(qid) if qid else None
        question, opts, info = gr.update(), gr.update(), gr.update()
        if q is not None:
            labels = option_labels(q, lang)
            picked = choice.split(". ", 1)[0] if choice else None
            question = _question_md(q, lang)
            opts = gr.update(choices=labels, value=next((o for o in labels if o.split(". ", 1)[0] == picked), None))
            try:
                info = status_line(readers.page(request), lang)
            except TutorError as exc:
                info = f"⚠ {public_message(exc)}"
        return lang, lang, question, opts, info, _flashcards_md(study, lang)

    lang_outs = [quiz_lang, cards_lang, question_md, choices, status, cards_md]
    for radio in (quiz_lang, cards_lang):  # .input: a user's choice only, so mirroring cannot loop
        radio.input(switch_language, inputs=[radio, current, choices], outputs=lang_outs)

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
            reader = readers.page(request)
            try:
                save_note(study.store, reader.id, chunk_id, text, study.chunks, settings)
                return "", _notes_md(study, reader)
            except TutorError as exc:
                return text, f"⚠ {public_message(exc)}\n\n" + _safe_notes(study, reader)

        def show(request: gr.Request):
            return _safe_notes(study, readers.page(request))

        def export_it(request: gr.Request):
            reader = readers.page(request)
            try:
                md = export_markdown(study.store, reader.id, study.chunks, title=reader.label)
                # one folder for every export, each removed after notes_export_ttl_s (finding 5)
                out = exports.write("notes.md", md)
            except TutorError as exc:
                return gr.update(visible=False), f"⚠ {public_message(exc)}"
            except OSError as exc:  # a full or unwritable temp folder: a message, not a traceback
                return gr.update(visible=False), f"⚠ 导出失败 export failed: {exc.strerror}"
            return gr.update(value=str(out), visible=True), _safe_notes(study, reader)

        starter.change(use_starter, inputs=[starter, note], outputs=note)
        save.click(save_it, inputs=[section, note], outputs=[note, notes_md])
        export.click(export_it, inputs=None, outputs=[export_file, notes_md])
        notes_tab.select(show, inputs=None, outputs=notes_md)
    return study


def _safe_notes(study: Study, reader: Reader) -> str:
    try:
        return _notes_md(study, reader)
    except TutorError as exc:
        return f"⚠ {public_message(exc)}"
