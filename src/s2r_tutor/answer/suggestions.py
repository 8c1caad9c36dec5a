"""Suggested next questions per intent, in the reader's language (all answerable from the card)."""

from __future__ import annotations

from ..models import Intent

I = Intent
SUGGESTIONS: dict[Intent, dict[str, list[str]]] = {
    I.definition: {"zh": ["为什么要先在仿真里训练？", "为什么仿真里会走，真实机器人却可能不会？", "强化学习和 Sim2Real 有什么区别？"],
                   "en": ["Why train in simulation first?", "Why can a robot walk in simulation but not in reality?",
                          "How is reinforcement learning different from Sim2Real?"]},
    I.why_simulation: {"zh": ["从仿真训练到真实部署有哪些步骤？", "仿真和现实的差距来自哪里？", "Sim2Real 怎么缩小差距？"],
                       "en": ["What are the steps from simulation to deployment?", "What causes the reality gap?",
                              "How does Sim2Real close the gap?"]},
    I.loop: {"zh": ["为什么要先在仿真里训练？", "现场适配时会遇到什么差距？", "Sim2Real 怎么缩小差距？"],
             "en": ["Why train in simulation first?", "What gap shows up during on-site adaptation?",
                    "How does Sim2Real close the gap?"]},
    I.reality_gap: {"zh": ["Sim2Real 怎么缩小差距？", "为什么 Sim2Real 很难？", "Sim2Real 只是一个软件问题吗？"],
                    "en": ["How does Sim2Real close the gap?", "Why is Sim2Real hard?", "Is Sim2Real only a software problem?"]},
    I.methods: {"zh": ["再具体说说第二种方法", "域随机化为什么能帮助迁移？", "为什么真机验证仍然不可省略？"],
                "en": ["Tell me more about the second method", "Why does domain randomization help transfer?",
                       "Why is real-robot validation still needed?"]},
    I.rl_vs_sim2real: {"zh": ["什么是 Sim2Real？", "Sim2Real 怎么缩小差距？", "世界模型和 Sim2Real 是一回事吗？"],
                       "en": ["What is Sim2Real?", "How does Sim2Real close the gap?", "Is a world model the same as Sim2Real?"]},
    I.physical_system: {"zh": ["负载变化为什么会影响 Sim2Real？", "系统辨识是什么？", "为什么 Sim2Real 很难？"],
                        "en": ["Why does a payload change matter for Sim2Real?", "What is system identification?",
                               "Why is Sim2Real hard?"]},
    I.why_hard: {"zh": ["Sim2Real 怎么缩小差距？", "仿真和现实的差距来自哪里？", "解决方案人员什么时候要想到 Sim2Real？"],
                 "en": ["How does Sim2Real close the gap?", "What causes the reality gap?",
                        "When should a solution engineer think of Sim2Real?"]},
    I.scenario: {"zh": ["系统辨识是什么？", "域随机化为什么能帮助迁移？", "卡片里还有哪些客户场景？"],
                 "en": ["What is system identification?", "Why does domain randomization help transfer?",
                        "Which customer scenarios does the card list?"]},
    I.quick_memory: {"zh": ["什么是 Sim2Real？", "为什么 Sim2Real 很难？", "Sim2Real 有哪些相关概念？"],
                     "en": ["What is Sim2Real?", "Why is Sim2Real hard?", "Which concepts are related to Sim2Real?"]},
    I.related: {"zh": ["域随机化为什么能帮助迁移？", "机器人数据如何帮助现场适配？", "世界模型和 Sim2Real 是一回事吗？"],
                "en": ["Why does domain randomization help transfer?", "How does robot data help on-site adaptation?",
                       "Is a world model the same as Sim2Real?"]},
}


def suggestions(intent: Intent, lang: str) -> list[str]:
    return list(SUGGESTIONS.get(intent, SUGGESTIONS[I.definition])[lang])
