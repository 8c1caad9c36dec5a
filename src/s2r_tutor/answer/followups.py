"""Multi-turn: resolve a follow-up ("那它和强化学习有什么区别？", "再具体说说第二种方法") against
the earlier turns, and find what part of an intent's material a question singles out (focus)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import Intent, Turn
from .compose import ASPECT_ANCHORS, METHOD_ANCHORS
from .focus import Focus
from .lexicon import any_of, fold

# Words that lean on an earlier turn.
FOLLOWUP_CUE = any_of(r"^那", r"^那么", r"它", r"这个", r"那个", r"这种", r"这些", r"上面", r"刚才", r"前面", r"^再", r"继续",
                      r"还有", r"展开", r"具体", r"详细", r"举个?例", r"第[一二三四五六七八九1-9]", r"最后一", r"为什么[?？]?$",
                      r"为啥[?？]?$", r"然后呢", r"怎么办", r"\bit\b", r"\bthat\b", r"\bthis\b", r"\bthose\b", r"\bthem\b",
                      r"\bmore\b", r"elaborate", r"\bexample", r"the (?:first|second|third|fourth|last) one", r"^and\b",
                      r"^what about", r"^why\??$", r"how so", r"go on", r"continue", r"detail")
# A follow-up must also ask for something: more detail, an item, a reason, or a new angle.
CONTINUATION = any_of(r"^再", r"继续", r"展开", r"具体", r"详细", r"举个?例", r"第[一二三四五六七八九1-9]", r"最后一", r"为什么", r"为啥",
                      r"然后呢", r"怎么办", r"还有", r"\bmore\b", r"elaborate", r"example", r"\b(?:first|second|third|fourth|last)\b",
                      r"\bwhy\b", r"how so", r"go on", r"continue", r"detail")
_UNIT = r"\s*(?:种|个|点|条|项|步|类|部分)"
_EN_UNIT = r"\s+(?:one|method|point|reason|approach|step|item|technique|aspect)"
_ORDINALS = [
    (rf"第(?:一|1){_UNIT}|\bfirst{_EN_UNIT}|1st{_EN_UNIT}", 1), (rf"第(?:二|2){_UNIT}|\bsecond{_EN_UNIT}|2nd{_EN_UNIT}", 2),
    (rf"第(?:三|3){_UNIT}|\bthird{_EN_UNIT}|3rd{_EN_UNIT}", 3), (rf"第(?:四|4){_UNIT}|\bfourth{_EN_UNIT}|4th{_EN_UNIT}", 4),
    (rf"第(?:五|5){_UNIT}|\bfifth{_EN_UNIT}|5th{_EN_UNIT}", 5), (rf"最后一{_UNIT}|\blast{_EN_UNIT}", -1),
]
ORDINAL_LISTS: dict[Intent, list[str]] = {Intent.methods: METHOD_ANCHORS, Intent.why_simulation: ASPECT_ANCHORS}
ITEM_INTENTS = {Intent.why_hard}

# Named parts of an intent's material.
FOCUS_TERMS: list[tuple[re.Pattern[str], str]] = [
    (any_of(r"随机", r"domain\s*randomi", r"randomi[sz]"), "domain-randomization"),
    (any_of(r"系统辨识", r"辨识", r"system\s*id", r"sys\s*id", r"identification", r"校准", r"标定", r"calibrat"), "system-identification"),
    (any_of(r"真机微调", r"微调", r"fine[\s-]*tun"), "real-world-fine-tuning"),
    (any_of(r"鲁棒", r"robust", r"敏感", r"容忍", r"tolerat", r"sensitiv"), "robust-policy"),
    (any_of(r"成本", r"省钱", r"太贵", r"\bcost", r"cheap", r"expensive", r"money"), "why-simulation-cost"),
    (any_of(r"安全", r"危险", r"\bsafe", r"danger"), "why-simulation-safety"),
    (any_of(r"并行", r"规模", r"效率", r"\bscale", r"parallel", r"faster"), "why-simulation-scale"),
    (any_of(r"可控", r"控制条件", r"controllab", r"control (?:over )?(?:the )?(?:training )?conditions"), "why-simulation-control"),
    (any_of(r"世界模型", r"world model"), "world-model"),
    (any_of(r"机器人数据", r"真实(?:运行)?数据", r"robot data", r"real[\s-]*world data", r"04-09"), "related-robot-data"),
    (any_of(r"机器人仿真", r"04-simulation", r"robot simulation", r"photo[\s-]*realis", r"逼真", r"真实感", r"看起来(?:更)?像",
            r"looks? (?:more )?(?:real|like)", r"more realistic", r"越(?:像|真|逼真|精细)越好"), "related-simulation"),
    (any_of(r"笔记", r"\bnotes?\b", r"引导(?:问题|问句)", r"自己写", r"写点", r"反思", r"guiding questions?", r"reflect",
            r"write (?:down|up) (?:my|your) own"), "notes"),
]


def ordinal(question: str) -> int | None:
    q = fold(question)
    return next((n for pat, n in _ORDINALS if re.search(pat, q)), None)


EXCEPT = any_of(r"除了", r"除去", r"之外", r"以外", r"别的", r"其他", r"其它", r"besides", r"other than", r"apart from",
                r"\bexcept", r"\bother\b", r"\belse\b")


def focus_for(question: str, intent: Intent) -> Focus:
    """What `question` singles out; an ordinal picks from the intent's list (methods, aspects, items).
    "除了省钱，还有别的好处吗" / "besides cost, what else" single out the rest of the list."""
    q = fold(question)
    anchors = {anchor for pat, anchor in FOCUS_TERMS if pat.search(q)}
    options = ORDINAL_LISTS.get(intent, [])
    if EXCEPT.search(q) and anchors & set(options):
        anchors = set(options) - anchors
    n = ordinal(question)
    item = None
    if n is not None and options:
        anchors.add(options[n - 1 if n > 0 else -1] if n <= len(options) else options[-1])
    elif n is not None and intent in ITEM_INTENTS:
        item = n if n > 0 else 5
    return Focus(anchors=anchors, item=item, question=question)


@dataclass
class Context:
    """The earlier question a follow-up leans on (None for a fresh question)."""

    previous: str | None
    is_followup: bool
    before: list[Turn]  # the history that preceded `previous` (to resolve chains of follow-ups)


def context_for(question: str, history: list[Turn]) -> Context:
    idx = next((i for i in range(len(history) - 1, -1, -1)
                if history[i].role == "user" and history[i].content.strip()), None)
    q = fold(question)
    is_followup = idx is not None and bool(FOLLOWUP_CUE.search(q)) and bool(CONTINUATION.search(q) or len(q) <= 40)
    if not is_followup:
        return Context(None, False, [])
    return Context(history[idx].content, True, history[:idx])
