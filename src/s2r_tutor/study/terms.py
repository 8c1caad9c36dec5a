"""Term forms for grading and flashcards: the team glossary (`s2r_tutor.retrieval.glossary.GLOSSARY`, zh↔en)
plus the bilingual terms a card names in its own headings ('域随机化 Domain Randomization').

A "form" is one spelling of a term (zh, en or an alias). Matching is on `normalize()`d text for
Chinese forms and on whole words for Latin forms, so 'rl' never matches inside 'world'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..text import normalize

# Everyday words the team glossary does not list but the card's scenario tags use. Translations
# only (no claims about robotics), so grading can accept an English answer for a Chinese tag.
EXTRA_FORMS: dict[str, list[str]] = {
    "泛化": ["generalization", "generalisation", "generalize"],
    "本体参数": ["body parameters", "robot parameters", "embodiment parameters"],
    "负载变化": ["payload change", "load change", "payload"],
    "仿真参数": ["simulation parameters", "simulator parameters", "sim parameters"],
    "策略适配": ["policy adaptation", "adapt the policy"],
    "传感器差异": ["sensor differences", "sensor difference", "different sensors"],
    "系统适配": ["system adaptation"],
    "模型误差": ["model error", "model errors", "modelling error", "modeling error"],
    "控制": ["control", "controller"],
    "本体": ["embodiment", "robot body", "hardware"],
    "误差": ["error", "errors"],
    "质心": ["center of mass", "centre of mass"],
    "关节": ["joint", "joints"],
    "设备磨损": ["equipment wear", "wear and tear", "wear"],
    "场地": ["space", "venue", "test field", "floor space"],
    "人工": ["labor", "labour", "manpower", "staff", "people"],
    "维修": ["repair", "repairs", "maintenance"],
    "摔倒": ["falling", "falls", "fall"],
    "碰撞": ["collision", "collisions", "crash"],
    "极限姿态": ["extreme poses", "extreme postures", "extreme pose"],
    "人员安全": ["human safety", "personnel safety", "people's safety"],
    "并行训练": ["parallel training", "train in parallel"],
    "快速迭代": ["fast iteration", "rapid iteration", "iterate quickly"],
    "场景覆盖": ["scenario coverage", "scene coverage"],
    "扰动": ["disturbance", "disturbances", "perturbation"],
    "光照": ["lighting", "light", "illumination"],
}


@dataclass(frozen=True)
class TermForms:
    zh: str
    en: str | None
    forms: tuple[str, ...] = field(default=())  # every spelling, zh first
    anchor: str | None = None
    core: bool = False


def _is_latin(form: str) -> bool:
    return not re.search(r"[\u3400-\u9fff]", form)


@lru_cache(maxsize=4096)
def _latin_pattern(form: str) -> re.Pattern:
    words = [re.escape(w) for w in re.split(r"[\s\-_]+", form.lower()) if w]
    return re.compile(r"(?<![a-z0-9])" + r"[\s\-_]*".join(words) + r"(?![a-z0-9])")


def form_in(form: str, text: str) -> bool:
    """Does `text` contain this spelling of a term? Latin forms match whole words only."""
    if _is_latin(form):
        return bool(_latin_pattern(form).search(text.lower()))
    nf = normalize(form)
    return bool(nf) and nf in normalize(text)


def team_glossary() -> list:
    """The lead's glossary when present (an optional module while it is being written)."""
    try:
        from ..retrieval.glossary import GLOSSARY  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - only before glossary.py lands
        return []
    return list(GLOSSARY)


@lru_cache(maxsize=1)
def glossary_terms() -> tuple[TermForms, ...]:
    out: list[TermForms] = []
    known: set[str] = set()
    for t in team_glossary():
        forms = [t.zh, t.en, *getattr(t, "aliases", [])] + EXTRA_FORMS.get(t.zh, [])
        out.append(TermForms(t.zh, t.en, tuple(dict.fromkeys(f for f in forms if f)),
                             getattr(t, "anchor", None), bool(getattr(t, "core", False))))
        known.add(t.zh)
    for zh, forms in EXTRA_FORMS.items():
        if zh not in known:
            out.append(TermForms(zh, forms[0], tuple([zh, *forms])))
    return tuple(out)


def term_for(name: str, extra: list[TermForms] | None = None) -> TermForms | None:
    """The glossary term one of whose forms *is* `name` (normalised equality)."""
    n = normalize(name)
    for t in [*(extra or []), *glossary_terms()]:
        if any(normalize(f) == n for f in t.forms):
            return t
    return None


def forms_of(name: str, extra: list[TermForms] | None = None) -> list[str]:
    """`name` and every other spelling the glossary knows for it."""
    t = term_for(name, extra)
    return list(dict.fromkeys([name, *(t.forms if t else [])]))


def terms_in(text: str, extra: list[TermForms] | None = None) -> list[TermForms]:
    """Glossary terms one of whose forms occurs in `text`; a term inside a longer found one is
    dropped ('摔' inside '摔倒' is not counted twice)."""
    found: list[tuple[str, TermForms]] = []
    for t in [*(extra or []), *glossary_terms()]:
        hits = [f for f in t.forms if len(normalize(f)) >= (2 if _is_latin(f) else 1) and form_in(f, text)]
        if hits:
            found.append((max(hits, key=len), t))
    keep = []
    for f, t in found:
        if not any(f != g and normalize(f) in normalize(g) for g, _ in found):
            if all(t.zh != k.zh for k in keep):
                keep.append(t)
    return keep
