"""The Gradio chat: Chinese-first labels, cited answers with a sources block, follow-ups,
example questions, like/dislike feedback, and a tab that shows the card section by section.

Conversation state lives in `gr.State` per browser session: `messages` (what the chatbot shows,
already escaped), `turns` (the raw text passed to `Tutor.ask` as history) and `records` (what a
like/dislike on a given message refers to).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections import OrderedDict
from pathlib import Path
from typing import Any

import gradio as gr

from ..errors import TutorError, public_message
from ..models import Answer, Chunk
from .feedback import ANSWER_VOTE, CHANGED, LIMITED, UNCHANGED, Feedback, FeedbackLog, Votes
from .identity import Readers, server_key
from .render import (answer_markdown, escape_html, literal_text, section_markdown, section_title, sources_markdown,
                     sources_title, user_text)
from .runtime import Runtime

log = logging.getLogger("s2r_tutor.web")

TITLE = "Sim2Real 学习助手"
HISTORY_TURNS = 20  # earlier messages passed to Tutor.ask (the API accepts up to 50)
SAVED_MESSAGES = 60  # chat messages kept in the browser across reloads (answer + sources = 2)
ASKED_SESSIONS = 10_000  # sessions remembered as having asked (Gradio's own state holds as many)

# The definition, RL vs Sim2Real, and the card's four customer scenarios (plus one in English).
EXAMPLES = [
    "什么是 Sim2Real？",
    "强化学习和 Sim2Real 有什么区别？",
    "客户说机器人在实验室里走得很好，到工厂就容易摔，怎么解释？",
    "客户说空载正常，背上设备后步态不稳定，可能是什么原因？",
    "客户换了一批传感器以后效果变差，和 Sim2Real 有什么关系？",
    "客户说仿真测试全部通过，但现场动作精度不够，怎么回应？",
    "What is the reality gap?",
]

INTRO = (
    f"## {TITLE}\n"
    "根据概念卡 **04-08「什么是 Sim2Real？」** 回答问题，每个回答都用 `[n]` 标注出处，"
    "点击 `[n]` 查看它引用的原文，也可以在概念卡中打开对应章节。中文优先，也可以用英文提问。"
)
FOOTER = "HTTP API：[/docs](/docs) · 门户嵌入小组件：[/embed](/embed)"

CSS = """
.s2r-sources { margin-top: .5rem; border-top: 1px dashed var(--border-color-primary); padding-top: .25rem; font-size: .92em; }
.s2r-sources summary { cursor: pointer; color: var(--color-accent); }
.s2r-source-list { list-style: none; padding-left: 0; margin: .25rem 0 0; }
.s2r-source { margin-bottom: .5rem; }
.s2r-marker { color: var(--color-accent); font-weight: 600; }
.s2r-section { font-weight: 600; }
.s2r-sources .s2r-quote { margin: .15rem 0 .1rem; padding: .1rem .6rem; border-left: 3px solid var(--color-accent-soft); }
.s2r-sources .s2r-quote p { margin: 0; }
.s2r-origin { color: var(--body-text-color-subdued); font-size: .85em; }
.block.s2r-card-notes { margin-top: .5rem; padding: .25rem .75rem; border-left: 3px solid var(--color-accent); }
"""

# ui (#15): clickable [n], the sources' "open in card", scrolling, mobile layout. Kept apart from the
# rules above so other changes to CSS merge cleanly.
CSS += """
#s2r-chatbot .s2r-cite { all: unset; cursor: pointer; color: var(--color-accent); font-weight: 600; font-size: .85em;
  padding: 0 .1em; border-radius: 3px; }
#s2r-chatbot .s2r-cite:hover, #s2r-chatbot .s2r-cite:focus-visible { background: var(--color-accent-soft); outline: none; }
#s2r-chatbot .thought li { scroll-margin: 2rem; border-radius: 4px; }
#s2r-chatbot .thought li.s2r-source-active { background: var(--color-accent-soft); outline: 2px solid var(--color-accent-soft); }
#s2r-chatbot .s2r-open-card { all: unset; cursor: pointer; color: var(--color-accent); font-size: .85em; text-decoration: underline; }
::highlight(s2r-quote) { background-color: #fde68a; color: #111827; }
.s2r-card-target > .label-wrap { color: var(--color-accent); }
#s2r-chatbot .message-content table { display: block; max-width: 100%; overflow-x: auto; }
#s2r-chatbot .message-content th, #s2r-chatbot .message-content td { min-width: 7em; }
@media (max-width: 640px) {
  #s2r-input-row { flex-wrap: wrap; }
  #s2r-input-row > #s2r-input { flex: 1 1 100% !important; min-width: 100% !important; }
  #s2r-input-row > #s2r-send { flex: 1 1 100% !important; }
  #s2r-chatbot .message-content th, #s2r-chatbot .message-content td { min-width: 6em; }
  #s2r-chatbot .message-row.bot-row { max-width: calc(100% - 12px) !important; margin-left: 6px !important; margin-right: 6px !important; }
  #s2r-chatbot .message-row.user-row { margin-left: 40px !important; margin-right: 6px !important; }
}
"""

JS_FILE = Path(__file__).parent / "static" / "chat.js"


def chat_js() -> str:
    """The page script for `mount_gradio_app(js=...)`: one arrow function (see static/chat.js)."""
    return JS_FILE.read_text(encoding="utf-8")


SYSTEM_FONTS = ["system-ui", "-apple-system", "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", "sans-serif"]


def theme() -> gr.themes.Base:
    """The default look with system fonts only: nothing is fetched from a font CDN."""
    return gr.themes.Default(font=SYSTEM_FONTS, font_mono=["ui-monospace", "Menlo", "Consolas", "monospace"])


RECORD_FIELDS = {"id": str, "question": str, "answer": str, "intent": str, "backend": str, "citations": list}
# What a real kept conversation never reaches (SAVED_MESSAGES messages of a few KB each); past it a
# restored one starts fresh, so one session holds at most about this much (docs/reliability.md R178).
# Measured: an answer with its sources block is 0.5-2 KB (30 of them: <60 KB); a question ~20-200 characters.
RESTORE_MAX_CHARS = 120_000
LIVE_MESSAGES = 2 * SAVED_MESSAGES  # messages one session keeps on the server; older ones leave the chat


def _canonical(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8", "replace")


def _seal(key: bytes, value: Any) -> str:
    return hmac.new(key, _canonical(value), hashlib.sha256).hexdigest()


def _record(answer: Answer, key: bytes = b"") -> dict[str, Any]:
    """What a like/dislike on this answer records, signed with the server's key: the browser keeps it
    (gr.BrowserState) and gives it back, and a record the server did not make is never voted on."""
    record = {
        # A random id per answer (R187): the vote key, so one answer counts once however many sessions
        # or readers restore the conversation it is kept in (round-13 N3: replayed under new sessions,
        # one answer collected a vote per session). A record from before it (no id) is not voted on.
        "id": secrets.token_urlsafe(12),
        "question": answer.question, "answer": answer.answer, "intent": answer.intent,
        "backend": answer.backend, "citations": [c.chunk_id for c in answer.citations],
    }
    return {**record, "sig": _seal(key, record)}


def verified_record(key: bytes, record: Any) -> dict[str, Any] | None:
    """The record's fields when it is one the server signed (the same fields, types and signature),
    else None: a forged, altered or malformed record is dropped, quietly."""
    if not isinstance(record, dict) or set(record) != {*RECORD_FIELDS, "sig"} or not isinstance(record["sig"], str):
        return None
    fields = {k: record[k] for k in RECORD_FIELDS}
    if not all(isinstance(fields[k], t) for k, t in RECORD_FIELDS.items()) or \
            not all(isinstance(c, str) for c in fields["citations"]):
        return None
    return fields if _same(record["sig"], _seal(key, fields)) else None


def _same(given: str, expected: str) -> bool:
    # compare_digest refuses a str with non-ASCII characters (TypeError): compare bytes.
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode())


def _selected_text(evt: gr.SelectData) -> str:
    """The question behind a clicked example ({'text': ...}) or follow-up option ('...' or {'value': ...})."""
    value = evt.value
    if isinstance(value, dict):
        value = value.get("text") or value.get("value") or ""
    return str(value or "")


def answer_messages(answer: Answer, link_hosts: tuple[str, ...] | list[str] = ()) -> list[dict[str, Any]]:
    """The answer as chat messages: its Markdown, then (when it cites anything) the sources as a
    collapsed block of plain Markdown, so copy and screen readers get text, never HTML. Gradio shows
    both in one bubble; a like on the bubble reports the first one's index."""
    options = [{"value": f, "label": f} for f in answer.followups[:3]]
    body: dict[str, Any] = {"role": "assistant", "content": answer_markdown(answer.answer, link_hosts)}
    if not answer.citations:
        return [{**body, "options": options}]
    sources = {"role": "assistant", "content": sources_markdown(answer.citations, answer.language),
               "metadata": {"title": sources_title(answer.citations, answer.language), "status": "done"},
               "options": options}
    return [body, sources]


def saved_conversation(messages: list, turns: list, records: dict, key: bytes = b"") -> dict[str, Any]:
    """What the browser keeps across reloads (gr.BrowserState): the newest SAVED_MESSAGES messages
    (localStorage is small), with the like/dislike records re-indexed to match, signed with the
    server's key (`sig`): the browser holds it, but only the server can make one that restores."""
    messages, records = newest(messages, records, SAVED_MESSAGES)
    kept = {"v": 2, "messages": messages, "turns": turns[-HISTORY_TURNS:], "records": records}
    return {**kept, "sig": _seal(key, kept)}


def newest(messages: list, records: dict, keep: int) -> tuple[list, dict]:
    """The newest `keep` messages, with the like/dislike records re-indexed to match."""
    cut = max(0, len(messages) - keep)
    if cut:
        records = {str(int(k) - cut): v for k, v in records.items() if k.isdigit() and int(k) >= cut}
    return messages[cut:], records


def restored_conversation(saved: Any, key: bytes = b"") -> tuple[list, list, list, dict]:
    """The kept conversation back into the chatbot and the session state, only when the server made
    it: its signature must match, so no client-written Markdown reaches the chatbot unfiltered (the
    answers in it passed `answer_markdown` when they were made) and no forged record can be voted on.
    Anything else (forged, altered, an older format, over the size bounds, a value the server cannot
    decrypt) starts a fresh conversation, without a word in the log."""
    fresh: tuple[list, list, list, dict] = ([], [], [], {})
    if not isinstance(saved, dict) or saved.get("v") != 2 or not isinstance(saved.get("sig"), str):
        return fresh
    messages, turns, records = saved.get("messages"), saved.get("turns"), saved.get("records")
    if not (isinstance(messages, list) and isinstance(turns, list) and isinstance(records, dict)):
        return fresh
    if len(messages) > SAVED_MESSAGES or len(turns) > HISTORY_TURNS or len(records) > SAVED_MESSAGES:
        return fresh
    try:
        body = _canonical({"v": 2, "messages": messages, "turns": turns, "records": records})
    except (TypeError, ValueError, RecursionError):
        return fresh
    if len(body) > RESTORE_MAX_CHARS * 4 or \
            not _same(saved["sig"], hmac.new(key, body, hashlib.sha256).hexdigest()):
        return fresh
    if not all(isinstance(m, dict) and m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str)
               for m in messages):
        return fresh
    if sum(len(m["content"]) for m in messages) > RESTORE_MAX_CHARS:
        return fresh
    records = {k: r for k, r in records.items() if verified_record(key, r) is not None}
    return messages, messages, turns, records


def build_chat(runtime: Runtime, feedback: FeedbackLog) -> gr.Blocks:
    readers = Readers(runtime.settings)
    votes = Votes(feedback, runtime.settings.feedback_per_minute)
    key = server_key(runtime.settings, "chat records")  # replicas sharing reader_secret share it
    # Sessions whose reader has asked, oldest first. The page's restore reads it when it runs, not when
    # its inputs were read: a restore running beside the first answer must not replace it (R199).
    asked: OrderedDict[str, None] = OrderedDict()

    def note_asked(request: gr.Request | None) -> None:
        session = getattr(request, "session_hash", None)
        if isinstance(session, str) and session:
            asked[session] = None
            asked.move_to_end(session)
            while len(asked) > ASKED_SESSIONS:
                asked.popitem(last=False)

    async def respond(question: str, messages: list, turns: list, records: dict, request: gr.Request = None):
        question = (question or "").strip()
        if not question:
            yield "", messages, messages, turns, records
            return
        note_asked(request)
        # Only the newest answer keeps its follow-up buttons.
        messages = [{k: v for k, v in m.items() if k != "options"} for m in messages]
        messages.append({"role": "user", "content": user_text(question)})
        yield "", messages, messages, turns, records
        try:
            answer = await runtime.ask(question, turns[-HISTORY_TURNS:], source="chat",
                                       reader=readers.page(request).id)  # hashed in the question log
        except TutorError as exc:  # QueryError and friends: a message, not a traceback
            messages = [*messages, {"role": "assistant", "content": escape_html(public_message(exc))}]
            yield "", messages, messages, turns, records
            return
        messages = [*messages, *answer_messages(answer, runtime.settings.link_hosts)]
        records = {**records, str(len(messages) - (2 if answer.citations else 1)): _record(answer, key)}
        # A session's memory stays bounded however long it chats (R178): the oldest messages leave.
        messages, records = newest(messages, records, LIVE_MESSAGES)
        # Clipped to the tutor's bound, so one over-long message cannot break later turns (#13, finding 8).
        keep = runtime.settings.max_turn_chars
        turns = [*turns, {"role": "user", "content": question[:keep]}, {"role": "assistant", "content": answer.answer[:keep]}]
        yield "", messages, messages, turns, records

    def on_like(records: dict, data: gr.LikeData, request: gr.Request) -> None:
        index = data.index[0] if isinstance(data.index, (list, tuple)) and data.index else data.index
        if not isinstance(index, int) or isinstance(index, bool) or not isinstance(data.liked, bool):
            return
        # Only a record this server signed (R176): a forged or malformed one is no vote and no traceback.
        record = verified_record(key, (records or {}).get(str(index)) if isinstance(records, dict) else None)
        if record is None:
            return
        # One vote per answer, whoever restores it in whichever session; a second click changes it
        # (issue 13, finding 9; R187).
        vote = ANSWER_VOTE + record.pop("id")
        client = getattr(getattr(request, "client", None), "host", None) or ""
        outcome = votes.cast(Feedback(liked=data.liked, source="chat", reader=readers.page(request).id,
                                      vote=vote, **record), client=str(client))
        if outcome == LIMITED:
            gr.Warning("反馈太频繁了，请稍后再试。Too many votes; try again in a minute.", duration=3)
        elif outcome != UNCHANGED:
            # A short toast (static/chat.js also closes toasts on a tab switch, #15)
            gr.Info(("已改为：" if outcome == CHANGED else "") + ("感谢反馈！" if data.liked else "已记录，我们会改进这个回答。"),
                    duration=3)

    def reset():
        return [], [], [], {}, saved_conversation([], [], {}, key)

    def keep_conversation(messages: list, turns: list, records: dict) -> dict[str, Any]:
        return saved_conversation(messages, turns, records, key)

    async def restore(saved: Any, current: Any, request: gr.Request = None) -> tuple[Any, Any, Any, Any]:
        # The page's load event can finish after the reader's first answer (a slow first load under
        # load), or run beside it. A conversation under way in this session is never replaced: not when
        # the session's state holds one (R198), nor when the session has asked since this event's inputs
        # were read (R199; async, so the check and the return are one step on the event loop). A page
        # with nothing kept writes nothing at all, so a new reader's first question never races it.
        if (isinstance(current, list) and current) or getattr(request, "session_hash", None) in asked:
            return gr.skip(), gr.skip(), gr.skip(), gr.skip()
        restored = restored_conversation(saved, key)
        if not restored[1]:
            return gr.skip(), gr.skip(), gr.skip(), gr.skip()
        return restored

    with gr.Blocks(title=TITLE, analytics_enabled=False) as demo:
        messages = gr.State([])
        turns = gr.State([])
        records = gr.State({})
        # The conversation kept in the browser's localStorage (Gradio encrypts it with the server's key),
        # so a reload shows it again.
        saved = gr.BrowserState(saved_conversation([], [], {}, key), storage_key="s2r-conversation")
        gr.Markdown(INTRO)
        with gr.Tabs(overflow_behavior="wrap"):  # on a phone every tab stays one tap away (#15)
            with gr.Tab("问答 Chat", id="chat"):
                chatbot = gr.Chatbot(
                    label=TITLE,
                    show_label=False,
                    elem_id="s2r-chatbot",
                    height=600,
                    buttons=["copy", "copy_all"],
                    feedback_options=("Like", "Dislike"),
                    placeholder="**你好！** 问我任何关于 Sim2Real 的问题，或点击下面的示例问题。",
                    examples=[{"text": q, "display_text": q} for q in EXAMPLES],
                    allow_tags=False,
                    sanitize_html=True,
                    latex_delimiters=[],
                    autoscroll=False,  # static/chat.js scrolls a new question to the top instead
                )
                with gr.Row(elem_id="s2r-input-row"):
                    box = gr.Textbox(
                        show_label=False,
                        placeholder="输入关于 Sim2Real 的问题，按回车发送（也可以用英文提问）",
                        elem_id="s2r-input",
                        scale=8,
                        max_lines=4,
                        autofocus=True,
                    )
                    send = gr.Button("发送", variant="primary", elem_id="s2r-send", scale=1, min_width=80)
            with gr.Tab("概念卡 Card", id="card") as card:
                notes_outputs, note_sections = card_tab(runtime.tutor.chunks)
            study_tabs(runtime, demo)
        gr.Markdown(FOOTER)

        show_notes = card_notes(runtime, note_sections, readers)
        if show_notes is not None:  # the reader's notes beside each section: on page load and tab open
            notes_io = dict(inputs=None, outputs=notes_outputs, show_progress="hidden", concurrency_limit=None,
                            api_visibility="private")
            demo.load(show_notes, **notes_io)
            card.select(show_notes, **notes_io)

        # Chat answers leave the Gradio queue freely (up to chat_in_flight) and wait at Runtime's limiter,
        # the one budget the API routes wait at too, first come first served (#15). A queue limit of
        # web_concurrency here as well made chat users wait twice: for a queue slot, then behind every
        # API call at the limiter (chat p50 6 s against the API's 0.2 s).
        chat_io = dict(inputs=[box, messages, turns, records], outputs=[box, chatbot, messages, turns, records],
                       concurrency_limit=runtime.settings.chat_in_flight, concurrency_id="s2r-chat")
        keep = dict(fn=keep_conversation, inputs=[messages, turns, records], outputs=saved, show_progress="hidden",
                    concurrency_limit=None, api_visibility="private")
        box.submit(respond, **chat_io).then(**keep)
        send.click(respond, **chat_io).then(**keep)
        chatbot.example_select(_selected_text, None, box).then(respond, **chat_io).then(**keep)
        chatbot.option_select(_selected_text, None, box).then(respond, **chat_io).then(**keep)
        chatbot.like(on_like, [records], None)
        chatbot.clear(reset, None, [chatbot, messages, turns, records, saved])  # the chatbot's trash icon
        demo.load(restore, [saved, messages], [chatbot, messages, turns, records], show_progress="hidden",
                  concurrency_limit=None, api_visibility="private")
    return demo


def card_tab(chunks: list[Chunk]) -> tuple[list[gr.Markdown], list[list[str]]]:
    """One accordion per card section, in card order (a section split into parts shows whole), each
    with an empty, hidden slot for the reader's notes on it (filled by `card_notes`). Returns the
    outputs for `card_notes` (a status line, then one slot per section) and each section's chunk ids."""
    sections: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        sections.setdefault(chunk.section, []).append(chunk)
    gr.Markdown("概念卡原文，按章节展开，每节下可展开英文对照（English）。聊天中的 `[n]` 引用的就是这些章节；"
                "你在「笔记」里写的笔记显示在对应章节下。")
    outputs = [gr.Markdown(visible=False, elem_id="s2r-card-notes-status")]
    ids: list[list[str]] = []
    for i, (section, parts) in enumerate(sections.items()):
        body = section_markdown(parts) or "—"
        english = section_markdown(parts, english=True)
        if english:  # the card's aligned English rendering, folded (#17): for English readers and decks
            title_en = section_title(parts[0].section_en) if parts[0].section_en else "English"
            body += (f"\n\n<details class=\"s2r-card-en\" lang=\"en\"><summary>English · {escape_html(title_en)}"
                     f"</summary>\n\n{english}\n\n</details>")
        with gr.Accordion(section_title(section), open=i < 2):
            gr.Markdown(f"{body}\n\n<small>{escape_html(parts[0].source)} · {escape_html(parts[0].chunk_id)}</small>")
            outputs.append(gr.Markdown(visible=False, elem_classes=["s2r-card-notes"]))
        ids.append([p.chunk_id for p in parts])
    return outputs, ids


def notes_markdown(reader: str, notes: list[str]) -> str:  # reader: the label to show
    """A reader's notes on one section, shown literally (no Markdown, no HTML), one item each."""
    items = "\n".join("- " + literal_text(n.strip()) for n in notes)
    return f"**我的笔记 My notes** <sub>读者 reader: {escape_html(reader)}</sub>\n\n{items}"


def card_notes(runtime: Runtime, sections: list[list[str]], readers: Readers | None = None):
    """The event handler that fills the card tab's note slots for the page's reader (web/identity.py:
    a signed `?reader_token=`, else the browser's anonymous id), or None when the study package is absent."""
    readers = readers or Readers(runtime.settings)
    try:
        from ..study.notes import notes_for_sections
    except ImportError as exc:
        log.info("notes not shown in the card tab: %s", exc)
        return None

    def show(request: gr.Request) -> list:
        reader = readers.page(request)
        try:
            notes = notes_for_sections(runtime.settings, reader.id)
        except TutorError as exc:  # a corrupt or locked study database: say so, keep the card
            log.warning("card tab: notes of %s not shown: %s", reader.label, exc)
            return [gr.update(value=f"⚠ 笔记暂时无法显示：{literal_text(public_message(exc))}", visible=True),
                    *[gr.update(value="", visible=False) for _ in sections]]
        slots = []
        for chunk_ids in sections:
            mine = [n for cid in chunk_ids for n in notes.get(cid, [])]
            slots.append(gr.update(value=notes_markdown(reader.label, mine) if mine else "", visible=bool(mine)))
        return [gr.update(value="", visible=False), *slots]

    return show


def study_tabs(runtime: Runtime, page: gr.Blocks | None = None) -> None:
    """The study mode's tabs (quiz, flashcards, notes) when that package is present; `page`: the
    chat's Blocks, so `/?lang=en` opens them in English."""
    try:
        from ..study.ui import build_study_tabs
    except ImportError as exc:
        log.info("study tabs not shown: %s", exc)
        return
    build_study_tabs(runtime.tutor, runtime.settings, readers=Readers(runtime.settings), page=page)
