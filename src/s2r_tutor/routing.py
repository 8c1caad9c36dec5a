"""A section prior for search, from the answerer's phrase rules: how a question is phrased ("有哪些
办法", "why is it hard", "客户说…摔") says which kind of section answers it, a signal neither the
dense nor the sparse similarity sees. Sections of a card without rules get no prior."""

from __future__ import annotations

from .answer.intents import ANCHOR_INTENT, rule_scores


def section_prior(question: str, bonus: float) -> dict[str, float]:
    """{anchor: bonus} for the sections of the intent(s) the rules score highest; {} when none fires."""
    scores = rule_scores(question)
    if not scores:
        return {}
    best = max(scores.values())
    top = {intent for intent, score in scores.items() if score == best}
    return {anchor: bonus for anchor, intent in ANCHOR_INTENT.items() if intent in top}
