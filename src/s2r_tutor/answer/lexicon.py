"""Word lists the rule layers read (zh + en), kept as data so tuning never touches logic.

All patterns are matched against `fold(text)`: NFKC-folded and lower-cased, spaces kept.
"""

from __future__ import annotations

import re
import unicodedata


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


# Python's \b treats Chinese characters as word characters, so "先RL再" has no \b around "rl".
# Patterns here mean an ASCII word boundary: a letter/digit on one side and none on the other.
_ASCII_B = r"(?:(?<![a-z0-9])(?=[a-z0-9])|(?<=[a-z0-9])(?![a-z0-9]))"


def any_of(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives).replace(r"\b", _ASCII_B))


# Vocabulary that only this card's topic uses: one hit puts a question in scope.
CORE_TERMS = any_of(
    r"sim\s*2\s*real", r"sim[\s-]*to[\s-]*real", r"simulation[\s-]*to[\s-]*reality", r"\bs2r\b",
    r"仿真", r"模拟(?:器|环境|世界|训练|里|中)", r"虚拟(?:世界|环境|机器人|训练|里|中)?",
    r"simulat", r"\bsim\b", r"电脑(?:里|上|中)", r"in (?:a|the) computer", r"\bvirtual", r"仿(?![佛照效])[\u4e00-\u9fff]", r"reality\s*gap", r"现实差距", r"仿真.?现实", r"差距", r"\bgap\b",
    r"域随机化", r"随机化", r"domain\s*randomi", r"randomi[sz]", r"系统辨识", r"辨识", r"system\s*identification",
    r"\bsys\s*id\b", r"真机", r"微调", r"fine[\s-]*tun", r"鲁棒", r"robust", r"强化学习", r"增强学习",
    r"reinforcement\s*learning", r"\brl\b", r"世界模型", r"world\s*model", r"本体", r"embodiment",
    r"迁移", r"transfer", r"部署", r"deploy", r"现场适配", r"(?:真实|现实)(?:世界|环境|场景|里|中)", r"real[\s-]*world",
    r"real\s*robot", r"physical\s*robot", r"真实机器人", r"实体机器人",
    r"\b(?:the )?real (?:world|robot|hardware|warehouse|factory|site|environment|machine|floor|life|thing)", r"actual (?:robot|hardware)",
    # metaphors for a virtual training world
    r"video\s*games?", r"game\s*engine", r"(?:电子)?游戏(?:里|中|世界)", r"digital\s*twin", r"数字孪生",
)

# Robotics words the card talks about, but that other topics share: need a second signal.
WEAK_TERMS = any_of(
    r"机器人", r"机器狗", r"机械臂", r"四足", r"人形", r"robot", r"\barm\b", r"manipulator", r"quadruped",
    r"humanoid", r"电机", r"马达", r"motor", r"减速器", r"gearbox", r"关节", r"joint", r"传感器", r"sensor",
    r"摄像头", r"相机", r"camera", r"lidar", r"雷达", r"imu", r"步态", r"gait", r"摩擦", r"friction",
    r"负载", r"载重", r"负重", r"payload", r"地面", r"地形", r"terrain", r"训练", r"train", r"策略", r"policy",
    r"现场", r"on[\s-]*site", r"客户", r"customer", r"精度", r"precis", r"摔", r"fall", r"走路", r"walk",
    r"参数", r"parameter", r"夹爪", r"gripper", r"末端", r"抓取", r"grasp", r"底盘", r"轮", r"wheel", r"腿", r"\bleg",
    r"controller", r"控制器", r"hardware", r"硬件", r"产线", r"production line",
)

# The thing the question is about is a robot (corpus evidence from everyday words needs this).
ROBOT = any_of(r"机器人", r"机器狗", r"机械臂", r"四足", r"人形", r"双足", r"样机", r"robot", r"quadruped", r"humanoid",
               r"biped", r"manipulator", r"\barm\b", r"robot dog")

# "This thing" with nothing else named: in a tutor about the card, the card's topic is what it points at.
DEICTIC = any_of(r"这事儿?", r"这件事", r"这玩意儿?", r"这东西", r"这一套", r"这块(?:儿)?", r"this stuff", r"this thing",
                 r"this whole thing", r"this topic")

# Asking about the card itself ("summarise this", "what are the related concepts").
META_TERMS = any_of(
    r"卡片", r"这张卡", r"this card", r"the card", r"快速记忆", r"相关概念", r"关联知识",
    # asking for the card's memory aid in other words
    r"口诀", r"顺口溜", r"助记", r"mnemonic", r"cheat[\s-]*sheet",
    r"related concepts", r"key points", r"要点", r"concept cards?", r"related to this", r"related cards?", r"(?:the|these|its) (?:key|main|core) (?:ideas|points|takeaways)(?! (?:of|from|in|for))", r"cards? (?:should|to) (?:i )?read",
)

# Robotics and AI topics the card does not cover: refuse unless a core term is also present.
FOREIGN_TOPICS = any_of(
    r"slam", r"建图", r"定位与建图", r"路径规划", r"path\s*planning", r"导航", r"navigation", r"\bpid\b",
    r"逆运动学", r"inverse\s*kinematics", r"\bros2?\b", r"transformer", r"大模型", r"\bllm\b", r"gpt",
    r"卷积", r"\bcnn\b", r"目标检测", r"object\s*detection", r"yolo", r"点云", r"point\s*cloud",
    r"extrinsic", r"intrinsic", r"外参", r"内参", r"impedance", r"阻抗", r"力控", r"force\s*control",
    r"续航", r"battery life", r"三定律", r"three laws",
    # motion planning, legged/humanoid balance control and drive-train selection: robotics the card
    # never covers (its 减速器 is one word in a list of body parameters, not a selection guide)
    r"运动规划", r"motion\s*planning", r"moveit", r"\bzmp\b", r"倒立摆", r"inverted\s*pendulum",
    r"whole[\s-]*body\s*control", r"全身控制", r"谐波", r"harmonic\s*drive", r"\brv\s*减速器", r"\brv\s*reducer",
    r"摆线", r"cycloidal", r"抓取规划", r"grasp\s*planning", r"示教器", r"teach\s*pendant", r"ethercat", r"\burdf\b",
    r"(?:安全|行业|国家|国际)?(?:标准|规范|法规|认证)(?:有哪些|是什么|怎么)", r"\biso\s*\d", r"(?:safety )?(?:standards?|regulations?|certification)\b",
    r"(?:calibrat\w*|标定|校准)\s*(?:an? |the |my |our )?(?:imu|camera|lidar|相机|雷达|摄像头|陀螺仪|gyro)",
    r"(?:imu|camera|lidar|相机|雷达|摄像头|陀螺仪)\s*(?:的)?(?:calibrat|标定|校准)", r"手眼标定", r"hand[\s-]*eye", r"卡尔曼", r"kalman", r"mpc", r"模型预测控制", r"轨迹优化", r"trajectory\s*optimi",
)

# Off the card even next to a core term: tools and products it never names, code, purchases.
# Simulator products: off the card when the question is about the tool ("Isaac 和 MuJoCo 哪个好"), in
# scope when it only names the tool a policy was trained in and asks why it fails on the real robot.
SIM_TOOLS = any_of(r"isaac", r"mujoco", r"gazebo", r"pybullet", r"webots", r"\bunity\b", r"unreal")
REAL_SIDE = any_of(r"真机", r"实机", r"真实机器人", r"实物", r"现场", r"工厂", r"产线", r"客户那", r"上线后", r"部署到",
                   r"real[\s-]*(?:world|robot|hardware)", r"on[\s-]*site", r"on the (?:real|physical)", r"physical robot",
                   r"in (?:the )?(?:factory|field|reality|real life)", r"deploy")
OFF_CARD = any_of(
    r"\bros2?\b", r"哪个仿真器",
    r"\bppo\b", r"\bsac\b", r"\bdqn\b", r"\btd3\b", r"推导", r"derivation", r"\bderive",
    r"奖励函数", r"reward (?:function|shaping|design)", r"超参", r"hyper[\s-]*param", r"学习率", r"learning rate",
    r"(?:写|给我|贴).{0,6}代码", r"write .{0,20}code", r"\bpython\b", r"pytorch", r"价格", r"多少钱", r"\bprice",
    r"报价", r"售价", r"pricing", r"how much (?:is|does|do|would)\b.{0,40}\bcost", r"\bquote for",
    # after-sales terms of a purchase (not "guarantee" or "交付": readers ask whether sim results
    # can be promised or why delivery takes long, which the card answers)
    r"保修", r"质保", r"保固", r"售后", r"维保", r"warrant(?:y|ies)", r"after[\s-]*sales", r"spare parts", r"备件",
    # tasks that are not questions about a card: translating, mail, recipes
    # (an e-mail to a customer *about* Sim2Real is a reader's real job, so mail is not on this list)
    r"翻译", r"\btranslat", r"recipe", r"菜谱",
)

# Attempts to steer the assistant away from the card.
INJECTION = any_of(
    r"ignore (?:all |the )?(?:previous|prior|above|earlier)", r"disregard (?:all |the )?(?:previous|prior|above)",
    r"忽略(?:之前|以上|前面|上面|所有)", r"无视(?:之前|以上|前面|上面)", r"system prompt", r"系统提示",
    r"you are now", r"you now answer", r"pretend (?:to be|you are)", r"system override", r"override",
    r"(?:ignore|forget|disregard) (?:the|this|that|your) (?:card|cards|context|rules)", r"不(?:要|用)?(?:管|理|看)(?:这张|那张)?卡",
    r"(?:从现在(?:起|开始)).{0,12}(?:你是|你就是)", r"(?:忽略|无视|忘掉|忘记|抛开|别管|不管)(?:掉)?(?:这张|那张)?(?:卡|卡片|之前|以上|前面|上面|所有)",
    r"act as (?:my|a|an) ", r"(?:你|您)(?:现在)?(?:是|当|扮)(?:我的)?(?:律师|医生|老师)",
    r"(?:讲讲|说说|介绍(?:一下)?)你自己", r"tell me about yourself", r"who are you", r"没有(?:任何)?限制", r"(?:内部配置|知识库原文|原样(?:发|输出|打印))", r"jailbreak", r"扮演", r"developer mode",
    # text dressed up as a message from the system, an admin or the developer, or as markup that
    # closes the context: whatever it asks, it is an instruction smuggled in as a question
    r"[【\[]\s*(?:系统|system|admin|管理员)", r"系统通知", r"管理员", r"已授权", r"提示词", r"\bprompts?\b",
    r"</?\s*(?:context|system|instructions?|rules?|assistant|user)\s*>", r"new rule", r"from the developer",
    r"without the card", r"跳过.{0,8}限制", r"bypass", r"(?:输出|打印|显示|泄露).{0,8}(?:配置|模板|设置)",
    r"写(?:一首|首)?诗", r"(?:不要|别|不用)管", r"破解", r"\bhack", r"\bcrack", r"write (?:me )?a (?:poem|song|story|joke)", r"讲个笑话", r"tell me a joke",
)

# Typo tolerance for the English core words (difflib ratio against each word of the question).
FUZZY_CORE_WORDS = ("simulation", "simulator", "simulated", "sim2real", "randomization", "randomisation",
                    "identification", "reinforcement", "deployment")
FUZZY_MIN_RATIO = 0.8


FUZZY_CORE_PAIRS = ("reality gap", "domain randomization", "system identification", "robust policy", "world model")
# Chinese terms where one wrong character (a homophone typo: 域随机话) still names the concept.
ZH_CORE = ("域随机化", "系统辨识", "真机微调", "鲁棒策略", "强化学习", "世界模型", "现实差距")
_ZH_FUZZY = re.compile("|".join(t[:i] + "." + t[i + 1:] for t in ZH_CORE for i in range(len(t))))


CANON_WORDS = FUZZY_CORE_WORDS + ("reinforcement", "simulate", "simulating", "calibrate", "robustness")


def canonical(text: str) -> str:
    """`fold(text)` with typos of the core words spelled right (sim2reel -> sim2real, 域随机话 -> 域随机化),
    so intent rules written for the right spelling also read the misspelt question."""
    from difflib import SequenceMatcher

    q = fold(text)

    def fix(m: re.Match) -> str:
        w = m.group(0)
        if len(w) < 5 or w in CANON_WORDS:
            return w
        best = max(CANON_WORDS, key=lambda c: SequenceMatcher(None, w, c).ratio())
        close = abs(len(w) - len(best)) <= 2 and SequenceMatcher(None, w, best).ratio() >= FUZZY_MIN_RATIO
        return best if close else w

    q = re.sub(r"[a-z0-9]+", fix, q)
    for term in ZH_CORE:
        q = re.sub("|".join(term[:i] + "." + term[i + 1:] for i in range(len(term))), term, q)
    return q


def fuzzy_core(text: str) -> bool:
    from difflib import SequenceMatcher

    def close(a: str, b: str) -> bool:
        return abs(len(a) - len(b)) <= 2 and SequenceMatcher(None, a, b).ratio() >= FUZZY_MIN_RATIO

    q = fold(text)
    words = re.findall(r"[a-z0-9]+", q)
    if any(close(w, c) for w in words if len(w) >= 5 for c in FUZZY_CORE_WORDS):
        return True
    pairs = [f"{a} {b}" for a, b in zip(words, words[1:])]
    if any(close(p, c) for p in pairs for c in FUZZY_CORE_PAIRS):
        return True
    return bool(_ZH_FUZZY.search(q))
