"""The out-of-scope decision and the one refusal text.

Signals, strongest first (numbers measured in docs/answering-history.md, "Refusal calibration"):
1. an injection / creative-writing request            -> refuse
   a tool, product, price or code request the card never covers (Isaac Gym, ROS, "写代码") -> refuse
   (a simulator named beside the real robot - "Isaac 里 99%，上真机一半" - is a transfer question)
2. a core Sim2Real term (typo-tolerant) or card meta  -> answer
3. a robotics topic the card does not cover           -> refuse
   the corpus's own vocabulary (vocab.py: a shared phrase, a specific corpus term, or enough
   everyday glossary words; fewer everyday words with a complaint or a specific intent phrase) -> answer
   "this thing" (这事儿, this stuff) with a specific intent phrase and no other topic -> answer
4. only general robotics words                        -> answer when it is a customer complaint, or a
   specific intent phrase fired and the best dense cosine >= settings.refusal_min_dense
5. no domain word at all                              -> refuse (general questions score dense cosines
   as high as in-scope ones with this model, so the cosine cannot rescue them)
A follow-up in a conversation that was in scope is judged by its resolved question (followups.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Intent
from .vocab import Evidence
from .lexicon import (CORE_TERMS, DEICTIC, FOREIGN_TOPICS, INJECTION, META_TERMS, OFF_CARD, REAL_SIDE, SIM_TOOLS,
                      WEAK_TERMS, fold, fuzzy_core)

# What the assistant can help with, said after "the card does not give X" when nothing on the card
# bears on it (the REFUSAL below ends with the same sentences).
CAN_HELP = {
    "zh": "我能讲的是：Sim2Real 是什么、为什么先在仿真里训练、Reality Gap 从哪来、缩小差距的四种方法、"
          "它和强化学习的区别，以及客户现场问题该怎么排查。你可以试试下面这些问题。",
    "en": "I can explain what Sim2Real is, why robots train in simulation first, where the reality gap "
          "comes from, the four ways to close it, how it differs from reinforcement learning, and how to "
          "diagnose a customer's on-site problem. You could try one of the questions below.",
}

# The refusal constant, one per reader language (an English reader gets English only, issue 17);
# tests and the eval match it exactly.
REFUSAL = {
    "zh": "抱歉，这个问题超出了「什么是 Sim2Real？」这张卡片的范围，我不能凭空作答。"
          "我能讲的是：Sim2Real 是什么、为什么先在仿真里训练、Reality Gap 从哪来、缩小差距的四种方法、"
          "它和强化学习的区别，以及客户现场问题该怎么排查。你可以试试下面这些问题。",
    "en": "Sorry, this question is outside the scope of the card \"What is Sim2Real?\", so I won't make up an "
          "answer. I can explain what Sim2Real is, why robots train in simulation first, where the reality gap "
          "comes from, the four ways to close it, how it differs from reinforcement learning, and how to "
          "diagnose a customer's on-site problem. You could try one of the questions below.",
}


def refusal_text(other_cards: list[str]) -> dict[str, str]:
    """REFUSAL per language; when the corpus holds more cards than this one, it also says they do
    not cover it."""
    if not other_cards:
        return dict(REFUSAL)
    zh = "、".join(f"「{t}」" for t in other_cards)
    en = ", ".join(f'"{t}"' for t in other_cards)
    return {"zh": f"{REFUSAL['zh']}\n其他卡片也没有讲到它：{zh}。",
            "en": f"{REFUSAL['en']}\nThe other cards here do not cover it either: {en}."}


TRY_INSTEAD = {
    "zh": ["什么是 Sim2Real？", "为什么仿真里会走，真实机器人却可能不会？", "强化学习和 Sim2Real 有什么区别？"],
    "en": ["What is Sim2Real?", "Why can a robot walk in simulation but not in reality?",
           "How is reinforcement learning different from Sim2Real?"],
}


@dataclass(frozen=True)
class Scope:
    in_scope: bool
    reason: str  # which rule decided: injection, off-card, core, meta, foreign, weak, weak-low, no-term
    dense: float


def decide_scope(question: str, *, dense: float, specific_rule: bool, complaint: bool,
                 min_dense: float, evidence: Evidence | None = None) -> Scope:
    """`specific_rule`: an intent phrase other than the generic 'what is' fired; `complaint`: a
    symptom-after-change pattern (see intents.SYMPTOM/CONTEXT); `evidence`: what the question names
    of the corpus's own vocabulary (vocab.CorpusVocab)."""
    q = fold(question)

    def verdict(ok: bool, reason: str) -> Scope:
        return Scope(ok, reason, dense)

    if INJECTION.search(q):
        return verdict(False, "injection")
    if OFF_CARD.search(q) or (SIM_TOOLS.search(q) and not REAL_SIDE.search(q)):
        return verdict(False, "off-card")
    if CORE_TERMS.search(q) or fuzzy_core(q):
        return verdict(True, "core")
    if META_TERMS.search(q):
        return verdict(True, "meta")
    if FOREIGN_TOPICS.search(q):
        return verdict(False, "foreign")
    if DEICTIC.search(q) and specific_rule:
        return verdict(True, "deictic")
    strength = evidence.strength if evidence is not None else 0
    if strength >= 2:
        return verdict(True, "corpus")
    if strength == 1 and (complaint or specific_rule):
        return verdict(True, "corpus-weak")
    if WEAK_TERMS.search(q):
        if complaint or (specific_rule and dense >= min_dense):
            return verdict(True, "weak")
        return verdict(False, "weak-low")
    return verdict(False, "no-term")


GENERIC_INTENTS = {Intent.definition}  # 'what is X' fires for any X, so it is no evidence of scope
