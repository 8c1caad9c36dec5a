"""What readers ask, for the card's owner: `s2r-tutor insights` and the /admin page read this.

Input is the question log and the feedback table of the shared store; the refused questions are
grouped with the tutor's own embedder (greedy: each question joins the first group whose first
question is similar enough), so "天气如何" and "今天天气怎么样" count as one gap.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter, OrderedDict, defaultdict
from datetime import UTC, datetime

import numpy as np

from .errors import TutorError
from .store import Store
from .store import feedback as fb
from .store import questions as ql

_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*$", re.IGNORECASE)
_UNIT_S = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
TOP = 20


class InsightsError(TutorError):
    """A bad --since value or export choice."""


def parse_since(text: str) -> float:
    """'7d', '24h', '30m', '2w' -> seconds."""
    m = _SINCE.match(text or "")
    if not m:
        raise InsightsError(f"--since must look like 30m, 24h, 7d or 2w, not {text!r}")
    return float(m.group(1)) * _UNIT_S[m.group(2).lower()]


def _key(question: str) -> str:
    return " ".join(question.casefold().split()).rstrip("?？。.!！")


def _day(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")


GROUP_CHARS = 120  # what of a refused question is embedded for grouping: its gist, at a bounded cost
_VECTORS: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()  # (embedder id, text) -> unit vector
_VECTORS_MAX = 20_000
_vectors_lock = threading.Lock()


def _vectors(embedder, texts: list[str]) -> np.ndarray:
    """Unit vectors of `texts`, each embedded once per process: a question already seen (an earlier
    /admin load) is not embedded again (F7: every load re-embedded every refused question)."""
    name = str(getattr(embedder, "id", type(embedder).__name__))
    with _vectors_lock:
        known = {t: _VECTORS[(name, t)] for t in texts if (name, t) in _VECTORS}
    new = list(dict.fromkeys(t for t in texts if t not in known))
    if new:
        fresh = np.asarray(embedder.embed_queries(new), dtype=np.float32)
        fresh /= np.linalg.norm(fresh, axis=1, keepdims=True).clip(min=1e-12)
        with _vectors_lock:
            for t, v in zip(new, fresh):
                known[t] = _VECTORS[(name, t)] = v
            while len(_VECTORS) > _VECTORS_MAX:
                _VECTORS.popitem(last=False)
    return np.stack([known[t] for t in texts]) if texts else np.zeros((0, 1), np.float32)


def group_similar(questions: list[str], embedder, threshold: float, limit: int | None = None) -> list[dict]:
    """[{count, example, questions}] largest first; exact repeats (after normalising) always group.
    `limit`: at most this many distinct questions are grouped, the most frequent first, then the most
    recent (`questions` is oldest first); the rest are left out, so one load's cost is bounded."""
    if not questions:
        return []
    distinct: dict[str, list[str]] = {}
    last: dict[str, int] = {}
    for i, q in enumerate(questions):
        k = _key(q)
        distinct.setdefault(k, []).append(q)
        last[k] = i
    keys = list(distinct)
    if limit is not None and len(keys) > limit:
        chosen = set(sorted(keys, key=lambda k: (-len(distinct[k]), -last[k]))[:limit])
        keys = [k for k in keys if k in chosen]  # grouped in their first-asked order, as before
    vectors = _vectors(embedder, [distinct[k][0][:GROUP_CHARS] for k in keys])
    groups: list[dict] = []
    heads: list[int] = []
    for i, k in enumerate(keys):
        if heads:  # one matrix product against every group's head, not a Python loop
            sims = vectors[heads] @ vectors[i]
            g_best = int(np.argmax(sims))
            best = (float(sims[g_best]), g_best)
        else:
            best = (-1.0, -1)
        if best[0] >= threshold:
            g = groups[best[1]]
        else:
            heads.append(i)
            g = {"count": 0, "example": distinct[k][0], "questions": []}
            groups.append(g)
        g["count"] += len(distinct[k])
        g["questions"].append(distinct[k][0])
    groups.sort(key=lambda g: (-g["count"], g["example"]))
    return groups


def build(store: Store, settings, embedder=None, since_s: float | None = None, now: float | None = None) -> dict:
    """The insights document. `embedder` is loaded from settings only when there are refusals to group."""
    now = time.time() if now is None else now
    since = None if since_s is None else now - since_s
    rows = ql.rows(store, since=since)
    likes = fb.read(store, since=since)

    counts: Counter[str] = Counter()
    example: dict[str, dict] = {}
    for r in rows:
        k = _key(r["question"])
        counts[k] += 1
        example.setdefault(k, r)
    questions = [{"question": example[k]["question"], "count": n, "language": example[k]["language"],
                  "intent": example[k]["intent"], "refused": bool(example[k]["refused"])}
                 for k, n in counts.most_common(TOP)]

    refused_rows = [r for r in rows if r["refused"]]
    if refused_rows and embedder is None:
        from .embedders import get_embedder

        embedder = get_embedder(settings.embedder, settings.embedder_model)
    refused = group_similar([r["question"] for r in refused_rows], embedder, settings.insights_group_similarity,
                            limit=settings.insights_group_max)
    refused_distinct = len({_key(r["question"]) for r in refused_rows})

    low = [{"question": r["question"], "top_score": r["top_score"], "citations": len(r["sections"] or []),
            "intent": r["intent"], "asked_at": _iso(r["asked_at"])}
           for r in rows if not r["refused"]
           and ((r["top_score"] is not None and r["top_score"] < settings.insights_low_score) or len(r["sections"] or []) < 2)]
    low.sort(key=lambda x: (x["top_score"] if x["top_score"] is not None else -1.0))

    disliked = [{"question": f["question"], "answer": _snippet(f["answer"]), "citations": f["citations"],
                 "intent": f["intent"], "ts": f["ts"]} for f in likes if not f["liked"]]

    per_section: Counter[str] = Counter()
    by_day: dict[str, Counter[str]] = defaultdict(Counter)
    refusals_by_day: Counter[str] = Counter()
    asks_by_day: Counter[str] = Counter()
    for r in rows:
        day = _day(r["asked_at"])
        asks_by_day[day] += 1
        if r["refused"]:
            refusals_by_day[day] += 1
        for sid in r["sections"] or []:
            per_section[sid] += 1
            by_day[day][sid] += 1
    sections = [{"section": sid, "hits": n, "by_day": {d: by_day[d][sid] for d in sorted(by_day) if by_day[d][sid]}}
                for sid, n in per_section.most_common()]
    languages = Counter(r["language"] for r in rows)
    return {
        "since": _iso(since) if since is not None else None,
        "total": len(rows),
        "languages": {"zh": languages.get("zh", 0), "en": languages.get("en", 0)},
        "questions": questions,
        "refused": refused,
        "refused_ungrouped": max(0, refused_distinct - settings.insights_group_max),
        "low_confidence": low[:TOP * 5],
        "disliked": disliked,
        "feedback": {"liked": sum(1 for f in likes if f["liked"]), "disliked": len(disliked)},
        "sections": sections,
        "days": [{"day": d, "asks": asks_by_day[d], "refused": refusals_by_day.get(d, 0)} for d in sorted(asks_by_day)],
        "replicas": sorted({r["replica"] for r in rows if r.get("replica")}),
    }


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _snippet(text: str, width: int = 160) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def render_text(doc: dict) -> str:
    """The insights for a terminal."""
    from .textable import table

    out = [f"{doc['total']} question(s)" + (f" since {doc['since']}" if doc["since"] else "")
           + f" — zh {doc['languages']['zh']}, en {doc['languages']['en']}", ""]
    if doc["questions"]:
        out += ["Top questions", table(("n", "lang", "refused", "question"),
                                       [(str(q["count"]), q["language"], "yes" if q["refused"] else "",
                                         _snippet(q["question"], 60)) for q in doc["questions"]]), ""]
    if doc["refused"]:
        out += ["Refused (grouped by similarity)", table(("n", "example", "variants"),
                                                         [(str(g["count"]), _snippet(g["example"], 50), str(len(g["questions"])))
                                                          for g in doc["refused"]]), ""]
    if doc["low_confidence"]:
        out += ["Low confidence", table(("score", "cites", "question"),
                                        [("-" if x["top_score"] is None else f"{x['top_score']:.3f}", str(x["citations"]),
                                          _snippet(x["question"], 60)) for x in doc["low_confidence"][:TOP]]), ""]
    if doc["disliked"]:
        out += ["Disliked answers", table(("when", "question", "answer"),
                                          [(d["ts"][:16], _snippet(d["question"], 40), _snippet(d["answer"], 40))
                                           for d in doc["disliked"][:TOP]]), ""]
    if doc["sections"]:
        out += ["Hits per section", table(("hits", "section", "days"),
                                          [(str(s["hits"]), s["section"], str(len(s["by_day"]))) for s in doc["sections"]]), ""]
    if not doc["total"] and not doc["disliked"]:
        out.append("Nothing logged yet: questions are recorded as readers ask them (question_log=true).")
    return "\n".join(out).rstrip() + "\n"


def export_cases(store: Store, kind: str, since_s: float | None = None) -> list[str]:
    """Eval-case lines (tests/eval format) for a person to label. They are a template: an in-scope case
    needs `expected_sections`, which only a person can fill, so a disliked case does not parse until
    labelled; a refused one parses as "keep refusing" until its label says otherwise."""
    since = None if since_s is None else time.time() - since_s
    if kind == "refused":
        items = [(r["question"], r["language"], "out_of_scope", True) for r in ql.rows(store, since=since) if r["refused"]]
        note = "from the question log: refused; if the card should answer it, set out_of_scope false, intent and expected_sections"
    elif kind == "disliked":
        items = [(f["question"], _language(f["question"]), f["intent"] or "definition", False)
                 for f in fb.read(store, since=since) if not f["liked"]]
        note = "from feedback: disliked; fill expected_sections (and key_points) before adding it to tests/eval/"
    else:
        raise InsightsError("export-cases needs --refused or --disliked")
    lines: list[str] = []
    seen: set[str] = set()
    stamp = datetime.now(UTC).strftime("%Y%m%d")
    for question, language, intent, oos in items:
        k = _key(question)
        if not k or k in seen:
            continue
        seen.add(k)
        case = {"id": f"log-{kind}-{stamp}-{len(seen):03d}", "question": question, "expected_sections": [],
                "intent": intent, "key_points": [], "language": language if language in ("zh", "en") else "zh",
                "out_of_scope": oos, "note": note}
        lines.append(json.dumps(case, ensure_ascii=False))
    return lines


def _language(text: str) -> str:
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
