"""Answer templates in `prompts/`: one `<intent>.<lang>.md` per intent and language, plus the LLM
prompt `llm.md`. `$name` placeholders are checked against ALLOWED when the files are loaded, so a
typo fails at start-up (TemplateError), never in front of a user. `<!-- ... -->` comments are
notes for editors and are stripped."""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

from ..errors import TemplateError
from ..models import Intent

LANGS = ("zh", "en")
ALLOWED: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in {
    Intent.definition.value: "points",
    Intent.why_simulation.value: "scene heading aspects closing",
    Intent.loop.value: "steps practice closing",
    Intent.reality_gap.value: "causes contrast term",
    Intent.methods.value: "goal methods extra",
    Intent.rl_vs_sim2real.value: "table bottom_line",
    Intent.physical_system.value: "verdict factors closing",
    Intent.why_hard.value: "points closing",
    Intent.scenario.value: "body",
    Intent.quick_memory.value: "points core",
    Intent.related.value: "heading concepts cards",
    "generic": "title points",  # answer/generic.py: any card, any intent
    "llm": "language question sources",
}.items()}
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)


class AnswerTemplate:
    def __init__(self, name: str, text: str, allowed: frozenset[str], path: Path):
        tpl = Template(text)
        if not tpl.is_valid():
            raise TemplateError(f"{path}: malformed placeholder (use $name or ${{name}}; $$ for a dollar)")
        unknown = set(tpl.get_identifiers()) - allowed
        if unknown:
            raise TemplateError(f"{path}: unknown variable(s) {sorted(unknown)}; allowed: {sorted(allowed)}")
        self.name, self.template, self.path = name, tpl, path

    def render(self, **values: str) -> str:
        text = self.template.safe_substitute({k: values.get(k, "") for k in self.template.get_identifiers()})
        return re.sub(r"\n{3,}", "\n\n", text).strip()

    def framing(self) -> str:
        """The template's own wording (every variable empty): lines allowed without a citation."""
        return self.render()


def load_template(path: Path, allowed: frozenset[str]) -> AnswerTemplate:
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise TemplateError(f"missing or unreadable template {path}: {exc.strerror or exc}") from None
    return AnswerTemplate(path.stem, _COMMENT.sub("", text), allowed, path)


class Templates:
    """All answer templates of a prompts folder, validated up front."""

    def __init__(self, prompts_dir: Path):
        self.dir = Path(prompts_dir)
        self._answer: dict[tuple[str, str], AnswerTemplate] = {}
        for intent, allowed in ALLOWED.items():
            if intent == "llm":
                continue
            for lang in LANGS:
                self._answer[(intent, lang)] = load_template(self.dir / f"{intent}.{lang}.md", allowed)
        self.llm = load_template(self.dir / "llm.md", ALLOWED["llm"])

    def get(self, intent: str, lang: str) -> AnswerTemplate:
        try:
            return self._answer[(intent, lang)]
        except KeyError:
            raise TemplateError(f"no template for intent {intent!r} in language {lang!r}") from None
