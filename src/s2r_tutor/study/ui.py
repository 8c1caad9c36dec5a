"""Gradio tabs for study mode: Quiz, Flashcards, Notes. `build_study_tabs(tutor, settings)` adds
them to the caller's current `gr.Blocks` (the chat in web/chat.py). The reader comes from
`web/identity.py`: a signed `?reader_token=` on the page, else the browser's own anonymous id (never
an unsigned `?reader=`, never a shared 'default'). A language choice
(中文 / English, mirrored on the Quiz, Flashcards and Notes tabs; `/?lang=en` starts in English)
switches prompts, options, feedback and labels; card text is shown in the card's aligned English
where it has one (study/english.py), and a reader's notes are always shown as written."""

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
from .notes import export_markdown, note_starters, notes_by_section, save_note, section_name, starters_in
from .session import Study, feedback_language

LANGUAGE_CHOICES = [("中文", "zh"), ("English", "en")]
DEFAULT_LANGUAGE = "zh"
TEXT = {
    "zh": {"source": "出处",
           "status": "读者 reader: `{reader}` · 已答 {answered} 题：✓ {correct} · ◐ {partial} · ✗ {wrong}"
                     "（错题优先 missed first）",
           "memory": "### 快速记忆 · Memory points", "term": "### 术语 · Glossary (zh ↔ en)",
           "card_source": "[{chunk_id}] {section} —「{quote}」", "no_cards": "（这张卡片没有可做成闪卡的内容）",
           # the Notes tab: its labels, buttons, messages (the reader's notes stay as written)
           "notes_section": "章节 Section", "notes_starter": "引导问题 Starter (from 我的笔记)", "notes_note": "笔记 Note",
           "notes_placeholder": "用自己的话写下你的判断（中文或英文均可）", "notes_save": "保存笔记 Save note",
           "notes_export": "导出 Markdown Export", "notes_none": "_读者 `{reader}` 还没有笔记。_",
           "notes_export_failed": "⚠ 导出失败 export failed: {why}",
           # the Quiz tab's fields and buttons
           "quiz_options": "选项 Options", "quiz_answer": "你的回答 Your answer",
           "quiz_placeholder": "中文或英文均可；选择题可填字母。Chinese or English; a letter for options.",
           "quiz_submit": "提交 Submit", "quiz_next": "下一题 Next question"},
    "en": {"source": "Source",
           "status": "Reader `{reader}` · {answered} answered: ✓ {correct} · ◐ {partial} · ✗ {wrong} "
                     "(missed questions first)",
           "memory": "### Memory points", "term": "### Glossary (en ↔ zh)",
           "card_source": "Source [{chunk_id}] {section} — “{quote}”",
           "no_cards": "(this card has nothing to make flashcards from)",
           "notes_section": "Section", "notes_starter": "Starter question (from My notes)", "notes_note": "Note",
           "notes_placeholder": "Write down your own judgement, in your own words",
           "notes_save": "Save note", "notes_export": "Export Markdown", "notes_none": "_Reader `{reader}` has no notes yet._",
           "notes_export_failed": "⚠ Export failed: {why}",
           "quiz_options": "Options", "quiz_answer": "Your answer",
           "quiz_placeholder": "English or Chinese; a letter for options.",
           "quiz_submit": "Submit", "quiz_next": "Next question"},
}


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#<>|])")


def md_escape(text: str) -> str:
    """Card text shown as Markdown literally (a '*' or '_' in a question is not emphasis)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _question_md(q, lang: str = DEFAULT_LANGUAGE) -> str:
    section = q.section_en if lang == "en" and q.section_en else q.section
    return (f"**{md_escape(q.prompt(lang))}**\n\n"
            f"<sub>{q.kind} · {TEXT[lang]['source']} [{q.chunk_id}] {md_escape(section)}</sub>")


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


def _notes_md(study: Study, reader: Reader, lang: str = DEFAULT_LANGUAGE) -> str:
    """The reader's notes by section in card order; the sections named in `lang`, the notes as written."""
    by = notes_by_section(study.store, reader.id)
    if not by:
        return TEXT[lang]["notes_none"].format(reader=reader.label)
    sections = {c.chunk_id: md_escape(section_name(c, lang)) for c in study.chunks}
    lines = []
    for cid in [c.chunk_id for c in study.chunks if c.chunk_id in by]:
        lines.append(f"**{sections[cid]}** <sub>[{cid}]</sub>")
        lines += ["- " + md_escape(t).replace("\n", "<br>") for t in by[cid]]
        lines.append("")
    return "\n".join(lines)


def build_study_tabs(tutor, settings: Settings | None = None, study: Study | None = None,
                     readers: Readers | None = None, page: gr.Blocks | None = None) -> Study:
    """Create the Quiz, Flashcards and Notes tabs inside the current gr.Blocks context. With `page`
    (that Blocks), a page opened as `/?lang=en` starts the three tabs in English, as the widget's
    `?lang=en` does; any other page starts in Chinese."""
    settings = settings or tutor.settings
    readers = readers or Readers(settings)
    exports = ExportFolder(keep=settings.notes_exports_kept, ttl_s=settings.notes_export_ttl_s)
    study = study or Study(tutor.chunks, tutor.embedder, open_store(settings))
    # the first graded answer would otherwise wait for the bank's key points to be embedded
    threading.Thread(target=study.grader.warm, name="s2r-study-warm", daemon=True).start()
    def section_choices(lang: str = DEFAULT_LANGUAGE) -> list[tuple[str, str]]:
        return [(section_name(c, lang).split(" > ", 1)[-1], c.chunk_id) for c in study.chunks]

    starters = note_starters(study.chunks)
    starters_by_lang = {lang: starters_in(starters, study.chunks, lang) for lang in TEXT}

    # ---- Quiz ---------------------------------------------------------------------------------
    with gr.Tab("测验 Quiz", elem_id="study-quiz-tab") as quiz_tab:
        quiz_lang = gr.Radio(choices=LANGUAGE_CHOICES, value=DEFAULT_LANGUAGE, label="语言 Language",
                             elem_id="study-quiz-lang")
        status = gr.Markdown(elem_id="study-quiz-status")
        question_md = gr.Markdown("点击「下一题」开始。Press *Next question* to start.", elem_id="study-quiz-question")
        t = TEXT[DEFAULT_LANGUAGE]
        choices = gr.Radio(choices=[], label=t["quiz_options"], visible=False, elem_id="study-quiz-choices")
        reply = gr.Textbox(label=t["quiz_answer"], lines=2, elem_id="study-quiz-answer",
                           placeholder=t["quiz_placeholder"])
        with gr.Row():
            submit = gr.Button(t["quiz_submit"], variant="primary", elem_id="study-quiz-submit")
            nxt = gr.Button(t["quiz_next"], elem_id="study-quiz-next")
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

    # ---- Notes --------------------------------------------------------------------------------
    with gr.Tab("笔记 Notes", elem_id="study-notes-tab") as notes_tab:
        notes_lang = gr.Radio(choices=LANGUAGE_CHOICES, value=DEFAULT_LANGUAGE, label="语言 Language",
                              elem_id="study-notes-lang")
        t = TEXT[DEFAULT_LANGUAGE]
        sections0 = section_choices()
        section = gr.Dropdown(choices=sections0, value=sections0[-1][1] if sections0 else None,
                              label=t["notes_section"], elem_id="study-notes-section")
        starter = gr.Dropdown(choices=starters, value=None, label=t["notes_starter"],
                              elem_id="study-notes-starter", visible=bool(starters))
        note = gr.Textbox(label=t["notes_note"], lines=4, elem_id="study-notes-text", placeholder=t["notes_placeholder"])
        with gr.Row():
            save = gr.Button(t["notes_save"], variant="primary", elem_id="study-notes-save")
            export = gr.Button(t["notes_export"], elem_id="study-notes-export")
        notes_md = gr.Markdown(elem_id="study-notes-list")
        export_file = gr.File(label="notes.md", visible=False, elem_id="study-notes-file")

        def use_starter(s, text):
            return f"{s}\n" + (text or "") if s else text

        def save_it(chunk_id, text, lang, request: gr.Request):
            lang = _lang(lang)
            reader = readers.page(request)
            try:
                save_note(study.store, reader.id, chunk_id, text, study.chunks, settings)
                return "", _notes_md(study, reader, lang)
            except TutorError as exc:
                return text, f"⚠ {public_message(exc)}\n\n" + _safe_notes(study, reader, lang)

        def show(lang, request: gr.Request):
            return _safe_notes(study, readers.page(request), _lang(lang))

        def export_it(lang, request: gr.Request):
            lang = _lang(lang)
            reader = readers.page(request)
            try:
                md = export_markdown(study.store, reader.id, study.chunks, title=reader.label, language=lang)
                # one folder for every export, each removed after notes_export_ttl_s (finding 5)
                out = exports.write("notes.md", md)
            except TutorError as exc:
                return gr.update(visible=False), f"⚠ {public_message(exc)}"
            except OSError as exc:  # a full or unwritable temp folder: a message, not a traceback
                return gr.update(visible=False), TEXT[lang]["notes_export_failed"].format(why=exc.strerror)
            return gr.update(value=str(out), visible=True), _safe_notes(study, reader, lang)

        starter.change(use_starter, inputs=[starter, note], outputs=note)
        save.click(save_it, inputs=[section, note, notes_lang], outputs=[note, notes_md])
        export.click(export_it, inputs=[notes_lang], outputs=[export_file, notes_md])
        notes_tab.select(show, inputs=[notes_lang], outputs=notes_md)

    def switch_language(lang, qid, choice, picked_section, request: gr.Request):
        """Any tab's language choice: the three radios, the question on screen (the picked option
        kept by its letter), the status line, the flashcards and every label of the Notes tab
        follow it (the reader's notes are shown as written)."""
        lang = _lang(lang)
        t = TEXT[lang]
        q = study.by_id.get(qid) if qid else None
        question, opts, info = gr.update(), gr.update(label=t["quiz_options"]), gr.update()
        reader = None
        try:
            reader = readers.page(request)
        except TutorError as exc:
            info = f"⚠ {public_message(exc)}"
        if q is not None:
            labels = option_labels(q, lang)
            picked = choice.split(". ", 1)[0] if choice else None
            question = _question_md(q, lang)
            opts = gr.update(choices=labels, value=next((o for o in labels if o.split(". ", 1)[0] == picked), None),
                             label=t["quiz_options"])
            if reader is not None:
                try:
                    info = status_line(reader, lang)
                except TutorError as exc:
                    info = f"⚠ {public_message(exc)}"
        notes = _safe_notes(study, reader, lang) if reader is not None else gr.update()
        return (lang, lang, lang, question, opts, info, _flashcards_md(study, lang),
                gr.update(label=t["notes_section"], choices=section_choices(lang), value=picked_section),
                gr.update(label=t["notes_starter"], choices=starters_by_lang[lang], value=None),
                gr.update(label=t["notes_note"], placeholder=t["notes_placeholder"]),
                gr.update(value=t["notes_save"]), gr.update(value=t["notes_export"]), notes,
                gr.update(label=t["quiz_answer"], placeholder=t["quiz_placeholder"]),
                gr.update(value=t["quiz_submit"]), gr.update(value=t["quiz_next"]))

    lang_outs = [quiz_lang, cards_lang, notes_lang, question_md, choices, status, cards_md,
                 section, starter, note, save, export, notes_md, reply, submit, nxt]
    for radio in (quiz_lang, cards_lang, notes_lang):  # .input: a user's choice only, so mirroring cannot loop
        radio.input(switch_language, inputs=[radio, current, choices, section], outputs=lang_outs)

    if page is not None:
        def open_in_language(picked_section, request: gr.Request):
            try:
                asked = str(dict(getattr(request, "query_params", None) or {}).get("lang", ""))
            except Exception:  # noqa: BLE001 - a request without query parameters (tests, odd clients)
                asked = ""
            if asked != "en":
                return tuple(gr.update() for _ in lang_outs)
            return switch_language("en", None, None, picked_section, request)

        page.load(open_in_language, inputs=[section], outputs=lang_outs, show_progress="hidden",
                  concurrency_limit=None, api_visibility="private")
    return study


def _safe_notes(study: Study, reader: Reader, lang: str = DEFAULT_LANGUAGE) -> str:
    try:
        return _notes_md(study, reader, lang)
    except TutorError as exc:
        return f"⚠ {public_message(exc)}"
