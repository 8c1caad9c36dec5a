"""Short framing labels in both languages (template wording, never card facts)."""

from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "one-sentence": "一句话总结", "intro": "卡片导语", "check": "检验", "core": "核心",
        "scene": "场景", "then": "因此", "steps": "步骤",
        "why-simulation-cost": "A · 成本", "why-simulation-safety": "B · 安全",
        "why-simulation-scale": "C · 规模", "why-simulation-control": "D · 可控", "value": "仿真的价值",
        "rl": "强化学习", "s2r": "Sim2Real", "row-about": "关注什么", "row-solves": "解决什么问题",
        "row-scope": "范围",
        "rl-table": "强化学习和 Sim2Real 的对照", "bottom-line": "结论",
        "world-model": "世界模型", "body": "本体",
        "data": "数据", "validation": "真机验证",
        "closest": "和你的问题最贴近的一节",
        "sc-patterns": "像卡片里的哪个场景", "sc-cases": "卡片里的四个客户场景：", "sc-factors": "可能的差距因素", "sc-checks": "下一步检查什么",
        "sc-why": "为什么会这样",
        "side-summary": "Sim2Real", "side-related-simulation": "机器人仿真",
        "related-heading": "和 Sim2Real 相关的概念",
        "aspects-heading": "卡片把原因归成几类：", "aspects-four": "卡片给出四类原因：",
    },
    "en": {
        "one-sentence": "In one sentence", "intro": "The card's lead", "check": "Reality as the test",
        "core": "The core idea", "scene": "Scenario", "then": "So", "steps": "Step by step",
        "why-simulation-cost": "A · Cost", "why-simulation-safety": "B · Safety",
        "why-simulation-scale": "C · Scale", "why-simulation-control": "D · Control", "value": "The value of simulation",
        "rl": "Reinforcement learning (RL)", "s2r": "Sim2Real", "row-about": "What it is about",
        "row-solves": "What it solves", "row-scope": "Scope",
        "rl-table": "RL vs Sim2Real", "bottom-line": "Bottom line:",
        "world-model": "World model", "body": "Robot body",
        "data": "Data", "validation": "Real-robot validation",
        "closest": "The section closest to your question",
        "side-summary": "Sim2Real", "side-related-simulation": "Robot simulation",
        "related-heading": "Concepts related to Sim2Real:",
        "aspects-heading": "The card groups the reasons like this:", "aspects-four": "The card gives four reasons:",
        "sc-patterns": "Which card scenario it resembles", "sc-cases": "The card's four customer scenarios:", "sc-factors": "Likely gap factors",
        "sc-checks": "What to check next", "sc-why": "Why this happens",
        # English names for the card's headings (the Chinese heading follows in the answer)
        "scenario-factory-floor": "Customer scenario 1 · lab to factory",
        "scenario-payload": "Customer scenario 2 · payload change",
        "scenario-sensors": "Customer scenario 3 · new sensors",
        "scenario-precision": "Customer scenario 4 · on-site precision",
        "related-simulation": "Robot simulation (04-simulation)",
        "related-domain-randomization": "Domain randomization (04-domain-randomization)",
        "related-robot-data": "Robot data (04-09)",
    },
}

# Gap-clause labels for the reality-gap causes, matched by a word in the clause.
CAUSE_LABELS = [
    ("摩擦", {"zh": "摩擦", "en": "Friction"}), ("电机", {"zh": "电机与关节", "en": "Motors and joints"}),
    ("传感器", {"zh": "传感器", "en": "Sensors"}), ("地面", {"zh": "地面", "en": "Ground"}),
    ("质心", {"zh": "本体与接触", "en": "Mass, balance and contact"}),
]


def label(lang: str, key: str, card_heading: str = "") -> str:
    """The label for `key`; Chinese answers use the card's own heading when there is one."""
    if lang == "zh" and card_heading:
        return card_heading
    return LABELS[lang].get(key) or card_heading or key


def label_for(lang: str, zh_text: str) -> str:
    """A card sub-heading used as a label, in the reader's language: the label whose Chinese is that
    text ("强化学习" -> "Reinforcement learning (RL)"), else the text itself."""
    if lang == "zh":
        return zh_text
    key = next((k for k, v in LABELS["zh"].items() if v == zh_text), None)
    return LABELS[lang].get(key, zh_text) if key else zh_text
