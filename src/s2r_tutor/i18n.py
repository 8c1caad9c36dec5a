"""The interface's own words in both reader languages: one table for the chat, the /embed widget
and the CLI, so an English reader sees the same label ('Sources', 'Chinese original: ') wherever
an answer is shown (issue 17). The widget's page is given this table by the server
(web/embed.py); its script keeps a copy only as a fallback, and a test keeps the two equal.

Card text is never here; answer framing is in answer/labels.py, the study tabs' words in study/ui.py.
"""

from __future__ import annotations

LANGUAGES = ("zh", "en")

UI: dict[str, dict[str, str | list[str]]] = {
    "zh": {
        "title": "Sim2Real 学习助手", "subtitle": "回答均引用概念卡 04-08", "send": "发送",
        "placeholder": "输入关于 Sim2Real 的问题，回车发送", "thinking": "正在查找卡片内容…",
        "sources": "来源", "original": "原文：", "followups": "接着问", "error": "出错了：",
        "network": "无法连接到学习助手。", "clear": "清空对话", "source": "来源",
        "openCard": "在概念卡中查看",  # a widget source's link to the read-only card page (#15)
        "examples": ["什么是 Sim2Real？", "强化学习和 Sim2Real 有什么区别？", "客户说实验室里走得很好，到工厂就容易摔，怎么解释？"],
    },
    "en": {
        "title": "Sim2Real study assistant", "subtitle": "Every answer cites concept card 04-08", "send": "Send",
        "placeholder": "Ask about Sim2Real, Enter to send", "thinking": "Looking through the card…",
        "sources": "Sources", "original": "Chinese original: ", "followups": "Follow up", "error": "Error: ",
        "network": "Cannot reach the study assistant.", "clear": "Clear", "source": "Source",
        "openCard": "Open in card",
        "examples": ["What is Sim2Real?", "How is reinforcement learning different from Sim2Real?",
                     "What is the reality gap?"],
    },
}


def ui(language: str, key: str) -> str:
    """One label in a reader language (Chinese for anything but 'en')."""
    value = UI["en" if language == "en" else "zh"][key]
    return value if isinstance(value, str) else ", ".join(value)


def widget_labels_json() -> str:
    """The table as JSON that is safe inside an HTML `<script type="application/json">` block."""
    import json

    return json.dumps(UI, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
