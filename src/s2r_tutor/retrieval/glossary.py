"""A zh↔en glossary of the card's vocabulary.

Two uses: English questions are expanded with the Chinese terms they name, so BM25 (which sees the
Chinese card through jieba) can match them; and study flashcards show the card's core terms in both
languages. `core` terms are the card's own named concepts (flashcards); the rest is everyday
vocabulary readers use for the same things (expansion only).
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, Field


class Term(BaseModel):
    zh: str
    en: str
    aliases: list[str] = Field(default_factory=list, description="other English spellings, lower case")
    anchor: str | None = Field(None, description="the 04-08 section that explains the term")
    core: bool = Field(False, description="a concept the card names (shown as a flashcard)")


def _t(zh, en, *aliases, anchor=None, core=False) -> Term:
    return Term(zh=zh, en=en, aliases=list(aliases), anchor=anchor, core=core)


GLOSSARY: list[Term] = [
    _t("Sim2Real", "Sim2Real", "sim-to-real", "sim to real", "simulation to reality", "sim2real transfer",
       anchor="summary", core=True),
    _t("仿真—现实差距", "Reality Gap", "reality gap", "sim-to-real gap", "sim2real gap", anchor="reality-gap", core=True),
    _t("域随机化", "Domain Randomization", "domain randomisation", "randomization", "randomisation",
       anchor="domain-randomization", core=True),
    _t("系统辨识", "System Identification", "system id", "sysid", "parameter identification", "calibration",
       anchor="system-identification", core=True),
    _t("真机微调", "Real-world Fine-tuning", "fine-tuning", "fine tuning", "finetuning", "fine-tune", "fine tune",
       anchor="real-world-fine-tuning", core=True),
    _t("鲁棒策略", "Robust Policy", "robust policies", "robustness", "robust", anchor="robust-policy", core=True),
    _t("强化学习", "Reinforcement Learning", "rl", anchor="rl-vs-sim2real", core=True),
    _t("机器人本体", "Robot Body (Embodiment)", "embodiment", "robot body", "hardware platform", "body",
       anchor="physical-system", core=True),
    _t("世界模型", "World Model", "world models", anchor="physical-system", core=True),
    _t("仿真环境", "Simulation Environment", "simulator", "simulation", "simulated", "sim", anchor="why-simulation-cost",
       core=True),
    _t("真机验证", "Real-robot Validation", "validation", "validate", "verify on the real robot",
       anchor="why-hard", core=True),
    _t("现场适配", "On-site Adaptation", "adaptation", "adapt", "on-site", "field adaptation",
       anchor="system-loop", core=True),
    _t("减速器", "Gear Reducer", "reducer", "gearbox", "gear", anchor="physical-system", core=True),
    _t("快速记忆", "Quick Memory", "summary", "recap", "cheat sheet", "key points", "remember", anchor="quick-memory"),
    _t("摩擦", "Friction", "frictional", "slippery", "slip"),
    _t("地面", "Ground", "floor", "terrain", "grass", "surface", "outdoor"),
    _t("传感器", "Sensor", "sensors", "camera", "lidar", "imu"),
    _t("噪声", "Noise", "noisy"),
    _t("延迟", "Latency", "delay", "lag", "response delay"),
    _t("电机", "Motor", "motors", "actuator", "actuators"),
    _t("负载", "Payload", "load", "carrying", "carry", "backpack", "heavier", "weight on"),
    _t("重量", "Weight", "mass", "heavy"),
    _t("精度", "Precision", "precise", "accuracy", "accurate", "imprecise", "inaccurate"),
    _t("摔", "Fall", "falls", "falling", "fell", "falls over", "tip over"),
    _t("工厂", "Factory", "plant", "site", "customer site", "warehouse"),
    _t("实验室", "Lab", "laboratory"),
    _t("步态", "Gait", "walking", "walk", "walks"),
    _t("成本", "Cost", "costs", "expensive", "cheap", "money"),
    _t("安全", "Safety", "safe", "dangerous", "danger"),
    _t("规模", "Scale", "parallel", "many environments", "at scale"),
    _t("可控", "Control", "controllable", "controlled conditions"),
    _t("部署", "Deployment", "deploy", "deploying", "deployed"),
    _t("迁移", "Transfer", "transferring", "migrate"),
    _t("策略", "Policy", "policies", "controller"),
    _t("训练", "Training", "train", "trained"),
    _t("数据", "Data", "dataset", "logs"),
    _t("很难", "Hard", "difficult", "challenging", "tricky", "why is it hard"),
    _t("软件问题", "Software Problem", "software", "just software", "only software"),
    _t("相关概念", "Related Concepts", "related", "related topics"),
    _t("笔记", "Notes", "note"),
    _t("客户", "Customer", "client", "customers"),
    _t("解决方案人员", "Solution Engineer", "solutions engineer", "presales", "pre-sales"),
]


# Everyday Chinese words readers use for what the card names in its own vocabulary. Expansion only:
# the words are added to the retrieval query, never to an answer.
ZH_SYNONYMS: dict[str, str] = {
    "贵": "成本", "花钱": "成本", "省钱": "成本", "费钱": "成本", "开销": "成本", "损耗": "设备磨损",
    "危险": "安全", "受伤": "人员安全", "撞": "碰撞", "跌倒": "摔倒", "摔跤": "摔倒", "倒地": "摔倒",
    "同时": "并行", "效率": "规模", "快": "快速迭代",
    "打滑": "摩擦", "滑": "摩擦", "草地": "地面", "户外": "地面", "路面": "地面", "地形": "地面", "坡": "地面",
    "载重": "负载", "负重": "负载", "背东西": "负载", "扛": "负载", "重物": "负载", "夹爪": "负载",
    "型号": "本体", "硬件": "本体", "机型": "本体", "马达": "电机", "关节": "关节结构",
    "反应慢": "响应延迟", "变慢": "响应延迟", "迟钝": "响应延迟", "延时": "延迟",
    "不准": "精度", "偏差": "误差", "抖": "噪声", "干扰": "扰动",
    "摄像头": "传感器", "相机": "传感器", "雷达": "传感器", "视觉": "传感器", "灯光": "光照", "光线": "光照",
    "全称": "Simulation to Reality", "缩写": "Simulation to Reality", "英文": "Simulation to Reality",
    "大白话": "用人话理解", "通俗": "用人话理解", "白话": "用人话理解", "外行": "用人话理解",
    "关键词": "快速记忆", "要点": "快速记忆", "口诀": "快速记忆", "记住": "快速记忆", "总结": "一句话总结",
    "难点": "很难", "难在": "很难", "挑战": "很难",
    "流程": "从仿真训练到真实部署", "哪几步": "从仿真训练到真实部署", "步骤": "从仿真训练到真实部署",
    "办法": "缩小差距", "招": "缩小差距", "手段": "缩小差距", "技术路线": "缩小差距",
    "校准": "系统辨识", "标定": "系统辨识", "少量真实数据": "真机微调", "随机": "域随机化",
    "容忍": "鲁棒策略", "抗干扰": "鲁棒策略", "稳健": "鲁棒策略",
    "售前": "解决方案人员", "方案": "解决方案人员",
    "落地": "部署", "上线": "部署", "拉胯": "仿真—现实差距", "不灵": "无法直接迁移",
}


@lru_cache(maxsize=1)
def _patterns() -> list[tuple[re.Pattern, str]]:
    pats = []
    for term in GLOSSARY:
        for name in {term.en.lower(), *term.aliases}:
            pats.append((re.compile(r"(?<![a-z0-9])" + re.escape(name) + r"(?![a-z0-9])"), term.zh))
    # longest first, so "reality gap" wins over "gap"-like shorter aliases
    return sorted(pats, key=lambda p: -len(p[0].pattern))


def zh_terms_for(text: str) -> list[str]:
    """The card's Chinese terms for what `text` names in English or in everyday Chinese, in order,
    without repeats and without terms the text already contains."""
    low = text.lower()
    found: list[str] = []
    for pat, zh in _patterns():
        if zh not in found and pat.search(low):
            found.append(zh)
    for word, zh in ZH_SYNONYMS.items():
        if word in text and zh not in found:
            found.append(zh)
    return [t for t in found if t.lower() not in low]


def expand_query(text: str) -> str:
    """`text` plus the Chinese terms it names: only for retrieval, never shown to the reader."""
    extra = zh_terms_for(text)
    return f"{text} {' '.join(extra)}" if extra else text
