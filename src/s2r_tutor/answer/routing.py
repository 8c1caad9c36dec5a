"""A section prior for search, from the answerer's phrase rules: how a question is phrased ("有哪些
办法", "why is it hard", "客户说…摔") says which kind of section answers it, a signal neither the
dense nor the sparse similarity sees. Sections of a card without rules get no prior."""

from __future__ import annotations

from .intents import ANCHOR_INTENT, rule_scores

# ANCHOR_INTENT maps the anchors of this card; another card's "intro" must not inherit its prior.
PRIOR_CARD = "04-08"


def section_prior(question: str, bonus: float) -> dict[str, float]:
    """{section id: bonus} for the sections of the intent(s) the rules score highest; {} when none fires."""
    scores = rule_scores(question)
    if not scores:
        return {}
    best = max(scores.values())
    top = {intent for intent, score in scores.items() if score == best}
    return {f"{PRIOR_CARD}#{anchor}": bonus for anchor, intent in ANCHOR_INTENT.items() if intent in top}
