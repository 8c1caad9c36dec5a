"""Customer-scenario walkthroughs: complaint -> the card's patterns, gap factors, evidence, checks.

`FACTORS` is a declarative table: cue words (zh + en) -> a gap factor named by the card's own tags
-> the card sentences that explain it and the methods worth checking. A complaint is matched on
cue words, never on whole phrasings, so new complaints ("机器狗一到户外草地就走不稳") work too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .card import lines, unnumber
from .labels import label
from .lexicon import any_of, fold

if TYPE_CHECKING:
    from .card import Writer
    from .focus import Focus


@dataclass(frozen=True)
class Factor:
    key: str
    names: dict[str, str]          # the card's tag, and its English rendering
    cues: re.Pattern[str]
    patterns: tuple[str, ...]      # card scenarios (anchors) this factor resembles
    evidence: tuple[tuple[str, str], ...]  # (anchor, a phrase of the sentence/clause that explains it)
    methods: tuple[str, ...]       # method anchors to check, most relevant first
    check: dict[str, str]          # what to ask or check next (framing, names the card's factor)


FACTORS: list[Factor] = [
    Factor("ground", {"zh": "地面 / 摩擦", "en": "ground / friction (地面 / 摩擦)"},
           any_of(r"地面", r"地板", r"草", r"户外", r"室外", r"湿", r"滑", r"坡", r"台阶", r"楼梯", r"地毯", r"沙", r"碎石",
                  r"瓷砖", r"路面", r"地形", r"不平", r"摩擦", r"floor", r"ground", r"grass", r"outdoor", r"wet", r"slip",
                  r"slope", r"ramp", r"stair", r"carpet", r"gravel", r"sand", r"tile", r"terrain", r"uneven", r"friction",
                  r"\bice\b", r"icy", r"mud"),
           ("scenario-factory-floor",), (("reality-gap", "摩擦系数"), ("reality-gap", "地面也不一定平整")),
           ("domain-randomization", "system-identification", "robust-policy"),
           {"zh": "核对：仿真里的地面类型和摩擦参数，是否覆盖了现场的真实地面？",
            "en": "Check: do the simulated ground types and friction values cover the real floor on site?"}),
    Factor("payload", {"zh": "本体参数 / 负载变化", "en": "body parameters / payload change (本体参数 / 负载变化)"},
           any_of(r"载重", r"负载", r"负重", r"背上", r"背着", r"加装", r"挂载", r"电池", r"设备", r"重量", r"质心", r"重心",
                  r"加了", r"空载", r"payload", r"\bload", r"carr", r"weight", r"heav", r"battery", r"mount",
                  r"center of mass", r"backpack"),
           ("scenario-payload",), (("reality-gap", "质心"), ("physical-system", "越不准确")),
           ("system-identification", "domain-randomization", "robust-policy"),
           {"zh": "核对：负载的重量和安装位置（质心）是否已经写进仿真参数？",
            "en": "Check: are the payload's weight and mounting point (centre of mass) in the simulation parameters?"}),
    Factor("actuator", {"zh": "本体 / 电机性能", "en": "robot body / motor performance (本体 / 电机性能)"},
           any_of(r"电机", r"马达", r"舵机", r"减速器", r"关节", r"执行器", r"驱动", r"motor", r"actuator", r"gear", r"servo",
                  r"joint", r"drive"),
           ("scenario-precision",), (("reality-gap", "响应延迟"), ("physical-system", "同一套算法")),
           ("system-identification", "real-world-fine-tuning"),
           {"zh": "核对：新电机 / 关节的响应、延迟和间隙，仿真里的本体参数是否同步更新？",
            "en": "Check: were the new motor's response, delay and backlash updated in the simulated robot body?"}),
    Factor("sensors", {"zh": "传感器差异 / 噪声", "en": "sensor differences / noise (传感器差异 / 噪声)"},
           any_of(r"传感器", r"摄像头", r"相机", r"镜头", r"雷达", r"激光", r"\bimu\b", r"编码器", r"视觉", r"识别", r"光照", r"反光",
                  r"噪声", r"sensor", r"camera", r"lidar", r"vision", r"light", r"nois", r"encoder", r"percept", r"detect"),
           ("scenario-sensors",), (("reality-gap", "传感器会有噪声"), ("why-hard", "传感器存在噪声和延迟")),
           ("domain-randomization", "real-world-fine-tuning"),
           {"zh": "核对：换用的传感器噪声、延迟和安装位置，与训练时的设定差多少？",
            "en": "Check: how far are the sensors' noise, delay and mounting from what training assumed?"}),
    Factor("precision", {"zh": "模型误差 / 控制", "en": "model error / control (模型误差 / 控制)"},
           any_of(r"精度", r"不准", r"偏", r"误差", r"定位", r"对不准", r"抖", r"振", r"延迟", r"慢", r"响应", r"跟踪",
                  r"precis", r"accura", r"offset", r"jitter", r"oscillat", r"\blag", r"delay", r"slow",
                  r"track", r"position", r"drift"),
           ("scenario-precision",), (("reality-gap", "物理过程经过简化"), ("why-hard", "本体参数存在误差")),
           ("system-identification", "real-world-fine-tuning", "robust-policy"),
           {"zh": "核对：不要只看算法效果——仿真模型与真机在控制响应上的误差有多大？",
            "en": "Check: beyond the algorithm, how large is the model error between simulation and the real controller?"}),
    Factor("environment", {"zh": "环境变化 / 泛化", "en": "environment change / generalisation (Reality Gap / 泛化)"},
           any_of(r"现场", r"客户", r"工厂", r"车间", r"仓库", r"户外", r"室外", r"实验室", r"环境", r"温度", r"场地",
                  r"site", r"customer", r"client", r"factory", r"warehouse", r"outdoor", r"\blab\b", r"field",
                  r"environment", r"deploy", r"plant"),
           ("scenario-factory-floor",), (("reality-gap", "真实环境："), ("why-hard", "环境变化远比仿真复杂")),
           ("domain-randomization", "robust-policy", "real-world-fine-tuning"),
           {"zh": "核对：现场有哪些条件是仿真和实验室里没有覆盖到的？",
            "en": "Check: which conditions on site were never covered in simulation or the lab?"}),
]
SWAP = any_of(r"换了", r"更换", r"换成", r"换用", r"新的?", r"replac", r"swap", r"\bnew\b", r"changed")
SCENARIO_ANCHORS = ["scenario-factory-floor", "scenario-payload", "scenario-sensors", "scenario-precision"]
METHOD_ORDER = ["domain-randomization", "system-identification", "real-world-fine-tuning", "robust-policy"]


# The one method the card ties to each factor (its example names that factor), suggested with the
# checks; the other methods are fixes the sources list, not checks.
TIED_METHOD = {"ground": "domain-randomization", "payload": "system-identification", "actuator": "system-identification",
               "sensors": "domain-randomization", "precision": "system-identification", "environment": "robust-policy"}


def match_factors(question: str) -> list[Factor]:
    """The gap factors the story names; the catch-all environment factor only when it names no other."""
    q = fold(question)
    found = [f for f in FACTORS if f.cues.search(q)]
    named = [f for f in found if f.key != "environment"]
    return named or found


def resembles(question: str, factors: list[Factor]) -> list[str]:
    """The card scenario the story is most like: the first named factor's (a hardware swap with no
    other factor named is the card's sensor-swap scenario)."""
    if factors:
        return [factors[0].patterns[0]]
    return ["scenario-sensors"] if SWAP.search(fold(question)) else []


def _clause(sentence: str, phrase: str) -> str:
    """In a sentence that lists four or more causes, just the clause with `phrase`."""
    parts = [c for c in re.split(r"[，；。]", sentence) if c]
    return unnumber(next((c for c in parts if phrase in c), sentence) if len(parts) >= 4 else sentence)


def _pattern_line(w: "Writer", anchor: str) -> str:
    return w.bullet(anchor, *w.card.sents(anchor), sep=" ", label=label(w.lang, anchor, w.card.heading(anchor)))


def _section(w: "Writer", key: str, *items: str) -> str:
    body = lines(*items)
    if not body:
        return ""
    return w.ledger.frame(f"**{label(w.lang, key)}**") + "\n" + body


def build_scenario(w: "Writer", f: "Focus") -> dict[str, str]:
    """A walkthrough from the symptom: the gap factors the story names (with the card's evidence), the
    checks they call for and the one method the card ties to each, the card scenario it resembles,
    and real-robot validation, ordered by what is asked (f.act)."""
    from .intents import SYMPTOM

    factors = match_factors(f.question)
    symptom = bool(SYMPTOM.search(fold(f.question)))
    if not symptom and all(x.key == "environment" for x in factors):
        factors = []  # "when should a solution engineer think of Sim2Real with a customer": no story, no factor
    if [x.key for x in factors] == ["environment"]:
        # a story that names only the place ("lab fine, falls at the factory") is the card's lab-to-factory
        # scenario, which the card tags with 地面 / 摩擦: that factor is the card's, not a guess
        factors = [FACTORS[0], factors[0]]
    complaint = symptom or bool(factors)
    patterns = resembles(f.question, factors) if complaint else []
    if not complaint or not patterns:  # "what scenarios does the card list?" or a vague complaint
        patterns = SCENARIO_ANCHORS
    factor_lines, checks = [], []
    for fac in factors:
        evidence = [w.sentence(a, p) for a, p in fac.evidence]
        spans = [_clause(s, p) for s, (_, p) in zip(evidence, fac.evidence)]
        cited = [w.quote(a, s) for (a, _), s in zip(fac.evidence, spans)]
        body = ("；" if w.lang == "zh" else "; ").join(c for c in cited if c)
        if body:
            w.ledger.frame(f"**{fac.names[w.lang]}**")
            factor_lines.append(f"- **{fac.names[w.lang]}**{'：' if w.lang == 'zh' else ': '}{body}")
        checks.append(w.ledger.frame(f"- {fac.check[w.lang]}"))
    methods = list(dict.fromkeys(TIED_METHOD[fac.key] for fac in factors))
    method_lines = [w.bullet(m, *w.card.sents(m), label=w.card.heading(m)) for m in methods]
    parts = {
        "patterns": _section(w, "sc-patterns", *[_pattern_line(w, a) for a in patterns]),
        "factors": _section(w, "sc-factors", *factor_lines),
        "checks": _section(w, "sc-checks", *checks, *method_lines),
        "why": (_section if factors else (lambda _w, _k, *items: lines(*items)))(  # no story: no "why this happens"
            w, "sc-why", w.bullet("reality-gap", w.sentence("reality-gap", "Reality Gap")),
            w.bullet("solution-engineers", w.sentence("solution-engineers", "重点不是"))),
        "validation": w.bullet("related-robot-data", w.sentence("related-robot-data", "真机安全验证")),
    }
    order = {"check_first": ("patterns", "checks", "factors", "validation"),
             "why": ("factors", "patterns", "why", "checks"),
             "customer_reply": ("patterns", "factors", "why", "validation"),
             "overview": ("patterns", "factors", "checks"),
             }.get(f.act, ("patterns", "factors", "checks", "why", "validation"))
    if not factors:  # no symptom named: the card's scenarios, or when to think of Sim2Real at all
        order = ("patterns", "why") if f.act == "overview" or not complaint and "场景" in f.question else ("why", "patterns")
    return {"body": "\n\n".join(parts[k] for k in order if parts[k])}
